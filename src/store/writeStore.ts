/**
 * Writing a run store. Every table goes through its column spec; every file is
 * written under a temporary name and renamed into place, and a whole new store is
 * built in a sibling temporary folder and renamed in last, so a crash or kill never
 * leaves a half-written store and never touches one that exists.
 */
import { mkdir, rename, rm, stat, writeFile, readdir } from 'node:fs/promises';
import { dirname, join, basename } from 'node:path';
import { randomBytes } from 'node:crypto';
import type { DuckDBConnection } from '@duckdb/node-api';
import { BadInputError, StoreError } from '../errors.ts';
import { commitFile, temporaryNameFor } from '../util/atomicFile.ts';
import { checkWritableParent, makeFolders } from './outputPath.ts';
import { isStoreFolder } from './readStore.ts';
import { duck, duckSideConnection, processAlive, sqlIdent, sqlString } from '../util/duckdb.ts';
import { SCHEMA_VERSION, STORE_TABLES, StoreManifest, TABLES, type TableName } from './schema.ts';
import { dropStaged, openTableStager, stageTable, withOneThread, type TableSource } from './tableStaging.ts';

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
  // --replace removes the old folder whole: only one that is a store, or `--out ~ --replace` would remove a home folder.
  if (existing === 'dir' && !(await isStoreFolder(dir))) {
    throw new StoreError(`${dir}: exists and is not an lmaudit store (no provenance.json beside its tables); --replace replaces only a store, and nothing was changed`);
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
    await writeTables(staging, tables, metadata, () => writeFile(join(staging, 'provenance.json'), `${JSON.stringify(checked, null, 2)}\n`));
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
  return openRescoreWriterAt(join(storeDir, 'rescores', `${id}.parquet`));
}

/** The same rows and metadata into a Parquet file of the caller's choosing (`rescore --out x.parquet`); an existing file is not overwritten. */
export async function openRescoreWriterAt(target: string): Promise<RescoreWriter> {
  if ((await pathKind(target)) !== 'missing') throw new StoreError(`${target}: already exists; rescores are never overwritten (name a new file)`);
  // Made a level at a time: Node's mkdir({ recursive: true }) never returns under /proc (outputPath.ts).
  await checkWritableParent(target, 'the per-item results');
  await makeFolders(dirname(target), 'the folder of the per-item results');
  // Rows go to a scratch file as lines of text, each checked as it comes (tableStaging.ts openTableStager); DuckDB
  // reads them once, at the end (a scoring query may hold the main connection while they come).
  const rows = openTableStager('rescores');
  return {
    add: rows.add,
    async finish(provenanceJson) {
      const staging = temporaryNameFor(target);
      try {
        await writeTable(staging, 'rescores', rows.finish(), { lmaudit_schema_version: String(SCHEMA_VERSION), lmaudit_rescore: provenanceJson });
        await commitFile(staging, target);
      } catch (error) {
        await rm(staging, { force: true });
        throw error;
      } finally {
        rows.abort();
      }
      return target;
    },
    async abort() {
      rows.abort();
    },
  };
}

