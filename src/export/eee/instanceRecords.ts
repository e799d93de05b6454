/**
 * One run's task as EEE 0.3.0 instance records: one record per (item, result), as EEE asks when one
 * interaction feeds several results. `input.formatted` is the prompt the store holds for request 0 (what the
 * model was sent); `input.raw` is the same text, since the store keeps the document, not a bare question
 * (the document itself is in `metadata.doc_json`), except for a record imported from EEE, whose own raw
 * input is kept. `sample_hash` is EEE's canonical recipe over raw and reference. The recorded extraction
 * (lm-eval's filtered response, or an EEE record's own `answer_attribution`) is `answer_attribution`.
 * Per-choice log-likelihoods have no EEE field: they are kept in `metadata.logprobs`, and `output.raw` holds
 * only generated text (no choice is picked for a log-likelihood request).
 */
import { canonicalSampleHash } from '../../formats/eeeSampleHash.ts';
import { parseJsonObject, parsePythonJson, toPythonJson } from '../../util/json.ts';
import { KEPT_SCORE_PREFIX, LOGPROBS_KEY, VALUE_JSON_KEY } from '../../import/eee/lmauditKeys.ts';
import { stringMap, type Json, type PlannedResult, type ScoreRow } from './aggregateRecord.ts';

export interface ItemRows {
  doc_id: string;
  arg_context: string | null;
  doc_json: string | null;
  doc_hash: string;
  prompt_hash: string | null;
  target: string | null;
  choices_json: string | null;
  /** Responses to request 0, by repeat. */
  texts: (string | null)[];
  tokens_in: number | null;
  tokens_out: number | null;
  latency_ms: number | null;
  error: string | null;
  /** [request_idx, logprob, is_greedy, continuation] of every log-likelihood response (repeat 0). */
  logprobs: [number, number, boolean | null, string | null][];
}

export interface RecordContext {
  version: string;
  evaluationId: string;
  modelId: string;
  task: string;
  /** The run was imported from EEE: its documents hold the records' own input, its extractions their attributions. */
  fromEee: boolean;
  items: Map<string, ItemRows>;
  /** filtered_json by `${doc_id}\u001f${filter}`. */
  extractions: Map<string, string | null>;
  /** Per-item values no result carries, by doc_id (kept in metadata). */
  kept: Map<string, ScoreRow[]>;
}

export function instanceRecords(c: RecordContext, results: readonly PlannedResult[]): Json[] {
  const out: Json[] = [];
  for (const r of results) {
    for (const row of r.rows) {
      const item = c.items.get(row.doc_id);
      const doc = parseJsonObject(item?.doc_json ?? null);
      const raw = c.fromEee && typeof doc?.raw === 'string' ? doc.raw : (item?.arg_context ?? '');
      const reference = c.fromEee && Array.isArray(doc?.reference) ? (doc.reference as string[]) : item?.target === null || item?.target === undefined ? [] : [item.target];
      const input: Json = { raw, formatted: item?.arg_context ?? null, reference };
      const choices = parseList(item?.choices_json ?? null);
      if (choices !== null) input.choices = choices;
      const metadata: Record<string, unknown> = {};
      if (item !== undefined) {
        metadata.doc_hash = item.doc_hash;
        if (item.prompt_hash !== null) metadata.prompt_hash = item.prompt_hash;
        if (item.doc_json !== null && !c.fromEee) metadata.doc_json = item.doc_json;
        if (item.logprobs.length > 0) metadata[LOGPROBS_KEY] = JSON.stringify(item.logprobs);
      }
      if (c.fromEee && doc?.metadata !== undefined && doc.metadata !== null && typeof doc.metadata === 'object') Object.assign(metadata, doc.metadata);
      // evaluation.score is a number; the value exactly as recorded is kept when its JSON says more (1.0, true).
      if (row.value_json !== toPythonJson(row.value)) metadata[VALUE_JSON_KEY] = row.value_json;
      for (const k of c.kept.get(row.doc_id) ?? []) metadata[`${KEPT_SCORE_PREFIX}${k.metric},${k.filter}`] = JSON.stringify([k.value, k.value_json]);
      const record: Json = {
        schema_version: c.version,
        evaluation_id: c.evaluationId,
        model_id: c.modelId,
        evaluation_name: c.task,
        evaluation_result_id: r.resultId,
        sample_id: row.doc_id,
        sample_hash: canonicalSampleHash(raw, reference),
        interaction_type: 'single_turn',
        input,
        output: { raw: (item?.texts ?? []).filter((t): t is string => t !== null) },
        answer_attribution: attribution(c, row.doc_id, r.filter, r.metric, item),
        evaluation: { score: row.value!, is_correct: row.value === 1 },
      };
      if (item?.tokens_in !== null && item?.tokens_out !== null && item !== undefined) {
        record.token_usage = { input_tokens: item.tokens_in, output_tokens: item.tokens_out, total_tokens: item.tokens_in + item.tokens_out };
      }
      if (item?.latency_ms !== null && item?.latency_ms !== undefined) record.performance = { latency_ms: item.latency_ms };
      if (item?.error !== null && item?.error !== undefined) record.error = item.error;
      if (Object.keys(metadata).length > 0) record.metadata = stringMap(metadata);
      out.push(record);
    }
  }
  return out;
}

/**
 * An answer attribution says which value was read from which output. A log-likelihood item generated no text: its
 * filtered response is lm-eval's (log-likelihood, is_greedy) pair of each choice, no answer, and written as the first
 * pair "extracted from output.raw" it named choice 0's log-likelihood as the answer of an empty output (the choices'
 * log-likelihoods are in metadata.logprobs): such an item has none.
 */
function attribution(c: RecordContext, docId: string, filter: string, metric: string, item: ItemRows | undefined): Json[] {
  if (!c.fromEee && item !== undefined && item.logprobs.length > 0 && item.texts.every((t) => t === null)) return [];
  const recorded = c.extractions.get(`${docId}\u001f${filter}`);
  // An Inspect log's extraction is the scorer's Score (its answer), stored under "<scorer>@<epoch or reduction>".
  const score = c.extractions.get(`${docId}\u001f${metric}@${filter}`);
  if ((recorded === undefined || recorded === null) && typeof score === 'string') {
    const answer = (parsePythonJson(score) as { answer?: unknown } | null)?.answer;
    return typeof answer === 'string' ? [{ turn_idx: 0, source: 'output.raw', extracted_value: answer, extraction_method: metric, is_terminal: true }] : [];
  }
  if (recorded === undefined || recorded === null) return [];
  const value = parsePythonJson(recorded);
  if (c.fromEee && Array.isArray(value)) return value as Json[];
  const first = Array.isArray(value) ? value[0] : value;
  return [{ turn_idx: 0, source: 'output.raw', extracted_value: typeof first === 'string' ? first : JSON.stringify(first), extraction_method: filter, is_terminal: true }];
}


function parseList(text: string | null): string[] | null {
  if (text === null) return null;
  try {
    const v: unknown = JSON.parse(text);
    return Array.isArray(v) ? v.map((x) => (typeof x === 'string' ? x : JSON.stringify(x))) : null;
  } catch {
    return null;
  }
}
