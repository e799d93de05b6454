/**
 * `--model replay --model_args store=<dir>`: a backend that answers from the responses an
 * earlier `lmaudit run` stored (finished or not), keyed by a hash of the exact request —
 * its type, context and continuation (or rolling text), and for generation every setting
 * sent, the seed included (a sampled request's seed is the run's seed plus its repeat, so
 * each draw has its own key). Nothing is computed: re-scoring a task under other filters or
 * metrics, or joining shards (`lmaudit merge`), costs no model call.
 *
 * A request the stores do not answer is not guessed: the runner asks `missing()` before
 * anything is stored (src/run/replayed.ts), and a call that still reaches an unanswered
 * request throws.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { BadInputError, StoreError } from '../errors.ts';
import { openStore } from '../store/readStore.ts';
import { queryRows } from '../util/duckdb.ts';
import type { RunProvenance, StoreManifest } from '../store/schema.ts';
import { sha256Hex } from '../util/hash.ts';
import type {
  BackendFactory,
  GenerateRequest,
  GenerateResult,
  GenerationSettings,
  LanguageModel,
  LoglikelihoodRequest,
  LoglikelihoodResult,
  ModelArgs,
  ModelDescription,
  RollingRequest,
  RollingResult,
} from './lm.ts';
import { repeatSeed } from './lm.ts';

export type ReplayRequest =
  | { requestType: 'loglikelihood'; request: LoglikelihoodRequest }
  | { requestType: 'loglikelihood_rolling'; request: RollingRequest }
  | { requestType: 'generate_until'; request: GenerateRequest };

interface StoredAnswer {
  text: string | null;
  logprob: number | null;
  isGreedy: boolean | null;
  finishReason: string | null;
  tokensIn: number;
  tokensOut: number;
  stopUsed: string[] | null;
}

/** One store read: where its responses are and their digest, which the replayed run's provenance names. */
export interface ReplayedStore {
  path: string;
  /** sha256 of responses.parquet, or of an unfinished store's response parts in part order. */
  responsesSha256: string;
  finished: boolean;
  runs: RunProvenance[];
  /** Answers indexed from it (responses without an error). */
  answers: number;
}

/** What a replayed run records about where its answers came from. */
export interface ReplaySource {
  stores: ReplayedStore[];
  /** The model that produced the answers, as the first store's first run recorded it. */
  model: { backend: string; args: Record<string, unknown> };
  /** Keys recorded with two or more different answers: the first in store order is given. */
  conflicts: number;
  /** The requests among `requests` that no store answers (same order). */
  missing(requests: readonly ReplayRequest[]): number[];
  /** Requests answered so far. */
  readonly answered: number;
}

const SOURCES = new WeakMap<LanguageModel, ReplaySource>();
const REPLAYED = new WeakSet<object>();

/** The replay source behind `lm`, when it is a replay backend. */
export function replaySource(lm: LanguageModel): ReplaySource | undefined {
  return SOURCES.get(lm);
}

/** Whether a result came from a store (recorded as from_cache, like a grid's shared answers). */
export function isReplayedAnswer(result: object): boolean {
  return REPLAYED.has(result);
}

/** Python-typed values (PyFloat, bigint) as plain JSON, as the provenance block writes them. */
const plain = (v: unknown): unknown =>
  v === undefined ? null : JSON.parse(JSON.stringify(v, (_k, x) => (x !== null && typeof x === 'object' && 'value' in x && Object.keys(x).length === 1 ? x.value : typeof x === 'bigint' ? String(x) : x)));

const sortedObject = (o: Record<string, unknown>): Record<string, unknown> => Object.fromEntries(Object.keys(o).sort().map((k) => [k, o[k]]));

/** Keys of lm-eval's normalised kwargs that GenerationSettings has fields for; the rest are its `extra`. */
const SETTING_KEYS = new Set(['until', 'do_sample', 'temperature', 'top_p', 'top_k', 'seed', 'max_gen_toks']);

