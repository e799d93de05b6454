/**
 * The Every Eval Ever importer: aggregates (`<uuid>.json`, or a JSONL of aggregates, one per line) with the
 * `<uuid>_samples.jsonl` their `detailed_evaluation_results` points to, in the datastore's
 * `data/<benchmark>/<developer>/<model>/` layout or any folder holding both. One aggregate is one run. An
 * aggregate whose samples file is not beside it is imported as results only, saying so; a samples file with
 * no aggregate is imported as per-item records only. A file is claimed only when it has the fields its
 * record kind requires.
 */
import { access } from 'node:fs/promises';
import { basename, dirname, extname, join, resolve } from 'node:path';
import { BadInputError } from '../../errors.ts';
import { emptyRunProvenance, emptyTaskProvenance, recorded, same, type RecordNote, type RunProvenance } from '../../store/schema.ts';
import { sha256Hex } from '../../util/hash.ts';
import { parsePythonJson } from '../../util/json.ts';
import { readUtf8File } from '../../util/utf8.ts';
import { SAMPLE_HASH_RECIPES, sampleHashRecipes } from '../../formats/eeeSampleHash.ts';
import type { Companion, FileProbe, ImportedRun, Importer } from '../types.ts';
import { readAggregate, type EeeAggregate } from './aggregate.ts';
import { resultTargets, runProvenance } from './provenance.ts';
import { readSamplesFile, type SamplesFile } from './samples.ts';
import { recordTables, type EeeTables } from './tables.ts';

/** Each key present with a value of its kind (a JSON Schema that names these keys as properties does not match). */
const hasKeys = (text: string, keys: readonly string[]) => keys.every((k) => new RegExp(`"${k}"\\s*:\\s*${KIND[k] ?? '[^\\s]'}`).test(text));
const firstLine = (head: string) => head.replace(/^\uFEFF/, '').trimStart().split('\n', 1)[0] ?? '';

const KIND: Record<string, string> = {
  schema_version: '"', evaluation_id: '"', source_metadata: '\\{', model_info: '\\{', evaluation_results: '\\[',
  model_id: '"', evaluation_name: '"', sample_id: '["\\d]', interaction_type: '"', input: '\\{',
  object_path: '"', record_type: '"', eval_schema_version: '"',
};
/** KIND's patterns in words. */
const KIND_NAME: Record<string, string> = { '"': 'a string', '\\{': 'an object', '\\[': 'a list', '["\\d]': 'a string or a number' };

/** The keys every aggregate version from 0.1.0 requires (EvaluationLog's `required`). */
const AGGREGATE_KEYS = ['schema_version', 'evaluation_id', 'source_metadata', 'model_info', 'evaluation_results'] as const;
/** The keys every instance record requires. */
const RECORD_KEYS = ['schema_version', 'evaluation_id', 'model_id', 'evaluation_name', 'sample_id', 'interaction_type', 'input'] as const;

export function looksLikeEeeAggregate(p: FileProbe): boolean {
  const ext = extname(p.name).toLowerCase();
  if (ext === '.json') return p.head.trimStart().startsWith('{') && (hasKeys(p.head, AGGREGATE_KEYS) || cutShortAggregate(p));
  return ext === '.jsonl' && hasKeys(firstLine(p.head), AGGREGATE_KEYS);
}

/**
 * An aggregate whose text ends before its required keys: the whole file is in the head (under 64 KiB) and is not
 * JSON. Claimed, so that reading it says where it breaks off (exit 2, file and line); listed as 'without the keys
 * every schema version requires', a file cut short by a copy passed for a foreign one and the import went on.
 */
function cutShortAggregate(p: FileProbe): boolean {
  if (!hasKeys(p.head, ['schema_version', 'evaluation_id']) || Buffer.byteLength(p.head) >= 64 * 1024) return false;
  try {
    JSON.parse(p.head);
    return false;
  } catch {
    return true;
  }
}

export function looksLikeEeeSamples(p: FileProbe): boolean {
  return extname(p.name).toLowerCase() === '.jsonl' && hasKeys(firstLine(p.head), RECORD_KEYS);
}

