/**
 * An EEE `_samples.jsonl` read and checked as EEE's validator checks a companion file (interchange-formats.md
 * §2.1): the aggregate's checksum over the exact bytes, `total_rows` against the non-blank lines, every line's
 * `evaluation_id` and `model_id` against the aggregate's, and each record's `evaluation_result_id` (or, without
 * one, its `evaluation_name`) against the aggregate's results. Any mismatch is bad input naming file, line
 * and field. Older records are read by their version's rules (string reference and raw, boolean score,
 * `interactions` for `messages`).
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { BadInputError } from '../../errors.ts';
import { isPlainObject, parsePythonJson } from '../../util/json.ts';
import { decodeUtf8 } from '../../util/utf8.ts';
import { member, parseOrdered, pyDumps } from '../../py/orderedJson.ts';
import { checkedVersion, fieldAt, type EeeAggregate, type EeeResult, type EeeVersion, type Json } from './aggregate.ts';

export interface EeeRecord {
  line: number;
  version: EeeVersion;
  evaluation_id: string;
  model_id: string;
  evaluation_name: string;
  evaluation_result_id: string | null;
  sample_id: string;
  sample_hash: string | null;
  raw: string;
  formatted: string | null;
  reference: string[];
  choices: string[] | null;
  /** The responses: output.raw, or for multi-turn and agentic records the assistant messages' text. */
  outputs: string[];
  score: number;
  /** The score exactly as written, as JSON text (a boolean in records before 0.2.1). */
  score_text: string;
  record: Json;
}

export interface SamplesFile {
  file: string;
  sha256: string;
  records: EeeRecord[];
}

const strings = (v: unknown): string[] | null => (Array.isArray(v) ? v.map((x) => (typeof x === 'string' ? x : JSON.stringify(x))) : typeof v === 'string' ? [v] : null);

/** Reads a samples file and checks it line by line; `aggregate` (when there is one) is what it must agree with. */
export async function readSamplesFile(file: string, aggregate: EeeAggregate | null): Promise<SamplesFile> {
  const bytes = await readFile(file).catch((e: Error) => {
    throw new BadInputError(`cannot read the samples file (${e.message})`, { file });
  });
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  const pointer = aggregate?.samples ?? null;
  if (aggregate !== null && pointer?.checksum) {
    const digest = pointer.hash_algorithm === 'md5' ? createHash('md5').update(bytes).digest('hex') : sha256;
    if (digest !== pointer.checksum) {
      throw new BadInputError(
        `checksum mismatch: the aggregate records ${pointer.hash_algorithm} ${pointer.checksum} for ${pointer.file_path}, but ${file} hashes to ${digest}`,
        fieldAt(aggregate.text, aggregate.file, aggregate.line, 'detailed_evaluation_results.checksum'),
      );
    }
  }
  const lines = decodeUtf8(bytes, file).split('\n');
  if (lines.at(-1) === '') lines.pop();
  const nonBlank = lines.filter((l) => l.trim() !== '').length;
  if (aggregate !== null && pointer !== null && pointer.total_rows !== null && pointer.total_rows !== nonBlank) {
    throw new BadInputError(
      `total_rows is ${pointer.total_rows}, but ${file} has ${nonBlank} non-blank line(s)`,
      fieldAt(aggregate.text, aggregate.file, aggregate.line, 'detailed_evaluation_results.total_rows'),
    );
  }
  if (nonBlank === 0) throw new BadInputError('a samples file needs at least one record', { file, line: 1 });
  const records: EeeRecord[] = [];
  lines.forEach((text, i) => {
    if (text.trim() === '') return;
    const record = readRecord(parsePythonJson(text, { file, line: i + 1 }), file, i + 1, aggregate);
    // The score as written (1.0 stays 1.0): the store keeps each value exactly as recorded.
    const written = member(member(parseOrdered(text, { file, line: i + 1 }), 'evaluation'), 'score');
    if (written !== undefined) record.score_text = pyDumps(written);
    records.push(record);
  });
  return { file, sha256, records };
}

