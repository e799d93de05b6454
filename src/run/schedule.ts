/**
 * Request scheduling: which requests to send, in what order, and to which instances
 * each answer goes. Requests go out grouped by type (as lm-eval's evaluator does), then
 * task, document, request index and repeat. Identical requests (same type and arguments)
 * are sent once and their answer recorded for each instance that asked it, unless the
 * request samples (each sample must be its own draw, seeded with the run's seed plus the
 * repeat index). On resume, instances the store
 * already holds are left out. An answer a grid's earlier cell got for the same request is
 * recorded as from_cache too (sharedAnswers.ts).
 */
import { BadInputError } from '../errors.ts';
import { PartialBatchError, repeatSeed, type ChatMessage, type GenerateRequest, type GenerateResult, type GenerationSettings, type LanguageModel, type LoglikelihoodRequest, type LoglikelihoodResult, type RollingRequest, type RollingResult } from '../models/lm.ts';
import type { BuiltTask } from '../prompt/build.ts';
import { responseKey } from '../store/recorder.ts';
import type { ExchangeRecord, ResponseRow } from '../store/schema.ts';
import { dumpsPy } from '../py/json.ts';
import type { RequestType } from './events.ts';
import { isSharedAnswer } from './sharedAnswers.ts';

export interface Target {
  task: string;
  doc_id: string;
  request_idx: number;
  repeat: number;
}

export type WorkItem =
  | { requestType: 'loglikelihood'; task: string; request: LoglikelihoodRequest; targets: Target[] }
  | { requestType: 'loglikelihood_rolling'; task: string; request: RollingRequest; targets: Target[] }
  | { requestType: 'generate_until'; task: string; request: GenerateRequest; targets: Target[] };

export interface Plan {
  items: WorkItem[];
  totals: Partial<Record<RequestType, number>>;
  held: Partial<Record<RequestType, number>>;
}

/** A response row with what the store's columns do not hold but the provenance needs (kept in the parts only). */
export type RecordedResponse = ResponseRow & { stop_used?: string[]; truncated_tokens?: number };

export function planWork(built: readonly BuiltTask[], settings: ReadonlyMap<string, GenerationSettings>, held: ReadonlySet<string>): Plan {
  const byKey = new Map<string, WorkItem>();
  const order: RequestType[] = [];
  const totals: Partial<Record<RequestType, number>> = {};
  const heldCount: Partial<Record<RequestType, number>> = {};
  for (const t of built) {
    const task = t.config.task;
    const repeats = Math.max(1, t.config.repeats);
    for (const d of t.docs) {
      const type = d.request_type;
      if (!order.includes(type)) order.push(type);
      d.arguments.forEach((args, idx) => {
        for (let repeat = 0; repeat < repeats; repeat++) {
          const target: Target = { task, doc_id: String(d.doc_id), request_idx: idx, repeat };
          totals[type] = (totals[type] ?? 0) + 1;
          if (held.has(responseKey(target))) {
            heldCount[type] = (heldCount[type] ?? 0) + 1;
            continue;
          }
          const taskSettings = settings.get(task) ?? null;
          const sampling = type === 'generate_until' && (taskSettings?.doSample ?? false);
          // Each repeat of a sampled request is its own draw, with a seed of its own (lm.ts repeatSeed).
          const sent = sampling && taskSettings !== null ? { ...taskSettings, seed: repeatSeed(taskSettings.seed ?? 0, repeat) } : taskSettings;
          const item = workItem(type, task, args, sent, `${task}/${d.doc_id}`);
          const key = dumpsPy([type, args.map((a) => (typeof a === 'string' ? a : dumpsPy(a))), sampling ? `${task}\u0000${d.doc_id}\u0000${idx}\u0000${repeat}` : null]);
          const existing = byKey.get(key);
          if (existing) existing.targets.push(target);
          else byKey.set(key, { ...item, targets: [target] } as WorkItem);
        }
      });
    }
  }
  const items = [...byKey.values()];
  // Map iteration keeps first-appearance order; a stable sort by type keeps it within a type.
  items.sort((a, b) => order.indexOf(a.requestType) - order.indexOf(b.requestType));
  return { items, totals, held: heldCount };
}

function workItem(type: RequestType, task: string, args: unknown[], settings: GenerationSettings | null, where: string): Omit<WorkItem, 'targets'> {
  const text = (v: unknown, what: string): string => {
    if (typeof v !== 'string') throw new BadInputError(`${where}: the ${what} is not text (API chat prompts need an API backend)`);
    return v;
  };
  // The API chat template's context: a one-element list holding the messages' JSON (lm-eval's JsonChatStr).
  if (type === 'generate_until' && Array.isArray(args[0])) {
    const json = text((args[0] as unknown[])[0], 'chat context');
    return { requestType: type, task, request: { context: json, messages: chatMessages(json, where), settings: settings! } };
  }
  if (type === 'loglikelihood') return { requestType: type, task, request: { context: text(args[0], 'context'), continuation: text(args[1], 'continuation') } };
  if (type === 'loglikelihood_rolling') return { requestType: type, task, request: { text: text(args[0], 'text') } };
  return { requestType: type, task, request: { context: text(args[0], 'context'), settings: settings! } };
}