/**
 * Generation settings in one canonical form, from either side: a live request's settings, or the
 * kwargs a run's provenance recorded as sent (lm-eval's spelling, where an unset temperature
 * was written as 0 — so it is 0 here too).
 */
function canonicalSettings(s: { until: unknown; maxGenToks: unknown; doSample: boolean; temperature: unknown; topP: unknown; topK: unknown; seed: unknown; extra: Record<string, unknown> }): unknown {
  return {
    until: plain(s.until),
    max_gen_toks: plain(s.maxGenToks),
    do_sample: s.doSample,
    temperature: s.doSample ? (plain(s.temperature) ?? 0) : 0,
    top_p: plain(s.topP),
    top_k: plain(s.topK),
    seed: plain(s.seed),
    extra: sortedObject(plain(s.extra) as Record<string, unknown>),
  };
}

function liveSettings(g: GenerationSettings): unknown {
  return canonicalSettings({ until: g.until, maxGenToks: g.maxGenToks, doSample: g.doSample, temperature: g.temperature, topP: g.topP, topK: g.topK, seed: g.seed, extra: g.extra });
}

/** The kwargs a run recorded as sent for a task, for one repeat (a sampled repeat's seed: lm.ts repeatSeed). */
function recordedSettings(kwargs: Record<string, unknown>, repeat: number): unknown {
  const doSample = kwargs.do_sample === true;
  const seed = doSample ? repeatSeed(Number(kwargs.seed ?? 0), repeat) : (kwargs.seed ?? null);
  const extra = Object.fromEntries(Object.entries(kwargs).filter(([k]) => !SETTING_KEYS.has(k)));
  return canonicalSettings({ until: kwargs.until ?? [], maxGenToks: kwargs.max_gen_toks, doSample, temperature: kwargs.temperature ?? null, topP: kwargs.top_p ?? null, topK: kwargs.top_k ?? null, seed, extra });
}

/** The hash a request is answered by. */
export function requestKey(q: ReplayRequest): string {
  if (q.requestType === 'loglikelihood') return sha256Hex(JSON.stringify([q.requestType, q.request.context, q.request.continuation]));
  if (q.requestType === 'loglikelihood_rolling') return sha256Hex(JSON.stringify([q.requestType, q.request.text]));
  return sha256Hex(JSON.stringify([q.requestType, q.request.context, liveSettings(q.request.settings)]));
}

function storedKey(type: string, context: string | null, continuation: string | null, kwargs: Record<string, unknown> | null, repeat: number): string | null {
  if (type === 'loglikelihood' && context !== null && continuation !== null) return sha256Hex(JSON.stringify([type, context, continuation]));
  if (type === 'loglikelihood_rolling' && continuation !== null) return sha256Hex(JSON.stringify([type, continuation]));
  if (type === 'generate_until' && context !== null && kwargs !== null) return sha256Hex(JSON.stringify([type, context, recordedSettings(kwargs, repeat)]));
  return null;
}

const factValue = (s: { used: { status: string; value?: unknown } } | undefined): unknown => (s?.used.status === 'recorded' || s?.used.status === 'inferred' ? s.used.value : null);

/** The recorded description of the model behind a run (what `describe()` gave when it ran). */
function recordedDescription(run: RunProvenance): ModelDescription {
  const device = (factValue(run.model.device) ?? {}) as Record<string, unknown>;
  const runtime = { ...((factValue(run.harness.runtime) ?? {}) as Record<string, string>) };
  delete runtime.node;
  // The model's own chat template, when a task rendered with it.
  const ownTemplate = Object.values(run.tasks)
    .map((t) => t.chat_template.text?.used)
    .find((f) => f?.status === 'recorded' && typeof f.value === 'string' && (f.from ?? '').startsWith('chat template from model'));
  return {
    backend: String(factValue(run.model.backend)),
    modelId: String(factValue(run.model.model_id)),
    dtype: (factValue(run.model.dtype) as string | null) ?? null,
    files: (device.files_sha256 as Record<string, string> | undefined) ?? {},
    chatTemplate: ownTemplate?.status === 'recorded' ? (ownTemplate.value as string) : null,
    addsBos: device.adds_bos === true,
    eosToken: (device.eos_token as string | null | undefined) ?? null,
    runtime,
    ...(typeof device.server === 'string' ? { servedBy: device.server } : {}),
  };
}

