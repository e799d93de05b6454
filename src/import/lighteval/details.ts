/**
 * A lighteval details Parquet file as rows, read by DuckDB (each row's columns as JSON). The layout is told by the
 * columns: era D (0.11 on) has the structs `doc`, `model_response` and `metric`; eras A–C (to 0.10) the flat
 * columns `example`, `full_prompt`, `predictions`, `gold`, `choices`, `gold_index`, `metrics`, … — native values
 * in eras A and C, Python `str()` of every value in era B (read back with literal_eval's rules).
 *
 * Store rows: one item per row (a doc twice under two sampling methods is two items: `<id>|<METHOD>`). Era D ids
 * are `doc.id` (the split row index); flat files record no id, so their doc_id is the row position, said so in the
 * provenance. A log-probability item has one request per choice (the choice as continuation, its summed
 * log-probability and greedy flag as the response); a generative item one request with a response per sample.
 * arg_context is the prompt as sent when recorded (`model_response.input`, or `full_prompt`), else doc.query (the
 * task-formatted question without few-shot examples or system prompt). Scores: each per-item metric value
 * (filter 'none'). Filtered: `text_post_processed` (what lighteval's metrics read) where recorded.
 */
import { BadInputError } from '../../errors.ts';
import { literalEvalDocValue, plainNumbers } from '../../py/literalEval.ts';
import { queryRows, sqlString } from '../../util/duckdb.ts';
import { sha256Hex } from '../../util/hash.ts';
import { isPlainObject, parsePythonJson, toPythonJson } from '../../util/json.ts';
import { xxh64 } from '../../util/xxh64.ts';
import type { ItemTables, Row } from '../types.ts';

type Json = Record<string, unknown>;
const o = (v: unknown): Json => (isPlainObject(v) ? v : {});
const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : v === null || v === undefined ? [] : [v]);

export type DetailsEra = 'D (0.11+: doc, model_response, metric)' | 'A or C (to 0.10: flat columns, native values)' | 'B (0.4-0.7: flat columns, every value as Python str())';

export interface DetailsTables extends ItemTables {
  era: DetailsEra;
  /** Per item: the few-shot count used, the query's xxh64 (lighteval's hash_examples input), the sampling method. */
  used: {
    fewshot: number | null;
    /** xxh64 of doc.query, and of Python's str() of the input and output token ids: lighteval's per-row hashes. */
    hashes: { examples: string | null; input_tokens: string | null; cont_tokens: string | null };
    method: string | null;
    generationSize: unknown;
    stop: unknown;
    promptRecorded: boolean;
  }[];
}

const FLAT_VALUE_COLUMNS = ['predictions', 'gold', 'choices', 'gold_index', 'metrics', 'num_asked_few_shots', 'num_effective_few_shots', 'specifics', 'truncated', 'padded', 'input_tokens', 'cont_tokens', 'pred_logits'];

export async function readDetails(path: string, task: string, runId: string): Promise<DetailsTables> {
  let columns: { column_name: string; column_type: string }[];
  try {
    columns = await queryRows(`DESCRIBE SELECT * FROM read_parquet(${sqlString(path)})`);
  } catch (error) {
    throw new BadInputError(`not a readable Parquet file (${(error as Error).message.split('\n')[0]})`, { file: path });
  }
  const type = new Map(columns.map((c) => [c.column_name, c.column_type]));
  const eraD = type.has('doc') && type.has('model_response') && type.has('metric');
  if (!eraD && !(type.has('metrics') && (type.has('example') || type.has('full_prompt')))) {
    throw new BadInputError(`lighteval details need the columns doc, model_response and metric (0.11+) or example/full_prompt and metrics (to 0.10); found ${[...type.keys()].join(', ')}`, { file: path });
  }
  const era: DetailsEra = eraD ? 'D (0.11+: doc, model_response, metric)' : type.get('metrics') === 'VARCHAR' ? 'B (0.4-0.7: flat columns, every value as Python str())' : 'A or C (to 0.10: flat columns, native values)';
  const rows = await queryRows<{ row: string }>(`SELECT to_json(t) AS row FROM read_parquet(${sqlString(path)}) t`);
  const out: DetailsTables = { era, instances: [], responses: [], scores: [], filtered: [], used: [] };
  const seen = new Map<string, number>();
  rows.forEach((r, index) => {
    const raw = parsePythonJson(r.row, { file: path, line: index + 1 }) as Json;
    const item = eraD ? eraDItem(raw) : flatItem(raw, era.startsWith('B'), path, index);
    // One row per (doc, sampling method): a doc met again is the same doc under another method.
    const base = item.id ?? String(index);
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    const docId = count === 0 ? base : `${base}|${item.method ?? count}`;
    addItem(out, { ...item, docId, task, runId });
  });
  return out;
}

