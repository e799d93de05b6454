/**
 * One backend call at a time (the onnx worker keeps one generation's KV cache and one session),
 * with the requests that arrived meanwhile batched into the next call: all waiting scoring rows
 * together (up to `maxRows`), generation rows whose settings are equal together. Callers await
 * their own rows' results; a failed call fails the requests it carried and no other.
 */
import type { GenerateRequest, GenerateResult, LanguageModel } from '../models/lm.ts';
import type { PromptScores, TokenAccess, TokenGeneration, TokenGenerationSettings } from '../models/tokenAccess.ts';

type Job =
  | { kind: 'score'; rows: readonly number[][]; topK: number; done: Settle<PromptScores[]> }
  | { kind: 'generate'; key: string; rows: readonly number[][]; settings: TokenGenerationSettings; done: Settle<TokenGeneration[]> }
  | { kind: 'text'; key: string; requests: readonly GenerateRequest[]; done: Settle<GenerateResult[]> };

interface Settle<T> {
  resolve: (value: T) => void;
  reject: (error: Error) => void;
}

export interface QueueStats {
  /** Backend calls made, and the requests (jobs) and rows they carried. */
  calls: number;
  jobs: number;
  rows: number;
}

export class BackendQueue {
  private readonly waiting: Job[] = [];
  private running = false;
  readonly stats: QueueStats = { calls: 0, jobs: 0, rows: 0 };

  constructor(
    private readonly model: LanguageModel,
    private readonly maxRows: number,
  ) {}

  private get tokens(): TokenAccess {
    return this.model.tokenAccess!;
  }

  score(rows: readonly number[][], topK: number): Promise<PromptScores[]> {
    return new Promise((resolve, reject) => this.push({ kind: 'score', rows, topK, done: { resolve, reject } }));
  }

  generate(rows: readonly number[][], settings: TokenGenerationSettings): Promise<TokenGeneration[]> {
    return new Promise((resolve, reject) => this.push({ kind: 'generate', key: JSON.stringify(settings), rows, settings, done: { resolve, reject } }));
  }

  /** Generation from text contexts, for backends without token access (the dummy). */
  generateText(requests: readonly GenerateRequest[]): Promise<GenerateResult[]> {
    return new Promise((resolve, reject) => this.push({ kind: 'text', key: JSON.stringify(requests[0]?.settings ?? null), requests, done: { resolve, reject } }));
  }

  private push(job: Job): void {
    this.waiting.push(job);
    if (!this.running) void this.drain();
  }

  private async drain(): Promise<void> {
    this.running = true;
    try {
      while (this.waiting.length > 0) {
        const batch = this.takeBatch();
        this.stats.calls++;
        this.stats.jobs += batch.length;
        try {
          await this.runBatch(batch);
        } catch (error) {
          for (const job of batch) job.done.reject(error as Error);
        }
      }
    } finally {
      this.running = false;
    }
  }

  /** The first waiting job and every later one that can ride in the same backend call. */
  private takeBatch(): Job[] {
    const first = this.waiting[0]!;
    const size = (j: Job) => (j.kind === 'text' ? j.requests.length : j.rows.length);
    const batch: Job[] = [];
    let rows = 0;
    for (let i = 0; i < this.waiting.length; ) {
      const job = this.waiting[i]!;
      const fits = job.kind === first.kind && (job.kind === 'score' || (job as { key: string }).key === (first as { key: string }).key);
      if (fits && (batch.length === 0 || rows + size(job) <= this.maxRows)) {
        batch.push(job);
        rows += size(job);
        this.waiting.splice(i, 1);
      } else i++;
    }
    this.stats.rows += rows;
    return batch;
  }

  private async runBatch(batch: Job[]): Promise<void> {
    const first = batch[0]!;
    if (first.kind === 'score') {
      const jobs = batch as Extract<Job, { kind: 'score' }>[];
      const topK = Math.max(...jobs.map((j) => j.topK));
      const out = await this.tokens.scorePrompts(jobs.flatMap((j) => j.rows), topK);
      let at = 0;
      for (const job of jobs) {
        // Each position's list is best first, so a request asking fewer takes the head.
        job.done.resolve(out.slice(at, at + job.rows.length).map((s) => ({ logprobs: s.logprobs, top: s.top.map((t) => t.slice(0, Math.max(1, job.topK))) })));
        at += job.rows.length;
      }
    } else if (first.kind === 'generate') {
      const jobs = batch as Extract<Job, { kind: 'generate' }>[];
      const out = await this.tokens.generateTokens(jobs.flatMap((j) => j.rows), first.settings);
      let at = 0;
      for (const job of jobs) {
        job.done.resolve(out.slice(at, at + job.rows.length));
        at += job.rows.length;
      }
    } else {
      const jobs = batch as Extract<Job, { kind: 'text' }>[];
      const out = await this.model.generateUntil(jobs.flatMap((j) => j.requests));
      let at = 0;
      for (const job of jobs) {
        job.done.resolve(out.slice(at, at + job.requests.length));
        at += job.requests.length;
      }
    }
  }
}
