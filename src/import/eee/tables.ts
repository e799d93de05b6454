/**
 * EEE instance records as store tables.
 *
 * - instances: one row per (task, sample_id); arg_context is what the model saw (`input.formatted`, else
 *   `input.raw`, which EEE's converters fill with the full prompt); doc_json keeps the record's input and
 *   metadata; doc_hash is the record's `metadata.doc_hash` when it carries lm-eval's (EEE's lm-eval converter
 *   copies it), else sha256 of `input.raw`, so items align with their source by content.
 * - responses: one row per output (`output.raw[i]` is repeat i; with `metadata.epoch` the epoch is the repeat).
 * - an lmaudit export's log-likelihood item (no output, its requests in `metadata.logprobs`: lmauditKeys.ts) is one
 *   instance and one response per request, as the store it was exported from held it.
 * - scores: one row per record: `evaluation.score` under the result it joins to (filter and metric from
 *   provenance.ts's resultTargets); records that name an evaluation with several results and no
 *   `evaluation_result_id` cannot be joined to one, and their score is stored under metric `evaluation.score`.
 * - filtered: `answer_attribution` as the recorded extraction, one row per record.
 */
import { BadInputError } from '../../errors.ts';
import { sha256Hex } from '../../util/hash.ts';
import { isPlainObject, toPythonJson } from '../../util/json.ts';
import type { EeeAggregate } from './aggregate.ts';
import { keptLoglikelihoods, KEPT_SCORE_PREFIX, LOGPROBS_KEY, VALUE_JSON_KEY } from './lmauditKeys.ts';
import type { ResultTarget } from './provenance.ts';
import { resultsOf, type EeeRecord, type SamplesFile } from './samples.ts';
import type { ItemTables, Row } from '../types.ts';


export interface EeeTables extends ItemTables {
  /** Records whose score could not be joined to one result, by evaluation_name. */
  unjoined: Map<string, number>;
  /** Per task: items whose gold is their correct option's letter, and the lines of those whose letter is unknown. */
  letterGolds: Map<string, { lettered: number; unknown: number[] }>;
}

export const UNJOINED_METRIC = 'evaluation.score';

const HEX64 = /^[0-9a-f]{64}$/;

export function recordTables(runId: string, aggregate: EeeAggregate | null, targets: Map<unknown, ResultTarget>, files: readonly SamplesFile[]): EeeTables {
  const out: EeeTables = { instances: [], responses: [], scores: [], filtered: [], unjoined: new Map(), letterGolds: new Map() };
  const instances = new Map<string, Row>();
  const responded = new Set<string>();
  const scored = new Set<string>();
  for (const file of files) {
    for (const r of file.records) {
      const joined = aggregate === null ? [] : resultsOf(aggregate, r.evaluation_result_id, r.evaluation_name);
      const target: ResultTarget =
        joined.length === 1 ? targets.get(joined[0]!)!
        : { task: r.evaluation_name, filter: 'none', metric: aggregate === null ? (r.evaluation_result_id ?? 'score') : UNJOINED_METRIC };
      if (joined.length > 1) out.unjoined.set(r.evaluation_name, (out.unjoined.get(r.evaluation_name) ?? 0) + 1);
      const base = { run_id: runId, task: target.task, doc_id: r.sample_id };
      const metadata = isPlainObject(r.record.metadata) ? r.record.metadata : {};
      const epoch = Number(metadata.epoch);
      const repeat0 = Number.isInteger(epoch) && epoch >= 1 ? epoch - 1 : 0;
      const instanceKey = `${target.task}\u001f${r.sample_id}`;
      if (!instances.has(instanceKey)) {
        const gold = goldOf(r);
        if (gold.kind !== 'text') {
          const counts = out.letterGolds.get(target.task) ?? { lettered: 0, unknown: [] };
          if (gold.kind === 'letters') counts.lettered++;
          else counts.unknown.push(r.line);
          out.letterGolds.set(target.task, counts);
        }
        const row = instanceRow(base, r, metadata, gold.kind === 'letters' ? gold.letters : r.reference);
        instances.set(instanceKey, row);
        // An lmaudit export's log-likelihood item (output.raw empty): its requests and their responses come back.
        const requests = r.outputs.length === 0 ? keptLoglikelihoods(metadata[LOGPROBS_KEY], r.choices) : null;
        if (requests === null) out.instances.push(row);
        else {
          for (const q of requests) {
            out.instances.push({ ...row, request_idx: q.idx, request_type: 'loglikelihood', arg_continuation: q.continuation });
            out.responses.push({ ...responseRow(base, r, null, 0), request_idx: q.idx, logprob: q.logprob, is_greedy: q.isGreedy });
          }
          responded.add(`${instanceKey}\u001f0`);
        }
      }
      if (repeat0 === 0 && r.outputs.length > 0) instances.get(instanceKey)!.response_text ??= r.outputs[0]!;
      r.outputs.forEach((text, i) => {
        const repeat = repeat0 + i;
        const key = `${instanceKey}\u001f${repeat}`;
        if (responded.has(key)) return;
        responded.add(key);
        out.responses.push(responseRow(base, r, text, repeat));
      });
      // A record repeated for the same result (epochs without an epoch in metadata) keeps its own filter.
      let filter = metadata.epoch === undefined ? target.filter : `${target.filter}@epoch:${String(metadata.epoch)}`;
      const scoreKey = (f: string) => `${instanceKey}\u001f${f}\u001f${target.metric}`;
      if (scored.has(scoreKey(filter))) filter = `${filter}@line:${r.line}`;
      scored.add(scoreKey(filter));
      const valueJson = typeof metadata[VALUE_JSON_KEY] === 'string' ? (metadata[VALUE_JSON_KEY] as string) : r.score_text;
      out.scores.push({ ...base, filter, metric: target.metric, value: r.score, value_json: valueJson });
      // Values an lmaudit export kept in metadata because EEE's score is a number only (once per item).
      for (const [key, kept] of Object.entries(metadata)) {
        if (!key.startsWith(KEPT_SCORE_PREFIX) || typeof kept !== 'string') continue;
        const series = key.slice(KEPT_SCORE_PREFIX.length);
        const comma = series.lastIndexOf(',');
        const [metric, keptFilter] = [series.slice(0, comma), series.slice(comma + 1)];
        if (comma < 0 || scored.has(`${instanceKey}\u001f${keptFilter}\u001f${metric}`)) continue;
        scored.add(`${instanceKey}\u001f${keptFilter}\u001f${metric}`);
        const pair = keptPair(kept);
        if (pair === null) throw new BadInputError(`${key} is not the [value, value_json] pair lmaudit writes`, { file: file.file, line: r.line, field: `metadata.${key}` });
        const [value, json] = pair;
        out.scores.push({ ...base, filter: keptFilter, metric, value, value_json: json });
      }
      out.filtered.push({
        ...base,
        filter,
        line: r.line,
        filtered_json: toPythonJson(r.record.answer_attribution ?? null),
        metrics_json: JSON.stringify([target.metric]),
      });
    }
  }
  return out;
}