interface Item {
  id: string | null;
  method: string | null;
  query: string | null;
  prompt: string | null;
  doc: unknown;
  choices: string[];
  gold: string | null;
  texts: string[];
  postProcessed: string[] | null;
  logprobs: (number | null)[];
  greedy: (boolean | null)[];
  metrics: Json;
  fewshot: number | null;
  generationSize: unknown;
  stop: unknown;
  inputTokens: unknown;
  outputTokens: unknown;
}

function goldText(choices: string[], goldIndex: unknown, gold: unknown): string | null {
  const indices = list(goldIndex).filter((i): i is number => typeof i === 'number');
  if (indices.length > 0) return indices.map((i) => choices[i] ?? '').join('\n');
  const golds = list(gold).flat();
  return golds.length > 0 ? golds.map(String).join('\n') : null;
}

function eraDItem(raw: Json): Item {
  const doc = o(raw.doc);
  const mr = o(raw.model_response);
  const choices = list(doc.choices).map(String);
  const input = mr.input;
  const methods = list(doc.sampling_methods).map(String);
  return {
    id: doc.id === undefined || doc.id === null ? null : String(doc.id),
    method: methods.length === 1 ? methods[0]! : methods.length === 0 ? null : methods.join('+'),
    query: typeof doc.query === 'string' ? doc.query : null,
    prompt: typeof input === 'string' ? input : input === null || input === undefined ? null : toPythonJson(input),
    doc,
    choices,
    gold: goldText(choices, doc.gold_index, undefined),
    texts: list(mr.text).map(String),
    postProcessed: Array.isArray(mr.text_post_processed) ? mr.text_post_processed.map(String) : null,
    logprobs: list(mr.logprobs).map((x) => (typeof x === 'number' ? x : null)),
    greedy: list(mr.argmax_logits_eq_gold).map((x) => (typeof x === 'boolean' ? x : null)),
    metrics: o(raw.metric),
    fewshot: Array.isArray(doc.fewshot_samples) ? doc.fewshot_samples.length : null,
    generationSize: doc.generation_size,
    stop: doc.stop_sequences,
    inputTokens: mr.input_tokens,
    outputTokens: mr.output_tokens,
  };
}

/** Era B cells are Python str() of the value: read back as literal_eval would ('nan' and the like stay text). */
function pyCell(value: unknown, stringly: boolean): unknown {
  if (!stringly || typeof value !== 'string') return value;
  try {
    return plainNumbers(literalEvalDocValue(value));
  } catch {
    return value;
  }
}

function flatItem(raw: Json, stringly: boolean, path: string, index: number): Item {
  const v = Object.fromEntries(Object.entries(raw).map(([k, x]) => [k, FLAT_VALUE_COLUMNS.includes(k) ? pyCell(x, stringly) : x]));
  const metrics = v.metrics;
  if (!isPlainObject(metrics)) throw new BadInputError(`the metrics cell is not a dict (${JSON.stringify(metrics)?.slice(0, 80)})`, { file: path, line: index + 1, field: 'metrics' });
  const choices = list(v.choices).map(String);
  const predictions = list(v.predictions);
  // Log-probability predictions are [logprob, is_greedy] per choice; generative ones are texts (one list per request).
  const pairs = predictions.every((p) => Array.isArray(p) && p.length === 2 && typeof p[0] === 'number');
  const texts = pairs ? [] : predictions.flat().filter((t): t is string => typeof t === 'string');
  const prompt = v.full_prompt;
  return {
    id: null,
    method: null,
    query: typeof v.example === 'string' ? v.example : null,
    prompt: typeof prompt === 'string' ? prompt : prompt === null || prompt === undefined ? null : toPythonJson(prompt),
    doc: { example: v.example, instruction: v.instruction, choices: v.choices, gold: v.gold, gold_index: v.gold_index, specifics: v.specifics },
    choices,
    gold: goldText(choices, v.gold_index, v.gold),
    texts,
    postProcessed: null,
    logprobs: pairs ? predictions.map((p) => (p as unknown[])[0] as number) : predictions.every((p) => typeof p === 'number') ? (predictions as number[]) : [],
    greedy: pairs ? predictions.map((p) => ((p as unknown[])[1] === true ? true : (p as unknown[])[1] === false ? false : null)) : [],
    metrics,
    fewshot: typeof v.num_effective_few_shots === 'number' ? v.num_effective_few_shots : null,
    generationSize: undefined,
    stop: undefined,
    inputTokens: v.input_tokens,
    outputTokens: v.cont_tokens,
  };
}

