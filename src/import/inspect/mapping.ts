/**
 * An Inspect log as store tables.
 *
 * - instances: one row per sample id (doc_id = the id as text, `group` null),
 *   request_idx 0. doc_json holds the dataset-level sample {id, input, choices,
 *   target, metadata} exactly as logged; `target` is the text (a list target is
 *   its JSON); arg_context is the last user message before the first reply (the
 *   prompt after solver templating); doc_hash is sha256 of the *input text*
 *   (string input, or message texts joined with "\n"), so an Inspect item and
 *   an lm-eval item over the same question text align by content.
 * - responses: one row per (sample, epoch), repeat = epoch - 1, text = the
 *   completion Inspect's scorers read.
 * - scores: filter `epoch:<n>` for a sample's own scores, `reduced:<reducer>`
 *   for reductions (doc_id = sample id); metric = scorer key, `<key>/<dictkey>`
 *   for dict values, `<key>[<i>]` for list values. `value` is Inspect's
 *   value_to_float of the recorded value (how every Inspect metric reads it);
 *   value_json is the value exactly as recorded ("C", 0.5, NaN …).
 * - filtered: one row per (sample, epoch or reduction, scorer), filter
 *   `<key>@epoch:<n>` / `<key>@reduced:<reducer>`, holding the whole Score
 *   (value, answer, explanation, metadata, history): the answer is the span
 *   Inspect extracted, the history its edits.
 */
import { BadInputError } from '../../errors.ts';
import { sha256Hex } from '../../util/hash.ts';
import { isPlainObject, toPythonJson } from '../../util/json.ts';
import { type ScoreValue, valueToFloat } from '../../formats/inspectScore.ts';
import { arr, obj, type Json } from './migrate.ts';
import { completionOf, inputText, messageText, promptMessages } from './messages.ts';
import { effectiveGenerateConfig } from './provenance.ts';
import type { InspectLog } from './readLog.ts';
import type { ItemTables, Row } from '../types.ts';
import { isTarget } from './logShape.ts';

/** Rows are checked against the column specs when staged (the schema's row types do not model nullable columns). */

export interface InspectTables extends ItemTables {
  emptyAnswers: number;
  summaryOnly: string[];
}

const idText = (id: unknown) => String(id);

/** The dataset-level part of a sample: what two runs over the same item share. */
export function sampleDoc(sample: Json): Json {
  const doc: Json = { id: sample.id, input: sample.input, target: sample.target };
  if (sample.choices !== undefined) doc.choices = sample.choices;
  if (sample.metadata !== undefined) doc.metadata = sample.metadata;
  return doc;
}

function scoreRows(base: { run_id: string; task: string; doc_id: string }, filter: string, key: string, value: ScoreValue): Row[] {
  const row = (metric: string, v: ScoreValue): Row => ({
    ...base,
    filter,
    metric,
    value: v === null || typeof v === 'object' ? null : valueToFloat(v),
    value_json: toPythonJson(v),
  });
  if (Array.isArray(value)) return value.map((v, i) => row(`${key}[${i}]`, v));
  if (isPlainObject(value)) return Object.entries(value as Record<string, ScoreValue>).map(([k, v]) => row(`${key}/${k}`, v));
  return [row(key, value)];
}