function chatMessages(json: string, where: string): ChatMessage[] {
  const parsed = JSON.parse(json) as unknown;
  const ok = Array.isArray(parsed) && parsed.every((m) => typeof (m as ChatMessage)?.role === 'string' && typeof (m as ChatMessage)?.content === 'string');
  if (!ok) throw new BadInputError(`${where}: the chat context is not a list of {role, content} messages`);
  return (parsed as ChatMessage[]).map((m) => ({ role: m.role, content: m.content }));
}

/** What one batch gave: a row per target of each answered item, and the backend's exchanges mapped to the instances. */
export interface BatchOutcome {
  rows: RecordedResponse[];
  exchanges: ExchangeRecord[];
  /** Set when the backend failed: the rows are then those of the items answered before it gave up. */
  error?: unknown;
}

/**
 * Sends one batch (all items of one type): a response row for each target. A backend that fails
 * after answering part of the batch (PartialBatchError) still gives the rows of what it answered.
 */
export async function sendBatch(lm: LanguageModel, batch: readonly WorkItem[], runId: string): Promise<BatchOutcome> {
  let rows: RecordedResponse[];
  let error: unknown;
  try {
    rows = await batchRows(lm, batch, runId, null);
  } catch (e) {
    error = e;
    // The answered part of a failed batch; should building its rows fail too, the backend's error is the one reported.
    rows = e instanceof PartialBatchError ? await batchRows(lm, batch, runId, e.completed).catch(() => []) : [];
  }
  const exchanges: ExchangeRecord[] = (lm.drainExchanges?.() ?? []).map((x) => {
    // A request of no one instance (a remote tokenizer's): the batch's task, no document.
    if (batch[x.item] === undefined) return { ...x, run_id: runId, task: batch[0]!.task, doc_id: '', request_idx: -1, repeats: [] };
    const first = batch[x.item]!.targets[0]!;
    const repeats = batch[x.item]!.targets.filter((t) => t.task === first.task && t.doc_id === first.doc_id && t.request_idx === first.request_idx).map((t) => t.repeat);
    return { ...x, run_id: runId, task: first.task, doc_id: first.doc_id, request_idx: first.request_idx, repeats };
  });
  return error === undefined ? { rows, exchanges } : { rows, exchanges, error };
}

/** Rows for the batch's targets; with `completed`, only for the items it holds (a failed batch's answered part). */
async function batchRows(lm: LanguageModel, batch: readonly WorkItem[], runId: string, completed: ReadonlyArray<unknown> | null): Promise<RecordedResponse[]> {
  const type = batch[0]!.requestType;
  const rows: RecordedResponse[] = [];
  const answered = (i: number) => completed === null || completed[i] !== undefined;
  const base = (t: Target, first: boolean): RecordedResponse => ({
    run_id: runId, task: t.task, doc_id: t.doc_id, request_idx: t.request_idx, repeat: t.repeat,
    text: null, logprob: null, is_greedy: null, finish_reason: null, tokens_in: null, tokens_out: null, latency_ms: null,
    attempt: 1, from_cache: !first, error: null,
  });
  const attempt = (u: { attempts?: number }) => u.attempts ?? 1;
  if (type === 'loglikelihood') {
    const results = (completed as LoglikelihoodResult[] | null) ?? (await lm.loglikelihood(batch.map((b) => b.request as LoglikelihoodRequest)));
    batch.forEach((b, i) => {
      if (!answered(i)) return;
      const r = results[i]!;
      b.targets.forEach((t, k) => rows.push({ ...base(t, k === 0 && !isSharedAnswer(r)), logprob: r.logprob, is_greedy: r.isGreedy, tokens_in: r.usage.tokensIn, tokens_out: r.usage.tokensOut, latency_ms: r.usage.latencyMs, attempt: attempt(r.usage), truncated_tokens: r.usage.truncatedTokens }));
    });
  } else if (type === 'loglikelihood_rolling') {
    const results = (completed as RollingResult[] | null) ?? (await lm.loglikelihoodRolling(batch.map((b) => b.request as RollingRequest)));
    batch.forEach((b, i) => {
      if (!answered(i)) return;
      const r = results[i]!;
      b.targets.forEach((t, k) => rows.push({ ...base(t, k === 0 && !isSharedAnswer(r)), logprob: r.logprob, tokens_in: r.usage.tokensIn, tokens_out: r.usage.tokensOut, latency_ms: r.usage.latencyMs, attempt: attempt(r.usage), truncated_tokens: r.usage.truncatedTokens }));
    });
  } else {
    const results = (completed as GenerateResult[] | null) ?? (await lm.generateUntil(batch.map((b) => b.request as GenerateRequest)));
    batch.forEach((b, i) => {
      if (!answered(i)) return;
      const r = results[i]!;
      b.targets.forEach((t, k) => rows.push({ ...base(t, k === 0 && !isSharedAnswer(r)), text: r.text, finish_reason: r.finishReason, tokens_in: r.usage.tokensIn, tokens_out: r.usage.tokensOut, latency_ms: r.usage.latencyMs, attempt: attempt(r.usage), stop_used: r.stopUsed, truncated_tokens: r.usage.truncatedTokens }));
    });
  }
  if (completed === null && rows.length !== batch.reduce((n, b) => n + b.targets.length, 0)) throw new Error('backend returned the wrong number of results');
  return rows;
}