export function parquetMetadata(manifest: StoreManifest): Record<string, string> {
  return {
    lmaudit_schema_version: String(SCHEMA_VERSION),
    lmaudit_provenance: JSON.stringify(manifest.runs),
  };
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
 *
 * `alongside` is this thread's own part of the store (its provenance.json), done once every
 * table's write is under way on DuckDB's threads: the last write runs alone at the end, and a
 * core would otherwise wait. Every write is waited for, failed or not, before this returns.
 */
async function writeTables(
  folder: string,
  tables: Partial<Record<(typeof STORE_TABLES)[number], TableSource>>,
  metadata: Record<string, string>,
  alongside: () => Promise<void>,
): Promise<void> {
  const staged: { table: (typeof STORE_TABLES)[number]; name: string }[] = [];
  try {
    for (const table of STORE_TABLES) staged.push({ table, name: (await stageTable(table, tables[table] ?? { rows: [] })).name });
    const text = STORE_TABLES.reduce((sum, t) => sum + (textBytesOf(tables[t]) ?? 0), 0);
    const write = ({ table, name }: (typeof staged)[number], issued?: () => void) =>
      copyStaged(duckSideConnection(), name, join(folder, `${table}.parquet`), table, metadata, issued);
    await withOneThread(async () => {
      if (text >= SIDE_BY_SIDE_TEXT) {
        for (const s of staged) await write(s);
        await alongside();
        return;
      }
      let waiting = staged.length;
      let own: Promise<PromiseSettledResult<void>[]> = Promise.resolve([]);
      const issued = () => {
        if (--waiting === 0) own = Promise.allSettled([alongside()]);
      };
      const writes = await Promise.allSettled(staged.map((s) => write(s, issued)));
      const failed = [...writes, ...(await own)].find((w) => w.status === 'rejected');
      if (failed !== undefined) throw failed.reason;
    });
  } finally {
    for (const { name } of staged) await dropStaged(name);
  }
}

function textBytesOf(source: TableSource | undefined): number | undefined {
  return source !== undefined && 'sql' in source ? source.textBytes : undefined;
}


/**
 * Writes a staged table to a Parquet file (zstd at level 1, row groups of 16,384 rows) with
 * key-value metadata. Level 1 rather than zstd's default 3: on the 248 MiB samples benchmark
 * the files came out the same size (within 3%) for a quarter less of the write's time. The
 * scores table is written without dictionaries (DICTIONARY_SIZE_LIMIT 1): DuckDB builds one for
 * each text column and gives it up on the ids and value texts; without them the scores of 120,000
 * records (1.56 million rows) took 0.37 s instead of 0.41 s and the file half the size (5 alternated
 * writes). The other tables keep theirs: rescoring reads the golds' dictionary (scopeItems.ts
 * scopeGoldsDictionaryEncoded) to normalise each distinct gold once.
 * The metadata's values are bound to session variables rather than spelt as SQL literals: the
 * provenance lists every document id (1.6 MB for 100,000 documents, 15 MB for 900,000), and
 * DuckDB's parser would scan a literal of it once a table (0.1 CPU s a store of the first).
 */
async function copyStaged(
  connection: Promise<DuckDBConnection>,
  staging: string,
  path: string,
  table: TableName,
  metadata: Record<string, string>,
  /** Called once the COPY is handed to DuckDB. */
  issued?: () => void,
): Promise<void> {
  const conn = await connection;
  const entries = Object.entries(metadata);
  const variable = (i: number) => `lmaudit_kv_${i}`;
  try {
    for (const [i, [, value]] of entries.entries()) await conn.run(`SET VARIABLE ${variable(i)} = $1`, [value]);
    const kv = entries.map(([key], i) => `${key}: getvariable('${variable(i)}')`).join(', ');
    const columns = TABLES[table].map((c) => sqlIdent(c.name)).join(', ');
    const copy = conn.run(`COPY (SELECT ${columns} FROM ${staging}) TO ${sqlString(path)} (FORMAT parquet, COMPRESSION zstd, COMPRESSION_LEVEL 1, ROW_GROUP_SIZE 16384${table === 'scores' ? ', DICTIONARY_SIZE_LIMIT 1' : ''}, KV_METADATA {${kv}})`);
    issued?.();
    await copy;
  } finally {
    for (const i of entries.keys()) await conn.run(`RESET VARIABLE ${variable(i)}`).catch(() => undefined);
  }
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

async function pathKind(path: string): Promise<'missing' | 'file' | 'dir' | 'dir-empty'> {
  try {
    const s = await stat(path);
    if (!s.isDirectory()) return 'file';
    return (await readdir(path)).length === 0 ? 'dir-empty' : 'dir';
  } catch {
    return 'missing';
  }
}