async function responsesDigest(dir: string, manifest: StoreManifest): Promise<string> {
  const recording = manifest.recording;
  if (recording === undefined || recording.status === 'finished') return sha256Hex(await readFile(join(dir, 'responses.parquet')));
  const folder = join(dir, recording.parts);
  const names = (await readdir(folder).catch(() => [] as string[])).filter((n) => !n.startsWith('.')).sort();
  const chunks = await Promise.all(names.map((n) => readFile(join(folder, n))));
  return sha256Hex(Buffer.concat(chunks));
}

interface Row {
  run_id: string;
  task: string;
  request_type: string;
  arg_context: string | null;
  arg_continuation: string | null;
  repeat: number;
  text: string | null;
  logprob: number | null;
  is_greedy: boolean | null;
  finish_reason: string | null;
  tokens_in: number | null;
  tokens_out: number | null;
}

/** Reads every answer the stores hold into one index (the first store, run and row in store order wins a key). */
export async function loadReplay(paths: readonly string[]): Promise<{ index: Map<string, StoredAnswer>; stores: ReplayedStore[]; conflicts: number }> {
  if (paths.length === 0) throw new BadInputError('--model replay needs --model_args store=<dir> (a store `lmaudit run` wrote)');
  const index = new Map<string, StoredAnswer>();
  const conflicted = new Set<string>();
  const stores: ReplayedStore[] = [];
  for (const path of paths) {
    const store = await openStore(path);
    const foreign = store.manifest.runs.find((r) => r.source_kind !== 'lmaudit');
    if (foreign !== undefined) throw new BadInputError(`--model replay: ${path} holds run ${foreign.run_id}, imported from ${foreign.source_format}; replay answers from stores \`lmaudit run\` wrote (their requests and generation settings are recorded exactly)`, { file: path });
    const byRun = new Map(store.manifest.runs.map((r) => [r.run_id, r]));
    const rows = await queryRows<Row>(`
      SELECT i.run_id, i.task, i.request_type, i.arg_context, i.arg_continuation, r."repeat", r.text, r.logprob, r.is_greedy, r.finish_reason, r.tokens_in, r.tokens_out
      FROM ${store.table('instances')} i JOIN ${store.table('responses')} r USING (run_id, task, doc_id, request_idx)
      WHERE r.error IS NULL
      ORDER BY i.run_id, i.task, TRY_CAST(i.doc_id AS BIGINT), i.doc_id, i.request_idx, r."repeat"`);
    let answers = 0;
    for (const row of rows) {
      const run = byRun.get(row.run_id)!;
      const taskBlock = run.tasks[row.task];
      const kwargs = row.request_type === 'generate_until' ? (factValue(taskBlock?.generation.settings) as Record<string, unknown> | null) : null;
      const key = storedKey(row.request_type, row.arg_context, row.arg_continuation, kwargs, row.repeat);
      if (key === null) continue;
      if (row.request_type !== 'generate_until' && row.logprob === null) continue;
      if (row.request_type === 'generate_until' && row.text === null) continue;
      const stops = factValue(taskBlock?.generation.stop_sequences);
      const answer: StoredAnswer = {
        text: row.text,
        logprob: row.logprob,
        isGreedy: row.is_greedy,
        finishReason: row.finish_reason,
        tokensIn: row.tokens_in ?? 0,
        tokensOut: row.tokens_out ?? 0,
        // One stop list for the task: the one the backend applied; several: not known per request.
        stopUsed: Array.isArray(stops) && stops.every((s) => typeof s === 'string') ? (stops as string[]) : null,
      };
      answers++;
      const held = index.get(key);
      if (held === undefined) index.set(key, answer);
      else if (held.text !== answer.text || !Object.is(held.logprob, answer.logprob) || held.isGreedy !== answer.isGreedy) conflicted.add(key);
    }
    stores.push({ path, responsesSha256: await responsesDigest(path, store.manifest), finished: store.unfinished === undefined, runs: store.manifest.runs, answers });
  }
  return { index, stores, conflicts: conflicted.size };
}