function addItem(out: DetailsTables, item: Item & { docId: string; task: string; runId: string }): void {
  const base = { run_id: item.runId, task: item.task, doc_id: item.docId };
  const context = item.prompt ?? item.query;
  const docJson = toPythonJson(item.doc);
  const instance = (requestIdx: number, type: string, continuation: string | null, response: string | null) => ({
    ...base,
    group: null,
    request_idx: requestIdx,
    request_type: type,
    arg_context: context,
    arg_continuation: continuation,
    gen_kwargs_json: item.generationSize === undefined ? null : toPythonJson({ generation_size: item.generationSize, stop_sequences: item.stop ?? null }),
    doc_json: docJson,
    doc_hash: sha256Hex(item.query ?? docJson),
    prompt_hash: context === null ? null : sha256Hex(context),
    target: item.gold,
    choices_json: item.choices.length > 0 ? JSON.stringify(item.choices) : null,
    fewshot_doc_ids: null,
    response_text: response,
  });
  const response = (requestIdx: number, repeat: number, text: string | null, logprob: number | null, greedy: boolean | null) => ({
    ...base, request_idx: requestIdx, repeat, text, logprob, is_greedy: greedy, finish_reason: null,
    tokens_in: null, tokens_out: null, latency_ms: null, attempt: null, from_cache: null, error: null,
  });
  if (item.texts.length === 0 && item.logprobs.length > 0) {
    item.logprobs.forEach((lp, i) => {
      out.instances.push(instance(i, 'loglikelihood', item.choices[i] ?? null, null));
      out.responses.push(response(i, 0, null, lp, item.greedy[i] ?? null));
    });
  } else {
    out.instances.push(instance(0, 'generate_until', null, item.texts[0] ?? null));
    item.texts.forEach((t, repeat) => out.responses.push(response(0, repeat, t, null, null)));
    if (item.postProcessed !== null) out.filtered.push({ ...base, filter: 'text_post_processed', line: out.used.length + 1, filtered_json: toPythonJson(item.postProcessed), metrics_json: null });
  }
  for (const [metric, value] of Object.entries(item.metrics)) {
    if (value === null || value === undefined) continue;
    out.scores.push({ ...base, filter: 'none', metric, value: typeof value === 'number' ? value : typeof value === 'boolean' ? Number(value) : null, value_json: toPythonJson(value) });
  }
  out.used.push({
    fewshot: item.fewshot,
    hashes: { examples: item.query === null ? null : xxh64(item.query), input_tokens: tokenHash(item.inputTokens), cont_tokens: tokenHash(item.outputTokens) },
    method: item.method, generationSize: item.generationSize, stop: item.stop, promptRecorded: item.prompt !== null });
}

/** xxh64 of Python's str() of a (nested) list of token ids, as lighteval hashes input_tokens and output_tokens. */
function tokenHash(tokens: unknown): string | null {
  if (!Array.isArray(tokens)) return null;
  const text = JSON.stringify(tokens);
  // str() of a list of ints (or of lists of ints) is the JSON with ', ' between items.
  return /^[\[\],\d-]*$/.test(text) ? xxh64(text.replaceAll(',', ', ')) : null;
}

/** lighteval's per-task hash over rows: xxh64 of the per-row hex digests sorted and concatenated. */
export function taskHash(rowHashes: readonly string[]): string {
  return xxh64([...rowHashes].sort().join(''));
}