function readRecord(value: unknown, file: string, line: number, aggregate: EeeAggregate | null): EeeRecord {
  const at = (field: string) => ({ file, line, field });
  if (!isPlainObject(value)) throw new BadInputError('expected an EEE instance record (a JSON object)', { file, line });
  const version = checkedVersion(value.schema_version, () => at('schema_version'));
  const old = version === '0.1.0' || version === '0.2.0';
  for (const key of ['evaluation_id', 'model_id', 'evaluation_name'] as const) {
    if (typeof value[key] !== 'string') throw new BadInputError(`${key} must be a string`, at(key));
  }
  const evaluationId = value.evaluation_id as string;
  const modelId = value.model_id as string;
  const resultId = typeof value.evaluation_result_id === 'string' ? value.evaluation_result_id : null;
  if (aggregate !== null) {
    if (evaluationId !== aggregate.evaluation_id) {
      throw new BadInputError(`a record of another evaluation: evaluation_id ${JSON.stringify(evaluationId)}, the aggregate's is ${JSON.stringify(aggregate.evaluation_id)} (${aggregate.file})`, at('evaluation_id'));
    }
    if (modelId !== aggregate.model_id) {
      throw new BadInputError(`a record of another model: model_id ${JSON.stringify(modelId)}, the aggregate's model_info.id is ${JSON.stringify(aggregate.model_id)}`, at('model_id'));
    }
    const joins = resultsOf(aggregate, resultId, value.evaluation_name as string);
    if (joins.length === 0) {
      const named = resultId !== null ? `evaluation_result_id ${JSON.stringify(resultId)}` : `evaluation_name ${JSON.stringify(value.evaluation_name)}`;
      throw new BadInputError(`${named} is none of the aggregate's results (${aggregate.results.map((r) => r.evaluation_result_id ?? r.evaluation_name).join(', ')})`, at(resultId !== null ? 'evaluation_result_id' : 'evaluation_name'));
    }
  }
  const sampleId = value.sample_id;
  if (!(typeof sampleId === 'string' || (old && typeof sampleId === 'number'))) throw new BadInputError(`sample_id is ${JSON.stringify(sampleId) ?? 'missing'}, not a string`, at('sample_id'));
  const input = isPlainObject(value.input) ? value.input : undefined;
  if (input === undefined || typeof input.raw !== 'string') throw new BadInputError('input.raw must be a string', at('input.raw'));
  // A plain string was the form before 0.2.1 (for reference and output.raw); from 0.2.1 both are lists.
  const reference = old || Array.isArray(input.reference) ? strings(input.reference) : null;
  if (reference === null) throw new BadInputError('input.reference must be a list of strings', at('input.reference'));
  const output = isPlainObject(value.output) ? value.output : undefined;
  if (!old && output !== undefined && !Array.isArray(output.raw)) throw new BadInputError('output.raw must be a list of strings', at('output.raw'));
  const evaluation = isPlainObject(value.evaluation) ? value.evaluation : undefined;
  const scoreJson = evaluation?.score;
  const score = typeof scoreJson === 'boolean' && old ? Number(scoreJson) : scoreJson;
  if (typeof score !== 'number') throw new BadInputError(`evaluation.score is ${JSON.stringify(scoreJson) ?? 'missing'}, not a number`, at('evaluation.score'));
  checkTokenUsage(value.token_usage, at);
  return {
    line,
    version,
    evaluation_id: evaluationId,
    model_id: modelId,
    evaluation_name: value.evaluation_name as string,
    evaluation_result_id: resultId,
    sample_id: String(sampleId),
    sample_hash: typeof value.sample_hash === 'string' ? value.sample_hash : null,
    raw: input.raw,
    formatted: typeof input.formatted === 'string' ? input.formatted : null,
    reference,
    choices: strings(input.choices),
    outputs: outputsOf(value),
    score,
    score_text: JSON.stringify(scoreJson),
    record: value,
  };
}

/**
 * token_usage as EEE's schema has it: an object (or null) whose counts are integers from 0. Read leniently, a count
 * written as text ("12") was stored as unknown, so the tokens vanished from `view` and from an export, unsaid.
 */
function checkTokenUsage(usage: unknown, at: (field: string) => { file: string; line: number; field: string }): void {
  if (usage === undefined || usage === null) return;
  if (!isPlainObject(usage)) throw new BadInputError(`token_usage is ${JSON.stringify(usage)}, not an object`, at('token_usage'));
  for (const key of ['input_tokens', 'output_tokens', 'total_tokens', 'input_tokens_cache_write', 'input_tokens_cache_read', 'reasoning_tokens']) {
    const v = usage[key];
    if (v !== undefined && v !== null && !(typeof v === 'number' && Number.isSafeInteger(v) && v >= 0)) {
      throw new BadInputError(`token_usage.${key} is ${JSON.stringify(v)}, not a count (an integer from 0)`, at(`token_usage.${key}`));
    }
  }
}

/** The aggregate results a record belongs to: by evaluation_result_id, else every result of its evaluation_name. */
export function resultsOf(aggregate: EeeAggregate, resultId: string | null, evaluationName: string): EeeResult[] {
  if (resultId !== null) return aggregate.results.filter((r) => r.evaluation_result_id === resultId);
  return aggregate.results.filter((r) => r.evaluation_name === evaluationName);
}

function outputsOf(record: Json): string[] {
  const output = isPlainObject(record.output) ? record.output : undefined;
  if (output !== undefined) return strings(output.raw) ?? [];
  const messages = record.messages ?? record.interactions;
  if (!Array.isArray(messages)) return [];
  const replies = messages.filter((m) => isPlainObject(m) && m.role === 'assistant' && typeof m.content === 'string');
  return replies.length === 0 ? [] : [(replies.at(-1) as Json).content as string];
}
