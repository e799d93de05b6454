/**
 * An Every Eval Ever aggregate (`EvaluationLog`) read into one shape, each schema version by its own rules
 * (interchange-formats.md §2.3): `eval_library` may be absent before 0.2.1, `detailed_evaluation_results` may
 * lack `format` and `file_path` before 0.2.3, `additional_details` may hold non-strings in 0.2.0 files. The
 * validator checks no version, so the declared one is checked here: an unknown version is refused.
 */
import { BadInputError, type InputLocation } from '../../errors.ts';
import { isPlainObject } from '../../util/json.ts';
import { fieldLine } from '../../util/jsonFieldLine.ts';

export type Json = Record<string, unknown>;

/** Versions of the aggregate schema read here, oldest first (0.0.1 kept per-sample results inline). */
export const EEE_VERSIONS = ['0.1.0', '0.2.0', '0.2.1', '0.2.2', '0.2.3', '0.3.0'] as const;
export type EeeVersion = (typeof EEE_VERSIONS)[number];

/** Each version's rules that change how a record is read. */
export function versionRules(version: EeeVersion): string[] {
  const at = EEE_VERSIONS.indexOf(version);
  const rules: string[] = [];
  if (at < EEE_VERSIONS.indexOf('0.2.1')) {
    rules.push('eval_library optional (required from 0.2.1)', 'input.reference and output.raw may be strings, score may be a boolean, messages may be named interactions (before 0.2.1)');
  }
  if (at < EEE_VERSIONS.indexOf('0.2.3')) {
    rules.push('detailed_evaluation_results.file_path not bound to the datastore layout; model deployment fields optional (before 0.2.3)');
  }
  return rules;
}

export interface EeeResult {
  index: number;
  evaluation_name: string;
  evaluation_result_id: string | null;
  score: number;
  raw: Json;
}

export interface SamplesPointer {
  file_path: string;
  hash_algorithm: 'sha256' | 'md5';
  checksum: string | null;
  total_rows: number | null;
}

export interface EeeAggregate {
  file: string;
  /** Line of the record in a JSONL of aggregates (undefined: a .json file). */
  line: number | undefined;
  text: string;
  version: EeeVersion;
  evaluation_id: string;
  model_id: string;
  raw: Json;
  results: EeeResult[];
  samples: SamplesPointer | null;
}

/** Where a field of a record sits: a JSONL record's line, or the field's own line in a whole-JSON file. */
export function fieldAt(text: string, file: string, line: number | undefined, field: string): InputLocation {
  const found = line ?? fieldLine(text, field);
  return { file, ...(found === undefined ? {} : { line: found }), field };
}

/**
 * The declared version, checked: a version this reader does not know is refused, naming it. `where` is asked for only
 * then: an aggregate's field line is a scan of its text, which an import that goes through should not pay.
 */
export function checkedVersion(value: unknown, where: () => InputLocation): EeeVersion {
  if (typeof value !== 'string') throw new BadInputError(`schema_version is ${JSON.stringify(value) ?? 'missing'}, not a version string`, { ...where(), field: 'schema_version' });
  if (value === '0.0.1') {
    throw new BadInputError('EEE schema 0.0.1 (per-sample results inline, source_data at the top) is not read; lmaudit reads 0.1.0 to 0.3.0', { ...where(), field: 'schema_version' });
  }
  // The instance schema of 0.2.3 named itself instance_level_eval_0.2.3; records copy the aggregate's version.
  const plain = value.replace(/^instance_level_eval_/, '');
  if (!(EEE_VERSIONS as readonly string[]).includes(plain)) {
    throw new BadInputError(`unknown EEE schema_version ${JSON.stringify(value)}; lmaudit reads ${EEE_VERSIONS.join(', ')}`, { ...where(), field: 'schema_version' });
  }
  return plain as EeeVersion;
}

