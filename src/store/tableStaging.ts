/**
 * A store table's content staged in DuckDB before it is written: rows built in JS, rows an importer
 * appends as it reads (each checked against its column spec), or a SELECT, typed by the schema.
 * writeStore.ts writes staged tables to Parquet; on-the-fly audits (src/audit/source.ts) query them.
 */
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import type { DuckDBAppender, DuckDBConnection } from '@duckdb/node-api';
import { StoreError } from '../errors.ts';
import { duck, scratchFolder, sqlIdent, sqlString } from '../util/duckdb.ts';
import { checkedValue, TABLES, type ColumnSpec, type TableName } from './schema.ts';

/**
 * A table's content: rows built in JS; a temporary table an importer filled row by row
 * through `openTableStager` (validated as the rows went in); or a SELECT DuckDB runs (for
 * bulk imports). A `lazy` SELECT, whose importer has already validated it, is staged as a
 * typed view and computed only when read (on-the-fly rescoring reads a few columns of it).
 */
export type TableSource =
  | { rows: readonly Record<string, unknown>[] }
  | { staged: string }
  | {
      sql: string;
      lazy?: boolean;
      /** A column of `sql` holding each row's position (kept as file_row_number). */
      rowNumber?: string;
      /** 'parse': each read of `sql` parses text again (rowLinesTable.ts), so a source queried many times is read into a table once. */
      reread?: 'parse';
      /** The size of the text `sql` parses, when it reads text (bounds the store write's memory: see writeTables in writeStore.ts). */
      textBytes?: number;
    };

/**
 * A store table filled as an importer reads its source: each row is checked against the
 * column specs and goes into a DuckDB temporary table at once (which spills to disk past
 * the memory limit), so a samples file of gigabytes never sits in JS whole.
 */
export interface TableStager {
  add(row: Record<string, unknown>): void;
  /** The filled table, as a source for the writer (which drops it once written). */
  finish(): { staged: string };
  abort(): Promise<void>;
}

export async function openTableStager(table: TableName): Promise<TableStager> {
  // The main connection: temporary tables belong to the connection that made them. Several
  // appenders may fill their tables side by side; none may run while a query streams on it.
  const filled = await appendedTable(await duck(), table);
  return {
    add: filled.add,
    finish() {
      try {
        filled.close();
      } catch (error) {
        throw new StoreError(`${table}: ${(error as Error).message.split('\n')[0]}`, { cause: error });
      }
      return { staged: filled.name };
    },
    abort: filled.drop,
  };
}

/** A temporary table on `conn` filled through an appender, each row checked against the table's column specs. */
export async function appendedTable(conn: DuckDBConnection, table: TableName) {
  const name = `staged_${table}_${randomBytes(6).toString('hex')}`;
  await conn.run(`CREATE TABLE ${name} (${columnsDdl(table)})`);
  const appender = await conn.createAppender(name);
  let index = 0;
  let open = true;
  const closeAppender = () => {
    if (!open) return;
    open = false;
    appender.closeSync();
  };
  return {
    name,
    add(row: Record<string, unknown>): void {
      appendRow(appender, TABLES[table], row, table, index++);
    },
    /** Writes the last rows and closes the appender. */
    close(): void {
      try {
        appender.flushSync();
      } finally {
        closeAppender();
      }
    },
    async drop(): Promise<void> {
      try {
        closeAppender();
      } catch {
        // Dropped either way.
      }
      await conn.run(`DROP TABLE IF EXISTS ${name}`).catch(() => undefined);
    },
  };
}

/** A staged table or view, and the expression for it with each row's position as file_row_number. */
export interface Staged {
  name: string;
  withRowNumber: string;
  /** The text a view over row lines parses when read (rowLinesTable.ts), when it is one. */
  textBytes?: number;
}

/**
 * Loads a table's content into a DuckDB temporary table typed by the schema and
 * returns its name. The column specs are the validation: JS rows are checked value
 * by value; SQL sources are cast and must satisfy the NOT NULL constraints.
 */
