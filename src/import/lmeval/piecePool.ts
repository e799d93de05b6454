/**
 * Worker threads that read the pieces of a large samples file (samplesWorker.ts), so that
 * an import uses every core: the pieces' reading is nearly all of an import's work, and
 * their results are joined in file order on this thread (samplesLedger.ts). A piece's bytes
 * are handed over, not copied; its result comes back as a few long strings and typed arrays.
 *
 * The worker runs the code this thread runs: the bundle's samplesWorker.cjs beside a bundled
 * CLI, else the TypeScript source through tsx (samplesWorkerFromSource.mjs).
 */
import { availableParallelism } from 'node:os';
import { setFlagsFromString } from 'node:v8';
import { Worker } from 'node:worker_threads';
import { fileURLToPath } from 'node:url';
import { BadInputError, type InputLocation } from '../../errors.ts';
import type { ChunkJob, ChunkResult } from './chunkResult.ts';
import type { PieceReader } from './samplesFile.ts';

/** A file smaller than this is read on this thread: starting workers costs more than they save. */
export const WORKER_MIN_BYTES = 16 << 20;

/**
 * A reader thread's young generation, in MB a semi-space. Nearly everything a piece allocates dies young (a
 * line's text, its parsed record), so V8 never grows the semi-spaces past their first megabytes and scavenges
 * every few: 107 scavenges a thread on the 248 MiB samples benchmark. Starting them at 32 MB (a young
 * generation of three semi-spaces) makes it 26, and the import 8% less CPU at no higher peak (4 runs of each,
 * alternated). V8 reads the minimum when an isolate is made, hence the flag, set before the threads start;
 * it changes no isolate that exists, this thread's included. Node warns that a flag set at run time may do
 * nothing: then the threads run as before, only slower (measured taking effect on Node 20 with --trace-gc).
 */
const READER_SEMI_SPACE_MB = 32;

interface Pending {
  resolve: (result: ChunkResult) => void;
  reject: (error: Error) => void;
}

type Reply = { id: number; result?: ChunkResult; error?: { message: string; stack?: string; bad?: { detail: string; where: InputLocation } } };

export class PiecePool implements PieceReader {
  private readonly workers: Worker[] = [];
  private readonly pending = new Map<number, Pending>();
  private nextId = 0;
  private next = 0;
  private failed: Error | null = null;
  private closed = false;
  readonly parallel: number;

  constructor(threads: number) {
    this.parallel = threads;
    const bundled = import.meta.url.endsWith('.cjs');
    // From source, a shim registers tsx on the worker's thread (a CLI run from source registers it on this thread only).
    const entry = fileURLToPath(new URL(bundled ? './samplesWorker.cjs' : './samplesWorkerFromSource.mjs', import.meta.url));
    setFlagsFromString(`--min-semi-space-size=${READER_SEMI_SPACE_MB}`);
    for (let i = 0; i < threads; i++) {
      const worker = new Worker(entry, { execArgv: [], resourceLimits: { maxYoungGenerationSizeMb: 3 * READER_SEMI_SPACE_MB } });
      worker.on('message', (reply: Reply) => this.settle(reply));
      worker.on('error', (error) => this.fail(error));
      worker.on('exit', (code) => {
        // Terminated threads exit with code 1.
        if (code !== 0 && !this.closed) this.fail(new Error(`a samples reader thread exited (code ${code})`));
      });
      this.workers.push(worker);
    }
  }

  /**
   * Threads for a file of `bytes`: 0 (read on this thread) below WORKER_MIN_BYTES or on one core,
   * else one a core (at most four). LMAUDIT_SAMPLES_THREADS sets the count whatever the size.
   */
  static threadsFor(bytes: number): number {
    const set = process.env.LMAUDIT_SAMPLES_THREADS;
    if (set !== undefined && set !== '') {
      const n = Number(set);
      if (!Number.isInteger(n) || n < 0 || n > 64) throw new BadInputError(`LMAUDIT_SAMPLES_THREADS must be a whole number from 0 to 64, got '${set}'`);
      return n;
    }
    const cores = availableParallelism();
    return bytes < WORKER_MIN_BYTES || cores < 2 ? 0 : Math.min(cores, 4);
  }

  read(job: ChunkJob): Promise<ChunkResult> {
    if (this.failed !== null) return Promise.reject(this.failed);
    const id = this.nextId++;
    const worker = this.workers[this.next++ % this.workers.length]!;
    // The piece's own memory is handed over; a piece that shares its memory (a small one, from Node's pool) is copied.
    const bytes = job.bytes.byteOffset === 0 && job.bytes.byteLength >= 65536 ? job.bytes : new Uint8Array(job.bytes);
    return new Promise<ChunkResult>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      worker.postMessage({ id, job: { ...job, bytes } }, [bytes.buffer as ArrayBuffer, ...(job.spare ?? [])]);
    });
  }

  /**
   * Stops the threads without waiting for them to be gone: a thread's teardown (its heap freed) took
   * 50-60 ms of the 248 MiB benchmark, which this thread spends on the provenance instead. Nothing is
   * asked of a pool after it is closed.
   */
  close(): void {
    this.closed = true;
    for (const worker of this.workers) void worker.terminate();
  }

  private settle(reply: Reply): void {
    const p = this.pending.get(reply.id);
    if (p === undefined) return;
    this.pending.delete(reply.id);
    if (reply.result !== undefined) return p.resolve(reply.result);
    const e = reply.error!;
    if (e.bad !== undefined) return p.reject(new BadInputError(e.bad.detail, e.bad.where));
    const error = new Error(`a samples reader thread failed: ${e.message}`);
    if (e.stack !== undefined) error.stack = e.stack;
    p.reject(error);
  }

  private fail(error: Error): void {
    this.failed ??= error;
    for (const p of this.pending.values()) p.reject(error);
    this.pending.clear();
  }
}
