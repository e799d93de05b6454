/**
 * The main thread's handle on the inference worker (ortWorker.mjs): typed calls, one at a time,
 * each answered by id. A worker that dies fails every call in flight with its reason, and
 * `close` lets the process exit.
 */
import { Worker } from 'node:worker_threads';
import { join } from 'node:path';
import { packageRoot } from '../../util/packageRoot.ts';

export interface GraphInfo {
  inputs: string[];
  outputs: string[];
  kvCache: boolean;
  positionIds: boolean;
  layers: number;
  kvHeads: number | null;
  headDim: number | null;
  kvType: string | null;
  /** The logits' last dimension when the graph fixes it. */
  vocab: number | null;
}

export interface ScoreRow {
  ids: number[];
  /** Position whose logits predict targets[0]. */
  from: number;
  targets: number[];
}

export interface TokenScore {
  logprob: number;
  greedy: boolean;
  /** This row's share of the forward passes' time. */
  ms: number;
}

/** One row's per-position scores (ortWorker.mjs scoreTokens): top pairs are [id, logprob]. */
export interface RowTokenScores {
  logprobs: number[];
  top: Array<Array<[number, number]>>;
  ms: number;
}

export interface Sampling {
  doSample: boolean;
  temperature: number | null;
  topK: number | null;
  topP: number | null;
  seed: number | null;
  /** One seed per row (the request's own), so that a draw does not depend on the batch it rode in. */
  seeds?: number[];
}

interface Pending {
  resolve: (value: unknown) => void;
  reject: (error: Error) => void;
}

export class InferenceThread {
  private readonly worker: Worker;
  private readonly pending = new Map<number, Pending>();
  private nextId = 0;
  private dead: Error | null = null;

  constructor(threads: number) {
    this.worker = new Worker(join(packageRoot(), 'src/models/onnx/ortWorker.mjs'), { workerData: { threads } });
    this.worker.on('message', (m: { id: number; result?: unknown; error?: string }) => {
      const p = this.pending.get(m.id);
      if (p === undefined) return;
      this.pending.delete(m.id);
      if (m.error !== undefined) p.reject(new Error(m.error));
      else p.resolve(m.result);
    });
    const fail = (error: Error) => {
      this.dead = error;
      for (const p of this.pending.values()) p.reject(error);
      this.pending.clear();
    };
    this.worker.on('error', fail);
    this.worker.on('exit', (code) => fail(new Error(`the inference thread exited (code ${code})`)));
  }

  private call<T>(op: string, args: Record<string, unknown> = {}): Promise<T> {
    if (this.dead !== null) return Promise.reject(this.dead);
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
      this.worker.postMessage({ id, op, ...args });
    });
  }

  open(path: string, threads: number): Promise<GraphInfo> {
    return this.call('open', { path, threads });
  }

  score(rows: ScoreRow[], vocab: number): Promise<TokenScore[]> {
    return this.call('score', { rows, vocab });
  }

  scoreShared(context: number[], conts: number[][], vocab: number): Promise<TokenScore[]> {
    return this.call('scoreShared', { context, conts, vocab });
  }

  scoreTokens(rows: number[][], vocab: number, topK: number): Promise<RowTokenScores[]> {
    return this.call('scoreTokens', { rows, vocab, topK });
  }

  genStart(rows: number[][], padId: number, vocab: number, sampling: Sampling): Promise<{ next: number[]; ms: number }> {
    return this.call('genStart', { rows, padId, vocab, sampling });
  }

  genStep(feed: number[]): Promise<{ next: number[]; ms: number }> {
    return this.call('genStep', { feed });
  }

  /** cpuSinceOpenMs: the inference thread's CPU time since the model opened (null off Linux; ortSession.mjs). */
  stats(): Promise<{ forwardTokens: number; forwardPasses: number; generationSteps: number; generationStepCpuMs: number; cpuSinceOpenMs: number | null }> {
    return this.call('stats');
  }

  genEnd(): Promise<void> {
    return this.call('genEnd');
  }

  async close(): Promise<void> {
    if (this.dead === null) {
      try {
        await this.call('close');
      } catch {
        // Closing a session that failed to open: nothing to release.
      }
    }
    await this.worker.terminate();
  }
}