class ReplayModel implements LanguageModel {
  readonly capabilities;
  answered = 0;
  private readonly description: ModelDescription;

  constructor(
    private readonly index: Map<string, StoredAnswer>,
    readonly stores: ReplayedStore[],
  ) {
    const first = stores[0]!.runs[0];
    if (first === undefined) throw new StoreError(`${stores[0]!.path}: the store holds no run`);
    this.description = recordedDescription(first);
    const maxLength = Number(((factValue(first.model.device) ?? {}) as Record<string, unknown>).max_length ?? 0);
    this.capabilities = { logprobs: true, generation: true, chat: true, maxLength };
  }

  describe(): ModelDescription {
    return this.description;
  }

  private answer(q: ReplayRequest): StoredAnswer {
    const found = this.index.get(requestKey(q));
    if (found === undefined) throw new StoreError(`replay: no recorded answer for a ${q.requestType} request (the runner checks this before sending; the stores changed?)`);
    this.answered++;
    return found;
  }

  private usage(a: StoredAnswer) {
    // Truncation is a per-task count in the provenance, not per response: the replayed run copies it (src/run/replayed.ts).
    return { tokensIn: a.tokensIn, tokensOut: a.tokensOut, truncatedTokens: 0, latencyMs: 0 };
  }

  private mark<T extends object>(r: T): T {
    REPLAYED.add(r);
    return r;
  }

  async loglikelihood(requests: readonly LoglikelihoodRequest[]): Promise<LoglikelihoodResult[]> {
    return requests.map((request) => {
      const a = this.answer({ requestType: 'loglikelihood', request });
      return this.mark({ logprob: a.logprob!, isGreedy: a.isGreedy ?? false, usage: this.usage(a) });
    });
  }

  async loglikelihoodRolling(requests: readonly RollingRequest[]): Promise<RollingResult[]> {
    return requests.map((request) => {
      const a = this.answer({ requestType: 'loglikelihood_rolling', request });
      return this.mark({ logprob: a.logprob!, usage: this.usage(a) });
    });
  }

  async generateUntil(requests: readonly GenerateRequest[]): Promise<GenerateResult[]> {
    return requests.map((request) => {
      const a = this.answer({ requestType: 'generate_until', request });
      const finishReason = a.finishReason === 'stop' || a.finishReason === 'eos' || a.finishReason === 'length' ? a.finishReason : 'stop';
      return this.mark({ text: a.text!, finishReason, stopUsed: a.stopUsed ?? request.settings.until, usage: this.usage(a) });
    });
  }

  async counters(): Promise<Record<string, number>> {
    return { answered_from_store: this.answered };
  }

  async close(): Promise<void> {}
}

/** Opens a replay over several stores (`lmaudit merge` replays the union of its shards). */
export async function openReplay(paths: readonly string[]): Promise<LanguageModel> {
  const { index, stores, conflicts } = await loadReplay(paths);
  const lm = new ReplayModel(index, stores);
  const first = stores[0]!.runs[0]!;
  SOURCES.set(lm, {
    stores,
    model: { backend: String(factValue(first.model.backend)), args: (factValue(first.model.args) ?? {}) as Record<string, unknown> },
    conflicts,
    missing: (requests) => requests.flatMap((q, i) => (index.has(requestKey(q)) ? [] : [i])),
    get answered() {
      return lm.answered;
    },
  });
  return lm;
}

export const replayBackend: BackendFactory = {
  async open(args: ModelArgs): Promise<LanguageModel> {
    for (const key of Object.keys(args)) {
      if (key !== 'store') throw new BadInputError(`--model_args: the replay backend takes store=<dir> (a store \`lmaudit run\` wrote); got '${key}'`);
    }
    if (typeof args.store !== 'string' || args.store === '') throw new BadInputError('--model replay needs --model_args store=<dir> (a store `lmaudit run` wrote)');
    return openReplay([args.store]);
  },
};