export async function stageTable(table: TableName, source: TableSource, options: { queried?: boolean } = {}): Promise<Staged> {
  if ('staged' in source) return { name: source.staged, withRowNumber: `(SELECT rowid AS file_row_number, * FROM ${source.staged})` };
  if ('rows' in source) {
    const stager = await openTableStager(table);
    try {
      for (const row of source.rows) stager.add(row);
      return stageTable(table, stager.finish(), options);
    } catch (error) {
      await stager.abort();
      if (error instanceof StoreError) throw error;
      throw new StoreError(`${table}: ${(error as Error).message.split('\n')[0]}`, { cause: error });
    }
  }
  const conn = await duck();
  const spec: readonly ColumnSpec[] = TABLES[table];
  const staging = `staged_${table}_${randomBytes(6).toString('hex')}`;
  // A source that parses text each time it is read, read by queries (an on-the-fly audit), is parsed once into a
  // Parquet file of this process's scratch folder (removed at exit), which queries read as they read a store.
  if (source.lazy && options.queried && source.reread === 'parse') {
    const file = join(scratchFolder('staged'), `${staging}.parquet`);
    const select = spec.map((c) => `CAST(${sqlIdent(c.name)} AS ${c.type}) AS ${sqlIdent(c.name)}`).join(', ');
    try {
      await withOneThread(async () => conn.run(`COPY (SELECT ${select} FROM (${source.sql})) TO ${sqlString(file)} (FORMAT parquet, COMPRESSION snappy, ROW_GROUP_SIZE 16384)`));
    } catch (error) {
      throw new StoreError(`${table}: ${(error as Error).message.split('\n')[0]}`, { cause: error });
    }
    await conn.run(`CREATE VIEW ${staging} AS SELECT * FROM read_parquet(${sqlString(file)})`);
    return { name: staging, withRowNumber: `read_parquet(${sqlString(file)}, file_row_number = true)` };
  }
  if (source.lazy) {
    const select = spec.map((c) => `CAST(${sqlIdent(c.name)} AS ${c.type}) AS ${sqlIdent(c.name)}`).join(', ');
    const position = source.rowNumber === undefined ? '' : `, ${sqlIdent(source.rowNumber)} AS file_row_number`;
    await conn.run(`CREATE VIEW ${staging} AS SELECT ${select}${position} FROM (${source.sql})`);
    return {
      name: staging,
      // A window function would serialise every query above it; a recorded position does not.
      withRowNumber: source.rowNumber === undefined ? `(SELECT row_number() OVER () - 1 AS file_row_number, * FROM ${staging})` : staging,
      ...(source.textBytes === undefined ? {} : { textBytes: source.textBytes }),
    };
  }
  await conn.run(`CREATE TABLE ${staging} (${columnsDdl(table)})`);
  try {
    const select = spec.map((c) => `CAST(${sqlIdent(c.name)} AS ${c.type})`).join(', ');
    await conn.run(`INSERT INTO ${staging} SELECT ${select} FROM (${source.sql})`);
  } catch (error) {
    await dropStaged(staging);
    if (error instanceof StoreError) throw error;
    throw new StoreError(`${table}: ${(error as Error).message.split('\n')[0]}`, { cause: error });
  }
  return { name: staging, withRowNumber: `(SELECT rowid AS file_row_number, * FROM ${staging})` };
}

/**
 * Runs `write` with DuckDB on one thread. The Parquet writer holds a whole row group in memory,
 * outside DuckDB's memory limit: at the default 122,880 rows a group of lm-eval instances
 * (documents and prompts of a few KB each) took the import's peak past 1 GiB; and each of
 * DuckDB's writer threads holds row groups of its own (with two, a 2.2 GiB samples import
 * peaked at 1.03-1.13 GiB, with one at 0.89 GiB; the row groups come out the same).
 */
export async function withOneThread<T>(write: () => Promise<T>, on: Promise<DuckDBConnection> = duck()): Promise<T> {
  const conn = await on;
  await conn.run(`SET threads = 1`);
  try {
    return await write();
  } finally {
    await conn.run(`RESET threads`);
  }
}

/** A table's column definitions, typed and constrained as the schema says. */
export function columnsDdl(table: TableName): string {
  return TABLES[table].map((c) => `${sqlIdent(c.name)} ${c.type}${c.nullable ? '' : ' NOT NULL'}`).join(', ');
}


export async function dropStaged(name: string): Promise<void> {
  const conn = await duck();
  await conn.run(`DROP VIEW IF EXISTS ${name}`).catch(() => undefined);
  await conn.run(`DROP TABLE IF EXISTS ${name}`).catch(() => undefined);
}

function appendRow(
  appender: DuckDBAppender,
  spec: readonly ColumnSpec[],
  row: Record<string, unknown>,
  table: string,
  index: number,
): void {
  for (const column of spec) {
    const value = checkedValue(table, index, column, row[column.name]);
    if (value === null) appender.appendNull();
    else if (column.type === 'VARCHAR') appender.appendVarchar(value as string);
    else if (column.type === 'BIGINT') appender.appendBigInt(BigInt(value as number));
    else if (column.type === 'DOUBLE') appender.appendDouble(value as number);
    else appender.appendBoolean(value as boolean);
  }
  appender.endRow();
}
