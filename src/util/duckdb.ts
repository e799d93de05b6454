/**
 * One in-process DuckDB per CLI invocation. Everything that reads or writes
 * Parquet, CSV or JSON at volume goes through here: the run store, and `data/` reading
 * datasets, which is why it is infrastructure in util/ and not part of the store.
 */
import type { DuckDBInstance, DuckDBConnection } from '@duckdb/node-api';
import { randomBytes } from 'node:crypto';
import { mkdirSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sqlIdent, sqlString } from './sqlText.ts';

export { sqlIdent, sqlString };

/**
 * Text comes back byte for byte. The client decodes every VARCHAR with one shared
 * `new TextDecoder()`, which drops a leading U+FEFF: an output "\ufeff8" stored whole came
 * back as "8" and rescored as correct where lm-eval (Python keeps the mark) scores it 0.
 * The decoder is the module's export, read at each call, so a BOM-keeping one replaces it.
 * `default` is the CommonJS module object itself, in Node's ESM loader and in the bundle.
 */
function keepByteOrderMarks(dataAccessors: unknown): void {
  type Accessors = { textDecoder: { decode(bytes: Uint8Array): string } };
  const module = (dataAccessors as { default?: Accessors }).default ?? (dataAccessors as Accessors);
  module.textDecoder = new TextDecoder('utf-8', { ignoreBOM: true });
}

let instance: Promise<DuckDBInstance> | undefined;
let connection: Promise<DuckDBConnection> | undefined;

/**
 * DuckDB is loaded when first asked for, not with the module: loading its native library took 45-60 ms of every
 * command's start, commands that never query included, and an import can load it while its reader threads start
 * (preloadDuck) rather than before.
 */
function duckInstance(): Promise<DuckDBInstance> {
  instance ??= (async () => {
    const api = await import('@duckdb/node-api');
    keepByteOrderMarks(await import('@duckdb/node-api/lib/vectors/dataAccessors.js'));
    return api.DuckDBInstance.create(':memory:');
  })();
  return instance;
}

/** Starts loading DuckDB and opening its connection now, for a caller that will need it and has a moment to spare. */
export function preloadDuck(): void {
  void duck().catch(() => undefined);
}

const SPILL_PREFIX = 'lmaudit-spill-';
let spill: string | undefined;

/**
 * DuckDB's spill folder: this process's own, in the system's temporary folder (DuckDB's
 * default is `.tmp` in the current directory, where a killed import left a gigabyte).
 * Removed at exit; one a killed process left behind is removed by the next run.
 */
function spillFolder(): string {
  if (spill !== undefined) return spill;
  const root = tmpdir();
  for (const name of safeReaddir(root)) {
    if (!name.startsWith(SPILL_PREFIX)) continue;
    const pid = Number(name.slice(SPILL_PREFIX.length).split('-')[0]);
    if (Number.isInteger(pid) && pid !== process.pid && !processAlive(pid)) rmSync(join(root, name), { recursive: true, force: true });
  }
  spill = join(root, `${SPILL_PREFIX}${process.pid}-${randomBytes(4).toString('hex')}`);
  const folder = spill;
  process.on('exit', () => rmSync(folder, { recursive: true, force: true }));
  return spill;
}

/**
 * A folder of this process's own inside its spill folder, for files DuckDB writes and
 * reads back within the run (a large import's Parquet parts): removed with it at exit.
 */
export function scratchFolder(name: string): string {
  const folder = join(spillFolder(), name);
  mkdirSync(folder, { recursive: true });
  return folder;
}

