/**
 * The run recorder (Inspect's recorder lifecycle): `start` writes the store with the
 * provenance as configured and every instance; `append` adds responses in durable
 * parts (each part a small JSONL file written under a temporary name, synced and
 * renamed, so it is in the store whole or not at all); `finish` consolidates the parts
 * into responses.parquet, writes the scores and the provenance as used, and marks the
 * store finished with one atomic write of provenance.json. Until that write the parts
 * are the store's responses; after it, responses.parquet is. A kill at any moment
 * leaves a store that opens and holds each response it holds exactly once.
 */
import { mkdir, open, readdir, readFile, rm, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { StoreError } from '../errors.ts';
import { commitFile, syncPath, temporaryNameFor, writeFileAtomic } from '../util/atomicFile.ts';
import { listParts, responsePartsRelation, PARTS_FOLDER, partFileName, partNumber } from './responseParts.ts';
import type { TableSource } from './tableStaging.ts';
import { parquetMetadata, writeStore, writeTable } from './writeStore.ts';
import { EXCHANGES_FOLDER, ExchangeRecord, StoreManifest, type InstanceRow, type ResponseRow, type Recording } from './schema.ts';
import { queryRows } from '../util/duckdb.ts';

/** The identity of one response: a request (task, document, request index) and its repeat. */
export function responseKey(r: { task: string; doc_id: string; request_idx: number; repeat: number }): string {
  return `${r.task}\u0000${r.doc_id}\u0000${r.request_idx}\u0000${r.repeat}`;
}

export interface StartOptions {
  manifest: StoreManifest;
  instances: readonly InstanceRow[];
  expectedResponses: number;
  config: Record<string, unknown>;
}

export interface FinishOptions {
  /** The provenance as used (the recording block is set here). */
  manifest: StoreManifest;
  /** Instances with `response_text` filled from the responses. */
  instances: readonly InstanceRow[];
  scores: TableSource;
  filtered: TableSource;
}

export class RunRecorder {
  private nextPart: number;
  private nextExchangePart: number | null = null;
  private closed = false;

  private constructor(
    readonly dir: string,
    private manifest: StoreManifest,
    /** Keys of every response held (from the parts read at open, plus those appended since). */
    readonly held: Set<string>,
    nextPart: number,
  ) {
    this.nextPart = nextPart;
  }

  get runId(): string {
    return this.manifest.runs[0]!.run_id;
  }

  get recording(): Recording {
    return this.manifest.recording!;
  }

  /** Creates the store (all or nothing: writeStore stages it and renames it into place). */
  static async start(dir: string, options: StartOptions): Promise<RunRecorder> {
    const manifest: StoreManifest = {
      ...options.manifest,
      recording: { status: 'unfinished', expected_responses: options.expectedResponses, parts: PARTS_FOLDER, config: options.config },
    };
    await writeStore(dir, manifest, { instances: { rows: options.instances } });
    await mkdir(join(dir, PARTS_FOLDER), { recursive: true });
    const recorder = new RunRecorder(dir, StoreManifest.parse(manifest), new Set(), 1);
    await recorder.lock();
    return recorder;
  }

  /** Opens an unfinished store to continue it: the responses it holds are in `held`. */
  static async resume(dir: string): Promise<RunRecorder> {
    const manifestPath = join(dir, 'provenance.json');
    let manifest: StoreManifest;
    try {
      manifest = StoreManifest.parse(JSON.parse(await readFile(manifestPath, 'utf8')));
    } catch (error) {
      throw new StoreError(`${manifestPath}: not a store this lmaudit can resume (${(error as Error).message.split('\n')[0]})`, { cause: error });
    }
    if (manifest.recording === undefined) throw new StoreError(`${dir}: not a store \`lmaudit run\` wrote (imported stores cannot be resumed)`);
    if (manifest.recording.status === 'finished') throw new StoreError(`${dir}: the run already finished; nothing to resume: give a new --out to run again, or look at it with \`lmaudit rescore ${dir}\` or \`lmaudit report ${dir}\``);
    // The lock first: the temporary files removed below are a killed writer's only once no live one holds the store.
    const recorder = new RunRecorder(dir, manifest, new Set(), 1);
    await recorder.lock();
    try {
      const parts = join(dir, manifest.recording.parts);
      await removeAbandonedTables(dir);
      await removeTemporaryParts(parts);
      const numbers = (await listParts(parts)).map(partNumber);
      if (numbers.length > 0) {
        const rows = await queryRows<{ task: string; doc_id: string; request_idx: number; repeat: number }>(
          `SELECT task, doc_id, request_idx, "repeat" FROM ${responsePartsRelation(dir, await listParts(parts))}`,
        );
        for (const row of rows) {
          const key = responseKey(row);
          if (recorder.held.has(key)) throw new StoreError(`${parts}: response ${key.replaceAll('\u0000', '/')} is held twice; the store is damaged`);
          recorder.held.add(key);
        }
      }
      recorder.nextPart = Math.max(0, ...numbers) + 1;
    } catch (error) {
      await recorder.close();
      throw error;
    }
    return recorder;
  }

  /**
   * Appends responses as one durable part; returns once the part is on disk under its final
   * name. A row may carry fields beyond the table's columns (the runner keeps the stop
   * sequences applied there); the parts keep them, readers of the table do not see them.
   */
  async append(rows: readonly ResponseRow[]): Promise<void> {
    if (this.closed) throw new Error('recorder: append after finish');
    if (rows.length === 0) return;
    for (const row of rows) {
      const key = responseKey(row);
      if (this.held.has(key)) throw new StoreError(`${this.dir}: response ${key.replaceAll('\u0000', '/')} is already recorded`);
    }
    const folder = join(this.dir, this.recording.parts);
    const path = join(folder, partFileName(this.nextPart));
    // Numbers as text: JSON has no NaN or ±Infinity, and the reader casts the text back exactly.
    const text = rows.map((r) => JSON.stringify({ ...r, logprob: r.logprob === null ? null : String(r.logprob), latency_ms: r.latency_ms === null ? null : String(r.latency_ms) })).join('\n');
    await writeFileAtomic(path, `${text}\n`);
    this.nextPart++;
    for (const row of rows) this.held.add(responseKey(row));
  }

  /**
   * Keeps an API backend's HTTP exchanges as one durable part of EXCHANGES_FOLDER (validated
   * against the schema first). Unlike the response parts these stay after `finish`.
   */
  async appendExchanges(records: readonly ExchangeRecord[]): Promise<void> {
    if (this.closed) throw new Error('recorder: append after finish');
    if (records.length === 0) return;
    const folder = join(this.dir, EXCHANGES_FOLDER);
    if (this.nextExchangePart === null) {
      await mkdir(folder, { recursive: true });
      await removeTemporaryParts(folder);
      this.nextExchangePart = Math.max(0, ...(await listParts(folder)).map(partNumber)) + 1;
    }
    const text = records.map((r) => JSON.stringify(ExchangeRecord.parse(r))).join('\n');
    await writeFileAtomic(join(folder, partFileName(this.nextExchangePart)), `${text}\n`);
    this.nextExchangePart++;
  }

  /**
   * Consolidates and finishes. Every file is replaced atomically while the store still says
   * unfinished (readers then ignore them); the manifest's atomic rewrite is the commit.
   */
  async finish(options: FinishOptions): Promise<void> {
    const folder = join(this.dir, this.recording.parts);
    const parts = await listParts(folder);
    const manifest: StoreManifest = StoreManifest.parse({ ...options.manifest, recording: { ...this.recording, status: 'finished' } });
    const metadata = parquetMetadata(manifest);
    const responses: TableSource =
      parts.length === 0
        ? { rows: [] }
        : { sql: `SELECT * FROM ${responsePartsRelation(this.dir, parts)} ORDER BY task, TRY_CAST(doc_id AS BIGINT), doc_id, request_idx, "repeat"` };
    const tables: [string, Parameters<typeof writeTable>[1], TableSource][] = [
      ['responses', 'responses', responses],
      ['instances', 'instances', { rows: options.instances }],
      ['scores', 'scores', options.scores],
      ['filtered', 'filtered', options.filtered],
    ];
    for (const [file, table, source] of tables) {
      const path = join(this.dir, `${file}.parquet`);
      const temporary = temporaryNameFor(path);
      try {
        await writeTable(temporary, table, source, metadata);
        await commitFile(temporary, path);
      } catch (error) {
        await rm(temporary, { force: true });
        throw error;
      }
    }
    await writeFileAtomic(join(this.dir, 'provenance.json'), `${JSON.stringify(manifest, null, 2)}\n`);
    this.manifest = manifest;
    this.closed = true;
    await rm(folder, { recursive: true, force: true });
  }

  /** Releases the store for another process (the lock file goes; the store stays as it is). */
  async close(): Promise<void> {
    LOCKED_HERE.delete(this.dir);
    await unlink(join(this.dir, LOCK_FILE)).catch(() => undefined);
  }

  /** One writer at a time: a second `run --resume` on a store being written would duplicate responses. */
  private async lock(): Promise<void> {
    const path = join(this.dir, LOCK_FILE);
    for (let attempt = 0; attempt < 2; attempt++) {
      try {
        const handle = await open(path, 'wx');
        await handle.writeFile(String(process.pid));
        await handle.close();
        LOCKED_HERE.add(this.dir);
        return;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
        const pid = Number((await readFile(path, 'utf8').catch(() => '')).trim());
        const holder = pid === process.pid ? LOCKED_HERE.has(this.dir) : Number.isInteger(pid) && pid > 0 && processAlive(pid);
        if (holder) {
          throw new StoreError(`${this.dir}: process ${pid} is writing this store; wait for it or stop it first`);
        }
        await unlink(path).catch(() => undefined);
      }
    }
    throw new StoreError(`${this.dir}: cannot take the store's lock (${LOCK_FILE})`);
  }
}

const LOCK_FILE = '.recording.lock';
/** Stores this process holds (a lock file with our own pid may also be a stale one from a reused pid). */
const LOCKED_HERE = new Set<string>();

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Tables a writer killed while finishing left under their temporary names (`.instances.parquet.tmp-<pid>-<hex>`,
 * util/atomicFile.ts): never in the store, and its process is gone. Left, they stayed in the finished store.
 */
async function removeAbandonedTables(dir: string): Promise<void> {
  for (const name of await readdir(dir)) {
    const pid = /^\..+\.tmp-(\d+)-[0-9a-f]+$/.exec(name)?.[1];
    if (pid !== undefined && Number(pid) !== process.pid && !processAlive(Number(pid))) await rm(join(dir, name), { force: true });
  }
}

/** Parts a killed writer left half-written (under their temporary names); they were never in the store. */
async function removeTemporaryParts(folder: string): Promise<void> {
  await mkdir(folder, { recursive: true });
  for (const name of await readdir(folder)) if (name.startsWith('.')) await rm(join(folder, name), { force: true });
  await syncPath(folder);
}
