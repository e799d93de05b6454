/**
 * Writing a run store. Every table goes through its column spec; every file is
 * written under a temporary name and renamed into place, and a whole new store is
 * built in a sibling temporary folder and renamed in last, so a crash or kill never
 * leaves a half-written store and never touches one that exists.
 */
import { mkdir, rename, rm, stat, writeFile, readdir } from 'node:fs/promises';
import { dirname, join, basename } from 'node:path';
import { randomBytes } from 'node:crypto';
import type { DuckDBAppender, DuckDBConnection } from '@duckdb/node-api';
import { BadInputError, StoreError } from '../errors.ts';
import { commitFile, temporaryNameFor } from '../util/atomicFile.ts';
import { checkWritableParent, makeFolders } from './outputPath.ts';
import { duck, duckSideConnection, processAlive, scratchFolder, sqlIdent, sqlString } from '../util/duckdb.ts';
import {
  SCHEMA_VERSION,
  STORE_TABLES,
  StoreManifest,
  TABLES,
  type ColumnSpec,
  type TableName,
} from './schema.ts';

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
      /** The size of the text `sql` parses, when it reads text (bounds the store write's memory: see writeTables). */
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
async function appendedTable(conn: DuckDBConnection, table: TableName) {
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

export interface WriteStoreOptions {
  /** Replace an existing store at the path (the old one is removed only after the new one is in place). */
  replace?: boolean;
}

export async function writeStore(
  dir: string,
  manifest: StoreManifest,
  tables: Partial<Record<(typeof STORE_TABLES)[number], TableSource>>,
  options: WriteStoreOptions = {},
): Promise<void> {
  const checked = StoreManifest.parse(manifest);
  const existing = await pathKind(dir);
  if (existing === 'file') throw new StoreError(`${dir}: exists and is a file, not a store folder`);
  if (existing === 'dir' && !options.replace) {
    throw new StoreError(`${dir}: already exists and is not empty (nothing was changed; pass --replace to overwrite it)`);
  }
  await checkWritableParent(dir, 'the store');
  await makeFolders(dirname(dir), 'the store');
  await removeAbandonedStaging(dir);
  const staging = join(dirname(dir), `.${basename(dir)}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`);
  try {
    await mkdir(staging);
    await mkdir(join(staging, 'rescores'));
  } catch (error) {
    await rm(staging, { recursive: true, force: true });
    throw new BadInputError(`cannot create the store (${(error as Error).message})`, { file: dir });
  }
  try {
    const metadata = parquetMetadata(checked);
    await writeTables(staging, tables, metadata);
    await writeFile(join(staging, 'provenance.json'), `${JSON.stringify(checked, null, 2)}\n`);
    if (existing === 'dir') {
      const old = `${staging}.old`;
      await rename(dir, old);
      await rename(staging, dir);
      await rm(old, { recursive: true, force: true });
    } else {
      if (existing === 'dir-empty') await rm(dir, { recursive: true, force: true });
      await rename(staging, dir);
    }
  } catch (error) {
    await rm(staging, { recursive: true, force: true });
    throw error;
  }
}

/** A rescoring table on its way into a store: rows go into DuckDB as they come, so millions never sit in JS at once. */
export interface RescoreWriter {
  add(row: Record<string, unknown>): void;
  /** Writes `rescores/<id>.parquet` (staged, then renamed) with the rescoring's provenance; returns its path. */
  finish(provenanceJson: string): Promise<string>;
  abort(): Promise<void>;
}

export async function openRescoreWriter(storeDir: string, id: string): Promise<RescoreWriter> {
  const target = join(storeDir, 'rescores', `${id}.parquet`);
  if ((await pathKind(target)) !== 'missing') throw new StoreError(`${target}: already exists; rescores are never overwritten`);
  await mkdir(join(storeDir, 'rescores'), { recursive: true });
  // Its own connection (and so its own temporary table): rows arrive while the scoring query streams on the main one.
  const conn = await duckSideConnection();
  const filled = await appendedTable(conn, 'rescores');
  return {
    add: filled.add,
    async finish(provenanceJson) {
      const staging = temporaryNameFor(target);
      try {
        filled.close();
        // On the rescoring's own connection: a scoring query may still hold the main one.
        await withOneThread(() => copyStaged(Promise.resolve(conn), filled.name, staging, 'rescores', { lmaudit_schema_version: String(SCHEMA_VERSION), lmaudit_rescore: provenanceJson }), Promise.resolve(conn));
        await commitFile(staging, target);
      } catch (error) {
        await rm(staging, { force: true });
        throw error;
      } finally {
        await filled.drop();
      }
      return target;
    },
    abort: filled.drop,
  };
}

export function parquetMetadata(manifest: StoreManifest): Record<string, string> {
  return {
    lmaudit_schema_version: String(SCHEMA_VERSION),
    lmaudit_provenance: JSON.stringify(manifest.runs),
  };
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

/** Writes one table's Parquet file at `path` (the caller names a temporary path and commits it). */
export async function writeTable(
  path: string,
  table: TableName,
  source: TableSource,
  metadata: Record<string, string>,
): Promise<void> {
  const staging = (await stageTable(table, source)).name;
  try {
    await withOneThread(() => copyStaged(duck(), staging, path, table, metadata));
  } finally {
    await dropStaged(staging);
  }
}

/** Above this much text to parse, a store's tables are written one after another (see writeTables). */
const SIDE_BY_SIDE_TEXT = 1 << 30;

/**
 * The store's tables, staged first and then written, side by side when their source text is
 * small enough, each on a connection of its own (the staged views and tables are the database's,
 * not a connection's), on one DuckDB thread each for the memory bound (withOneThread): with two
 * cores four writes side by side take the time of the largest. DuckDB's memory for four writes
 * at once grows with their input (a 2.2 GiB samples import peaked at 1.38 GB side by side, at
 * 0.86 GB one after another), so a larger import writes them in turn.
 */
async function writeTables(folder: string, tables: Partial<Record<(typeof STORE_TABLES)[number], TableSource>>, metadata: Record<string, string>): Promise<void> {
  const staged: { table: (typeof STORE_TABLES)[number]; name: string }[] = [];
  try {
    for (const table of STORE_TABLES) staged.push({ table, name: (await stageTable(table, tables[table] ?? { rows: [] })).name });
    const text = STORE_TABLES.reduce((sum, t) => sum + (textBytesOf(tables[t]) ?? 0), 0);
    const write = ({ table, name }: (typeof staged)[number]) => copyStaged(duckSideConnection(), name, join(folder, `${table}.parquet`), table, metadata);
    await withOneThread(async () => {
      if (text < SIDE_BY_SIDE_TEXT) await Promise.all(staged.map(write));
      else for (const s of staged) await write(s);
    });
  } finally {
    for (const { name } of staged) await dropStaged(name);
  }
}

function textBytesOf(source: TableSource | undefined): number | undefined {
  return source !== undefined && 'sql' in source ? source.textBytes : undefined;
}

/**
 * Runs `write` with DuckDB on one thread. The Parquet writer holds a whole row group in memory,
 * outside DuckDB's memory limit: at the default 122,880 rows a group of lm-eval instances
 * (documents and prompts of a few KB each) took the import's peak past 1 GiB; and each of
 * DuckDB's writer threads holds row groups of its own (with two, a 2.2 GiB samples import
 * peaked at 1.03-1.13 GiB, with one at 0.89 GiB; the row groups come out the same).
 */
async function withOneThread<T>(write: () => Promise<T>, on: Promise<DuckDBConnection> = duck()): Promise<T> {
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

/**
 * Writes a staged table to a Parquet file (zstd at level 1, row groups of 16,384 rows) with
 * key-value metadata. Level 1 rather than zstd's default 3: on the 248 MiB samples benchmark
 * the files came out the same size (within 3%) for a quarter less of the write's time.
 */
async function copyStaged(connection: Promise<DuckDBConnection>, staging: string, path: string, table: TableName, metadata: Record<string, string>): Promise<void> {
  const kv = Object.entries(metadata)
    .map(([k, v]) => `${k}: ${sqlString(v)}`)
    .join(', ');
  const columns = TABLES[table].map((c) => sqlIdent(c.name)).join(', ');
  await (await connection).run(`COPY (SELECT ${columns} FROM ${staging}) TO ${sqlString(path)} (FORMAT parquet, COMPRESSION zstd, COMPRESSION_LEVEL 1, ROW_GROUP_SIZE 16384, KV_METADATA {${kv}})`);
}

/** Staging folders left by a killed writer (its process is gone) are removed before a new write. */
async function removeAbandonedStaging(dir: string): Promise<void> {
  const prefix = `.${basename(dir)}.tmp-`;
  for (const name of await readdir(dirname(dir))) {
    if (!name.startsWith(prefix)) continue;
    const pid = Number(name.slice(prefix.length).split('-')[0]);
    if (Number.isInteger(pid) && pid !== process.pid && !processAlive(pid)) {
      await rm(join(dirname(dir), name), { recursive: true, force: true });
    }
  }
}


async function dropStaged(name: string): Promise<void> {
  const conn = await duck();
  await conn.run(`DROP VIEW IF EXISTS ${name}`).catch(() => undefined);
  await conn.run(`DROP TABLE IF EXISTS ${name}`).catch(() => undefined);
}

export function appendRow(
  appender: DuckDBAppender,
  spec: readonly ColumnSpec[],
  row: Record<string, unknown>,
  table: string,
  index: number,
): void {
  for (const column of spec) {
    const value = row[column.name];
    if (value === null || value === undefined) {
      if (!column.nullable) throw new StoreError(`${table} row ${index}: column '${column.name}' must not be null`);
      appender.appendNull();
      continue;
    }
    switch (column.type) {
      case 'VARCHAR':
        if (typeof value !== 'string') throw typeError(table, index, column, value);
        appender.appendVarchar(value);
        break;
      case 'BIGINT':
        if (typeof value !== 'number' || !Number.isInteger(value)) throw typeError(table, index, column, value);
        appender.appendBigInt(BigInt(value));
        break;
      case 'DOUBLE':
        if (typeof value !== 'number') throw typeError(table, index, column, value);
        appender.appendDouble(value);
        break;
      case 'BOOLEAN':
        if (typeof value !== 'boolean') throw typeError(table, index, column, value);
        appender.appendBoolean(value);
        break;
    }
  }
  appender.endRow();
}

function typeError(table: string, index: number, column: ColumnSpec, value: unknown): StoreError {
  return new StoreError(
    `${table} row ${index}: column '${column.name}' expects ${column.type}, got ${typeof value} ${JSON.stringify(value)?.slice(0, 60)}`,
  );
}

async function pathKind(path: string): Promise<'missing' | 'file' | 'dir' | 'dir-empty'> {
  try {
    const s = await stat(path);
    if (!s.isDirectory()) return 'file';
    return (await readdir(path)).length === 0 ? 'dir-empty' : 'dir';
  } catch {
    return 'missing';
  }
}