export function readAggregate(root: unknown, text: string, file: string, line: number | undefined): EeeAggregate {
  const at = (field: string): InputLocation => fieldAt(text, file, line, field);
  if (!isPlainObject(root)) throw new BadInputError('expected an EEE aggregate JSON object', { file, line: line ?? 1 });
  const version = checkedVersion(root.schema_version, () => at('schema_version'));
  if (typeof root.evaluation_id !== 'string') throw new BadInputError('evaluation_id must be a string', at('evaluation_id'));
  const model = root.model_info;
  if (!isPlainObject(model) || typeof model.id !== 'string') throw new BadInputError('model_info.id must be a string', at('model_info'));
  if (!Array.isArray(root.evaluation_results) || root.evaluation_results.length === 0) {
    throw new BadInputError('evaluation_results must be a non-empty array', at('evaluation_results'));
  }
  const results = root.evaluation_results.map((r, index): EeeResult => {
    const field = `evaluation_results[${index}]`;
    if (!isPlainObject(r) || typeof r.evaluation_name !== 'string') throw new BadInputError('each result needs an evaluation_name string', at(`${field}.evaluation_name`));
    const details = isPlainObject(r.score_details) ? r.score_details : {};
    // Before 0.2.1 a score could be a boolean; it reads as 1 or 0 (how the Pydantic models of then coerced it).
    const score = typeof details.score === 'boolean' && EEE_VERSIONS.indexOf(version) < EEE_VERSIONS.indexOf('0.2.1') ? Number(details.score) : details.score;
    if (typeof score !== 'number') throw new BadInputError(`score_details.score is ${JSON.stringify(details.score) ?? 'missing'}, not a number`, at(`${field}.score_details.score`));
    // A standard error of another type would be dropped without a word: refused as the score is.
    const se = isPlainObject(details.uncertainty) && isPlainObject(details.uncertainty.standard_error) ? details.uncertainty.standard_error.value : undefined;
    if (se !== undefined && se !== null && typeof se !== 'number') throw new BadInputError(`standard_error.value is ${JSON.stringify(se)}, not a number`, at(`${field}.score_details.uncertainty.standard_error.value`));
    const id = r.evaluation_result_id;
    return { index, evaluation_name: r.evaluation_name, evaluation_result_id: typeof id === 'string' ? id : null, score, raw: r };
  });
  const second = results.find((r, i) => r.evaluation_result_id !== null && results.findIndex((q) => q.evaluation_result_id === r.evaluation_result_id) !== i);
  if (second !== undefined) {
    throw new BadInputError(`evaluation_result_id ${JSON.stringify(second.evaluation_result_id)} is given to two results`, at(`evaluation_results[${second.index}].evaluation_result_id`));
  }
  if (root.eval_library === undefined && EEE_VERSIONS.indexOf(version) >= EEE_VERSIONS.indexOf('0.2.1')) {
    throw new BadInputError(`eval_library is required from schema 0.2.1 (this record says ${version})`, at('eval_library'));
  }
  return { file, line, text, version, evaluation_id: root.evaluation_id, model_id: model.id, raw: root, results, samples: samplesPointer(root, version, at) };
}

function samplesPointer(root: Json, version: EeeVersion, at: (key: string) => InputLocation): SamplesPointer | null {
  const d = root.detailed_evaluation_results;
  if (d === undefined || d === null) return null;
  if (!isPlainObject(d)) throw new BadInputError('detailed_evaluation_results must be an object', at('detailed_evaluation_results'));
  if (typeof d.file_path !== 'string') {
    if (EEE_VERSIONS.indexOf(version) >= EEE_VERSIONS.indexOf('0.2.3')) throw new BadInputError('file_path is required from schema 0.2.3', at('detailed_evaluation_results.file_path'));
    return null;
  }
  const algorithm = d.hash_algorithm ?? 'sha256';
  if (algorithm !== 'sha256' && algorithm !== 'md5') throw new BadInputError(`hash_algorithm ${JSON.stringify(algorithm)} is neither sha256 nor md5`, at('detailed_evaluation_results.hash_algorithm'));
  if (d.total_rows !== undefined && d.total_rows !== null && !(Number.isSafeInteger(d.total_rows) && (d.total_rows as number) >= 0)) {
    throw new BadInputError(`total_rows is ${JSON.stringify(d.total_rows)}, not a count`, at('detailed_evaluation_results.total_rows'));
  }
  return {
    file_path: d.file_path,
    hash_algorithm: algorithm,
    checksum: typeof d.checksum === 'string' ? d.checksum.toLowerCase() : null,
    total_rows: typeof d.total_rows === 'number' ? d.total_rows : null,
  };
}