function safeReaddir(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

/** True when a process with this id runs (EPERM: it runs as another user). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Lowers DuckDB's memory limit for the rest of the process. `import` takes 512 MB: its peak
 * must stay under 1 GiB whatever the file's size (issue 15), and Node's heap holds the rest
 * (a 248 MiB samples file peaked at 1.18 GiB with 1 GB for DuckDB, 0.85 GiB with 400 MB).
 */
export async function limitDuckMemory(limit: string): Promise<void> {
  // Before DuckDB is loaded, the limit is the one its connection opens with (loading it here would put the load back
  // at the start of an import).
  if (connection === undefined) {
    openingLimit = limit;
    return;
  }
  await (await duck()).run(`SET memory_limit = ${sqlString(limit)}`);
}

/** The memory limit the connection opens with (limitDuckMemory before it is opened changes it). */
let openingLimit = '1GB';

export function duck(): Promise<DuckDBConnection> {
  connection ??= (async () => {
    const conn = await (await duckInstance()).connect();
    // Spill to a temporary folder instead of growing without bound (10M-record stores must stay under 2 GiB).
    await conn.run(`SET memory_limit = ${sqlString(openingLimit)}; SET preserve_insertion_order = true; SET temp_directory = ${sqlString(spillFolder())};`);
    return process.env.LMAUDIT_TIMING ? timed(conn) : conn;
  })();
  return connection;
}

/**
 * Another connection to the same database (its temporary tables included). An appender
 * that fills a table while a query streams on the main connection needs its own: on one
 * connection the two interleave and the appender's rows are lost.
 */
export async function duckSideConnection(): Promise<DuckDBConnection> {
  await duck();
  const conn = await (await duckInstance()).connect();
  return process.env.LMAUDIT_TIMING ? timed(conn) : conn;
}

/**
 * Starts opening DuckDB without waiting: the instance is created on a worker thread while
 * the caller goes on (reading and validating a store's manifest, say). A failure surfaces
 * at the first real use.
 */
export function warmDuck(): void {
  duck().catch(() => {});
}


/** Runs a query and returns its rows as plain JS objects (BIGINT as number where safe). */
export async function queryRows<T = Record<string, unknown>>(sql: string): Promise<T[]> {
  const conn = await duck();
  const reader = await conn.runAndReadAll(sql);
  return reader.getRowObjectsJS().map((row) => normalizeBigInts(row) as T);
}

/**
 * Runs a query and hands its rows to `each` chunk by chunk (BIGINT as number where safe):
 * for results too large to hold as one array of row objects.
 */
export async function forEachRow<T = Record<string, unknown>>(sql: string, each: (row: T) => void): Promise<void> {
  const result = await (await duck()).stream(sql);
  for await (const rows of result.yieldRowObjectJs()) {
    for (const row of rows) each(normalizeBigInts(row) as T);
  }
}

/**
 * A query's rows as an iterator that the caller pulls (BIGINT as number where safe), on `connection` or
 * the main one: two such streams on two connections can be merged row by row. A connection runs one
 * streamed query at a time.
 */
export async function* streamRows<T = Record<string, unknown>>(sql: string, connection?: DuckDBConnection): AsyncGenerator<T> {
  const result = await (connection ?? (await duck())).stream(sql);
  for await (const rows of result.yieldRowObjectJs()) {
    for (const row of rows) yield normalizeBigInts(row) as T;
  }
}

function normalizeBigInts(row: Record<string, unknown>): Record<string, unknown> {
  for (const key of Object.keys(row)) {
    const v = row[key];
    if (typeof v === 'bigint') row[key] = Number(v);
  }
  return row;
}

/**
 * LMAUDIT_TIMING=1: every statement's start and wall time on stderr (for finding slow queries),
 * its first 140 characters on one line; LMAUDIT_TIMING=2: the whole statement as run.
 */
function timed(conn: DuckDBConnection): DuckDBConnection {
  // runAndReadAll calls run: only the outermost call of a statement is reported.
  let depth = 0;
  for (const method of ['run', 'runAndReadAll', 'stream'] as const) {
    const original = conn[method].bind(conn) as (sql: string, ...rest: unknown[]) => Promise<unknown>;
    (conn as unknown as Record<string, unknown>)[method] = async (sql: string, ...rest: unknown[]) => {
      const started = performance.now();
      depth++;
      try {
        return await original(sql, ...rest);
      } finally {
        // Started at (ms since the process began) and took; a streamed query's time is to its first chunk.
        if (--depth === 0) process.stderr.write(`[duckdb @${started.toFixed(0)} ${(performance.now() - started).toFixed(0)} ms] ${Number(process.env.LMAUDIT_TIMING) > 1 ? sql : sql.replace(/\s+/g, ' ').slice(0, 140)}\n`);
      }
    };
  }
  return conn;
}