function keptPair(text: string): [number | null, string] | null {
  try {
    const v: unknown = JSON.parse(text);
    return Array.isArray(v) && v.length === 2 && (v[0] === null || typeof v[0] === 'number') && typeof v[1] === 'string' ? [v[0], v[1]] : null;
  } catch {
    return null;
  }
}

/**
 * What an item's output is read against. EEE's HELM converter writes a multiple_choice_joint item's reference as
 * the correct option's text and its choices as output_mapping's values (instance_level_adapter.py), while the model
 * answers with the option's letter (' D'): read against the text, every answer scored 0. HELM letters the options
 * A, B, C, … in order and lists them in the prompt as 'A. <option>' lines; where the record's input.raw holds that
 * list for its choices, the gold is each correct option's letter (the text stays in doc_json and choices_json).
 * Where the answers are letters and the reference an option's text but the prompt shows no such list, the letter
 * is 'unknown' (the importer notes it).
 */
function goldOf(r: EeeRecord): { kind: 'text' } | { kind: 'letters'; letters: string[] } | { kind: 'unknown' } {
  const choices = r.choices;
  if (choices === null || choices.length < 2 || r.reference.length === 0 || !r.reference.every((ref) => choices.includes(ref))) return { kind: 'text' };
  if (r.reference.every((ref) => /^[A-Z]$/.test(ref))) return { kind: 'text' };
  const unique = r.reference.every((ref) => choices.indexOf(ref) === choices.lastIndexOf(ref));
  const listed = choices.length <= 26 && r.raw.includes(choices.map((c, i) => `${String.fromCharCode(65 + i)}. ${c}`).join('\n'));
  if (unique && listed) return { kind: 'letters', letters: r.reference.map((ref) => String.fromCharCode(65 + choices.indexOf(ref))) };
  const answersAreLetters = r.outputs.length > 0 && r.outputs.every((o) => /^[A-Z]$/.test(o.trim()));
  return answersAreLetters ? { kind: 'unknown' } : { kind: 'text' };
}

function instanceRow(base: Row, r: EeeRecord, metadata: Record<string, unknown>, gold: string[]): Row {
  const context = r.formatted ?? r.raw;
  const doc: Record<string, unknown> = { sample_id: r.sample_id, raw: r.raw, reference: r.reference };
  if (r.choices !== null) doc.choices = r.choices;
  if (Object.keys(metadata).length > 0) doc.metadata = metadata;
  return {
    ...base,
    group: null,
    request_idx: 0,
    request_type: 'unknown',
    arg_context: context,
    arg_continuation: null,
    gen_kwargs_json: null,
    doc_json: toPythonJson(doc),
    doc_hash: typeof metadata.doc_hash === 'string' && HEX64.test(metadata.doc_hash) ? metadata.doc_hash : sha256Hex(r.raw),
    prompt_hash: typeof metadata.prompt_hash === 'string' && HEX64.test(metadata.prompt_hash) ? metadata.prompt_hash : sha256Hex(context),
    target: gold.length === 1 ? gold[0] : JSON.stringify(gold),
    choices_json: r.choices === null ? null : JSON.stringify(r.choices),
    fewshot_doc_ids: null,
    response_text: null,
  };
}

function responseRow(base: Row, r: EeeRecord, text: string | null, repeat: number): Row {
  const usage = isPlainObject(r.record.token_usage) ? r.record.token_usage : {};
  const performance = isPlainObject(r.record.performance) ? r.record.performance : {};
  const int = (v: unknown) => (typeof v === 'number' && Number.isSafeInteger(v) ? v : null);
  return {
    ...base,
    request_idx: 0,
    repeat,
    text,
    logprob: null,
    is_greedy: null,
    finish_reason: null,
    tokens_in: int(usage.input_tokens),
    tokens_out: int(usage.output_tokens),
    latency_ms: typeof performance.latency_ms === 'number' ? performance.latency_ms : null,
    attempt: null,
    from_cache: null,
    error: typeof r.record.error === 'string' ? r.record.error : null,
  };
}