/**
 * EEE files lmaudit does not import, said so rather than guessed at: the datastore's flat index (rows pointing at
 * objects), and a record that starts like an EEE one but lacks keys every version requires.
 */
export function eeeForeignReason(p: FileProbe): string | null {
  const ext = extname(p.name).toLowerCase();
  const text = ext === '.jsonl' ? firstLine(p.head) : ext === '.json' ? p.head : '';
  if (ext === '.json' && /^\{\s*"\$schema"\s*:\s*"https?:\/\/json-schema\.org\//.test(p.head.trimStart())) return 'a JSON Schema (a description of records, such as EEE\'s own schemas), not an output file';
  if (ext === '.jsonl' && hasKeys(text, ['object_path', 'record_type', 'eval_schema_version'])) {
    return 'an Every Eval Ever datastore index (rows that point at aggregate objects), not records: import the objects it lists (flat/objects/…)';
  }
  if (!hasKeys(text, ['schema_version', 'evaluation_id']) || looksLikeEeeAggregate(p) || looksLikeEeeSamples(p)) return null;
  const kind = hasKeys(text, ['model_id']) || hasKeys(text, ['sample_id']) ? RECORD_KEYS : AGGREGATE_KEYS;
  const failing = kind.filter((k) => !hasKeys(text, [k]));
  // A key that is there with a value of another type is not missing: say which type it should have.
  const present = failing.filter((k) => new RegExp(`"${k}"\\s*:`).test(text));
  const missing = failing.filter((k) => !present.includes(k));
  const what = kind === RECORD_KEYS ? 'instance record' : 'aggregate';
  return [
    ...(missing.length > 0 ? [`an Every Eval Ever ${what} without the key(s) every schema version requires: ${missing.join(', ')}`] : []),
    ...(present.length > 0 ? [`an Every Eval Ever ${what} whose ${present.map((k) => `${k} is not ${KIND_NAME[KIND[k]!]}`).join(', ')}`] : []),
  ].join('; ');
}

export const eeeImporter: Importer = {
  name: 'eee',
  claims: (p) => looksLikeEeeAggregate(p) || looksLikeEeeSamples(p),
  async companions(p): Promise<Companion[]> {
    // A samples file named alone is checked against the aggregate beside it (same uuid), as the validator does.
    if (looksLikeEeeSamples(p) && p.name.endsWith('_samples.jsonl')) {
      const aggregate = join(dirname(p.path), `${p.name.slice(0, -'_samples.jsonl'.length)}.json`);
      return (await access(aggregate).then(() => true, () => false)) ? [{ path: aggregate, with: p.path, why: 'the aggregate this samples file belongs to (same uuid)' }] : [];
    }
    if (!looksLikeEeeAggregate(p) || extname(p.name).toLowerCase() !== '.json') return [];
    const text = await readUtf8File(p.path);
    const aggregate = readAggregate(parsePythonJson(text, { file: p.path }), text, p.path, undefined);
    const beside = aggregate.samples === null ? null : await samplesBeside(p.path, aggregate.samples.file_path);
    return beside === null ? [] : [{ path: beside, with: p.path, why: 'the samples file its detailed_evaluation_results points to' }];
  },
  async importFiles(files) {
    const samplesProbes = files.filter(looksLikeEeeSamples);
    const used = new Set<string>();
    const runs: ImportedRun[] = [];
    for (const p of files.filter((f) => !looksLikeEeeSamples(f))) {
      for (const aggregate of await readAggregates(p.path)) {
        const beside = aggregate.samples === null ? null : await samplesBeside(p.path, aggregate.samples.file_path);
        if (beside !== null) used.add(resolve(beside));
        runs.push(await aggregateRun(aggregate, beside === null ? null : await readSamplesFile(beside, aggregate)));
      }
    }
    for (const p of samplesProbes.filter((s) => !used.has(resolve(s.path)))) runs.push(samplesOnlyRun(await readSamplesFile(p.path, null)));
    return runs;
  },
};

async function readAggregates(file: string): Promise<EeeAggregate[]> {
  const text = await readUtf8File(file);
  if (extname(file).toLowerCase() === '.json') return [readAggregate(parsePythonJson(text, { file }), text, file, undefined)];
  const out: EeeAggregate[] = [];
  text.split('\n').forEach((line, i) => {
    if (line.trim() !== '') out.push(readAggregate(parsePythonJson(line, { file, line: i + 1 }), line, file, i + 1));
  });
  return out;
}

/** The samples file of a pointer, found beside the aggregate (the datastore path is repository-relative). */
async function samplesBeside(aggregateFile: string, filePath: string): Promise<string | null> {
  for (const candidate of [join(dirname(aggregateFile), basename(filePath)), join(dirname(aggregateFile), filePath)]) {
    if (await access(candidate).then(() => true, () => false)) return candidate;
  }
  return null;
}

async function aggregateRun(aggregate: EeeAggregate, samples: SamplesFile | null): Promise<ImportedRun> {
  const aggregateSha = sha256Hex(aggregate.text);
  const runId = `eee-${sha256Hex(`${aggregateSha}\u001f${samples?.sha256 ?? ''}`).slice(0, 16)}`;
  const files = [{ path: aggregate.file, sha256: aggregateSha, role: aggregate.line === undefined ? 'eee-aggregate' : `eee-aggregate line ${aggregate.line}` }];
  if (samples !== null) files.push({ path: samples.file, sha256: samples.sha256, role: 'eee-samples' });
  const provenance = runProvenance(aggregate, runId, files);
  const targets = resultTargets(aggregate);
  const tables = recordTables(runId, aggregate, targets, samples === null ? [] : [samples]);
  if (samples === null) {
    const pointer = aggregate.samples;
    provenance.notes.push({
      task: null,
      kind: 'eee_results_only',
      message: pointer === null
        ? 'the aggregate points to no samples file: imported as results only (its scores, no per-item rows)'
        : `the samples file it points to (${pointer.file_path}${pointer.total_rows === null ? '' : `, ${pointer.total_rows} rows`}) is not beside it: imported as results only (its scores, no per-item rows)`,
      evidence: [aggregate.file],
    });
  }
  for (const [name, count] of tables.unjoined) {
    provenance.notes.push({ task: name, kind: 'eee_unjoined', message: `${count} record(s) name evaluation '${name}', which has several results, and carry no evaluation_result_id: their score is stored under metric 'evaluation.score', joined to no one result`, evidence: [samples!.file] });
  }
  if (samples !== null) provenance.notes.push(...hashNotes(samples), ...letterGoldNotes(tables, samples.file));
  for (const [task, block] of Object.entries(provenance.tasks)) {
    const docs = new Set(tables.instances.filter((r) => r.task === task).map((r) => r.doc_id));
    if (samples !== null && provenance.records.exported_run_id === undefined && block.samples.document_count?.used.status === 'unknown') {
      const configured = block.samples.document_count.configured;
      block.samples.document_count = { configured: configured.status === 'unknown' ? recorded(docs.size, 'distinct sample_id in the samples file') : configured, used: recorded(docs.size, 'distinct sample_id in the samples file') };
    }
  }
  return { provenance, tables: { instances: { rows: tables.instances }, responses: { rows: tables.responses }, scores: { rows: tables.scores }, filtered: { rows: tables.filtered } }, skipped: [] };
}

function samplesOnlyRun(samples: SamplesFile): ImportedRun {
  const first = samples.records[0]!;
  const other = samples.records.find((r) => r.evaluation_id !== first.evaluation_id || r.model_id !== first.model_id);
  if (other !== undefined) {
    const field = other.evaluation_id !== first.evaluation_id ? 'evaluation_id' : 'model_id';
    throw new BadInputError(`records of two evaluations in one samples file (line ${first.line} says ${JSON.stringify(first[field])}, this line ${JSON.stringify(other[field])})`, { file: samples.file, line: other.line, field });
  }
  const runId = `eee-${samples.sha256.slice(0, 16)}`;
  const p: RunProvenance = emptyRunProvenance({ run_id: runId, label: samples.file, source_kind: 'eee', source_format: `eee ${first.version} (samples without an aggregate)` });
  p.model.model_id = same(recorded(first.model_id, 'model_id'));
  p.records.files = same(recorded([{ path: samples.file, sha256: samples.sha256, role: 'eee-samples' }], 'import'));
  p.records.eee_schema_version = same(recorded(first.version, 'schema_version'));
  p.records.evaluation_id = same(recorded(first.evaluation_id, 'evaluation_id'));
  const tables = recordTables(runId, null, new Map(), [samples]);
  for (const task of new Set(tables.instances.map((r) => r.task as string))) {
    const block = emptyTaskProvenance();
    block.task.name = same(recorded(task, 'evaluation_name'));
    block.samples.document_count = same(recorded(tables.instances.filter((r) => r.task === task).length, 'distinct sample_id in the samples file'));
    p.tasks[task] = block;
  }
  p.notes.push(
    { task: null, kind: 'eee_no_aggregate', message: `no aggregate found for evaluation_id ${JSON.stringify(first.evaluation_id)}: per-item records only (no reported scores, no run settings)`, evidence: [samples.file] },
    ...hashNotes(samples),
    ...letterGoldNotes(tables, samples.file),
  );
  return { provenance: p, tables: { instances: { rows: tables.instances }, responses: { rows: tables.responses }, scores: { rows: tables.scores }, filtered: { rows: tables.filtered } }, skipped: [] };
}

/** Items read against their correct option's letter (tables.ts goldOf), and those whose letter the record does not show. */
function letterGoldNotes(tables: EeeTables, file: string): RecordNote[] {
  const notes: RecordNote[] = [];
  for (const [task, { lettered, unknown }] of tables.letterGolds) {
    if (lettered > 0) {
      notes.push({ task, kind: 'eee_gold_letter', message: `${lettered} multiple-choice ${lettered === 1 ? 'item is' : 'items are'} read against the letter of the correct option: the record's reference is the option's text, the model answers with a letter, and input.raw lists the choices as 'A. <option>' lines (HELM's multiple_choice_joint)`, evidence: [file] });
    }
    if (unknown.length > 0) {
      notes.push({ task, kind: 'eee_gold_letter_unknown', message: `${unknown.length} ${unknown.length === 1 ? 'item answers' : 'items answer'} with a letter where the reference is an option's text, and input.raw does not list the choices as 'A. <option>' lines: which letter is correct is unknown, so ${unknown.length === 1 ? 'it is' : 'they are'} read against the text, where a letter scores 0`, evidence: unknown.slice(0, 10).map((line) => `${file} line ${line}`) });
    }
  }
  return notes;
}

/** Each record's sample_hash recomputed by every known recipe: which matched, and the records none did. */
function hashNotes(samples: SamplesFile): RecordNote[] {
  const counts = new Map<string, number>();
  const none: string[] = [];
  let absent = 0;
  for (const r of samples.records) {
    if (r.sample_hash === null) {
      absent++;
      continue;
    }
    const found = sampleHashRecipes(r.sample_hash, r.raw, r.reference);
    if (found.length === 0) none.push(`line ${r.line} (sample ${r.sample_id})`);
    else counts.set(found.join(' = '), (counts.get(found.join(' = ')) ?? 0) + 1);
  }
  const parts = [...counts].map(([recipes, n]) => `${n} by ${recipes.split(' = ').map((k) => SAMPLE_HASH_RECIPES[k as keyof typeof SAMPLE_HASH_RECIPES]).join(' = ')}`);
  if (none.length > 0) parts.push(`${none.length} by no known recipe`);
  if (absent > 0) parts.push(`${absent} without one`);
  return [{ task: null, kind: none.length > 0 ? 'eee_sample_hash_unverified' : 'eee_sample_hash', message: `sample_hash of ${samples.records.length} record(s) recomputed: ${parts.join('; ')}`, evidence: none.slice(0, 10) }];
}
