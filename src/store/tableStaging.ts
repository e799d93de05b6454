/**
 * A store table's content staged in DuckDB before it is written: rows built in JS, rows an importer
 * writes as it reads (each checked against its column spec), or a SELECT, typed by the schema.
 * writeStore.ts writes staged tables to Parquet; on-the-fly audits (src/audit/source.ts) query them.
 */
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import type { DuckDBConnection } from '@duckdb/node-api';
import { StoreError } from '../errors.ts';
import { duck, scratchFolder, sqlIdent, sqlString } from '../util/duckdb.ts';
import { checkedValue, TABLES, type ColumnSpec, type TableName } from './schema.ts';
import { TypedRowLines } from './rowLinesTable.ts';
import type { TableSource } from './tableSource.ts';

export type { TableSource } from './tableSource.ts';

/**
 * A store table filled as an importer reads its source: each row is checked against the column
 * specs as it comes and written as a line of scratch text (rowLinesTable.ts TypedRowLines) that
 * DuckDB reads once, when the table is written or queried, so a source of gigabytes never sits in
 * JS whole and its rows do not go through DuckDB's appender a value at a time.
 */
export interface TableStager {
  add(row: Record<string, unknown>): void;
  /** The filled table, as a source for the writer. */
  finish(): TableSource;
  abort(): void;
}

export function openTableStager(table: TableName): TableStager {
  const columns: readonly ColumnSpec[] = TABLES[table];
  const lines = new TypedRowLines(table, columns);
  let index = 0;
  // One array for every row (add reads it and keeps nothing).
  const values: (string | number | boolean | null)[] = new Array(columns.length);
  return {
    add(row) {
      for (let i = 0; i < columns.length; i++) values[i] = checkedValue(table, index, columns[i]!, row[columns[i]!.name]);
      lines.add(values);
      index++;
    },
    finish: () => ({ sql: lines.select(), lazy: true, reread: 'parse', textBytes: lines.bytes }),
    abort: () => lines.abort(),
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
  if ('rows' in source) {
    const stager = openTableStager(table);
    try {
      for (const row of source.rows) stager.add(row);
      return await stageTable(table, stager.finish(), options);
    } catch (error) {
      stager.abort();
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