export function mapTables(log: InspectLog, runId: string, task: string): InspectTables {
  const out: InspectTables = { instances: [], responses: [], scores: [], filtered: [], emptyAnswers: 0, summaryOnly: [] };
  // Each sample's instance, by id (and its type: 1 and '1' are two samples), for its epoch-1 answer.
  const instanceOf = new Map<string, Row>();
  const keyOf = (id: unknown) => `${typeof id}:${idText(id)}`;
  const genKwargs = JSON.stringify(effectiveGenerateConfig(log.header).used);
  const base = (id: unknown) => ({ run_id: runId, task, doc_id: idText(id) });

  const addInstance = (sample: Json) => {
    const key = keyOf(sample.id);
    if (instanceOf.has(key)) return;
    const users = promptMessages(sample).filter((m) => m.role === 'user');
    const context = users.length > 0 ? messageText(users[users.length - 1]) : inputText(sample.input);
    const row: Row = {
      ...base(sample.id),
      group: null,
      request_idx: 0,
      request_type: 'generate_until',
      arg_context: context,
      arg_continuation: null,
      gen_kwargs_json: genKwargs,
      doc_json: toPythonJson(sampleDoc(sample)),
      doc_hash: sha256Hex(inputText(sample.input)),
      prompt_hash: sha256Hex(context),
      target: typeof sample.target === 'string' ? sample.target : toPythonJson(sample.target ?? null),
      choices_json: Array.isArray(sample.choices) ? JSON.stringify(sample.choices) : null,
      fewshot_doc_ids: null,
      // Filled by the sample of epoch 1, which need not come first.
      response_text: null,
    };
    instanceOf.set(key, row);
    out.instances.push(row);
  };

  const addScores = (sample: Json, line: number) => {
    for (const [key, score] of Object.entries(obj(sample.scores) ?? {})) {
      const s = obj(score);
      if (s === undefined) continue;
      const filter = `epoch:${String(sample.epoch)}`;
      out.scores.push(...scoreRows(base(sample.id), filter, key, s.value as ScoreValue));
      out.filtered.push({ ...base(sample.id), filter: `${key}@${filter}`, line, filtered_json: toPythonJson(s), metrics_json: null });
    }
  };

  log.samples.forEach((sample, index) => {
    addInstance(sample);
    const output = obj(sample.output);
    const completion = completionOf(sample);
    if (completion.text === '') out.emptyAnswers++;
    const usage = obj(output?.usage);
    const retries = arr(sample.error_retries);
    if (Number(sample.epoch) === 1) instanceOf.get(keyOf(sample.id))!.response_text = completion.text;
    out.responses.push({
      ...base(sample.id),
      request_idx: 0,
      repeat: Number(sample.epoch) - 1,
      text: completion.text,
      logprob: null,
      is_greedy: null,
      finish_reason: stringOrNull(obj(arr(output?.choices)?.[0])?.stop_reason),
      tokens_in: intOrNull(usage?.input_tokens),
      tokens_out: intOrNull(usage?.output_tokens),
      latency_ms: typeof output?.time === 'number' ? output.time * 1000 : null,
      attempt: retries === undefined ? null : retries.length + 1,
      from_cache: null,
      error: stringOrNull(obj(sample.error)?.message),
    });
    addScores(sample, index + 1);
  });

  // A summary without a sample body (e.g. log_samples=false, or a crash mid-flush) still carries score values.
  const bodies = new Set(log.samples.map((s) => `${idText(s.id)}\u001f${String(s.epoch)}`));
  for (const [k, summary] of log.summaries.entries()) {
    if (bodies.has(`${idText(summary.id)}\u001f${String(summary.epoch)}`)) continue;
    // A summary stands in for its sample here, so it needs the target its sample would have had (Inspect's
    // EvalSampleSummary requires one): without, the gold was stored as the text "null".
    if (!isTarget(summary.target)) {
      const which = `the summary of sample ${JSON.stringify(summary.id)}, epoch ${String(summary.epoch)} (its sample body is not in the log)`;
      throw new BadInputError(summary.target === undefined ? `missing in ${which}; every EvalSampleSummary has a target` : `expected a target (a string or a list of strings) in ${which}`, {
        file: log.file,
        member: log.summaryPlaces[k]!.member,
        field: `[${log.summaryPlaces[k]!.index}].target`,
      });
    }
    out.summaryOnly.push(`${idText(summary.id)} epoch ${String(summary.epoch)}`);
    addInstance(summary);
    addScores(summary, 0);
  }

  for (const reduction of log.reductions ?? []) {
    const scorer = String(reduction.scorer);
    const filter = `reduced:${typeof reduction.reducer === 'string' ? reduction.reducer : 'mean'}`;
    (arr(reduction.samples) ?? []).forEach((item, i) => {
      const r = obj(item);
      if (r === undefined) return;
      out.scores.push(...scoreRows(base(r.sample_id), filter, scorer, r.value as ScoreValue));
      const { sample_id: _id, ...score } = r;
      out.filtered.push({ ...base(r.sample_id), filter: `${scorer}@${filter}`, line: i + 1, filtered_json: toPythonJson(score), metrics_json: null });
    });
  }
  return out;
}

function stringOrNull(v: unknown): string | null {
  return typeof v === 'string' ? v : null;
}

function intOrNull(v: unknown): number | null {
  return typeof v === 'number' && Number.isInteger(v) ? v : null;
}
