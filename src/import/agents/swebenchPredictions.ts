/**
 * SWE-bench prediction files in every shape the harness's get_predictions_from_file accepts: JSONL, a JSON list,
 * or a dict keyed by instance id (the harness takes the dict's values, so each needs its own instance_id).
 * Deviations are kept as recorded and flagged, never repaired: other key names, patches in Markdown fences or
 * after prose, placeholder patches with no hunk, extra keys.
 */
import { BadInputError } from '../../errors.ts';
import { checkingFieldLines } from '../../util/jsonFieldLine.ts';
import type { RecordNote } from '../../store/schema.ts';
import { isObject, note, parseJsonFile } from './agentRun.ts';

export interface Prediction {
  instance_id: string;
  model: string | null;
  /** model_patch (or the non-harness `prediction`), as recorded; null when absent or null. */
  patch: string | null;
  flags: string[];
}

export interface PredictionsFile {
  path: string;
  shape: 'jsonl' | 'json list' | 'dict by instance id';
  predictions: Prediction[];
  notes: RecordNote[];
}

const HARNESS_KEYS = ['instance_id', 'model_name_or_path', 'model_patch'];
const ALTERNATIVE_PATCH_KEYS = ['prediction'];
const ALTERNATIVE_MODEL_KEYS = ['model_name', 'model_id', 'model'];
/** Extra keys that claim an outcome (Blacksmith's `status: "PASSED"`, `execution_time_ms`), not just metadata. */
const CLAIM_KEY = /status|resolved|pass|score|time/i;

/** True when a file's head looks like SWE-bench predictions. */
export function looksLikePredictions(head: string): boolean {
  const text = head.trimStart();
  if (!/"(model_patch|prediction)"\s*:/.test(text)) return false;
  if (/"instance_id"\s*:/.test(text)) return true;
  // A dict keyed by instance id is claimed only when its records hold SWE-bench's own fields: the patch under
  // model_patch, or under prediction beside a model name (an OpenCompass predictions file is {"0": {origin_prompt,
  // prediction, gold}}: a prediction but no patch and no model).
  if (!/^\{\s*"[^"]+"\s*:\s*\{/.test(text)) return false;
  return /"model_patch"\s*:/.test(text) || /"(model_name_or_path|model_name|model_id|model)"\s*:/.test(text);
}

/** How `git apply` would see a patch: the reasons it would be rejected or is not a real change. */
export function patchFlags(patch: string | null): string[] {
  if (patch === null || patch === '') return ['empty'];
  const flags: string[] = [];
  const first = patch.split('\n').find((l) => l.trim() !== '') ?? '';
  if (/^\s*```/.test(first)) flags.push('fenced');
  else if (!/^(diff --git |--- |Index: |From [0-9a-f]{7,} )/.test(first)) flags.push('prose');
  if (!flags.includes('fenced') && /\n\s*```/.test(patch)) flags.push('contains_fence');
  if (!/^@@ -\d+(,\d+)? \+\d+(,\d+)? @@/m.test(patch)) flags.push('no_hunk');
  return flags;
}

export function readPredictions(path: string, text: string): PredictionsFile {
  const trimmed = text.trimStart();
  // A record's place: its line in JSONL, its path in a whole-JSON list or dict (whose line is found if it is refused).
  let records: { id: string | null; value: unknown; line?: number; path?: string }[];
  let shape: PredictionsFile['shape'];
  if (trimmed.startsWith('[')) {
    shape = 'json list';
    const data = parseJsonFile(text, path) as unknown[];
    records = data.map((value, i) => ({ id: null, value, path: `[${i}]` }));
  } else if (/\.jsonl$/i.test(path) || !isWholeJson(text)) {
    shape = 'jsonl';
    records = [];
    text.split('\n').forEach((line, i) => {
      if (line.trim() === '') return;
      let value: unknown;
      try {
        value = JSON.parse(line);
      } catch (error) {
        throw new BadInputError(`not valid JSON (${(error as Error).message.split('\n')[0]})`, { file: path, line: i + 1 });
      }
      records.push({ id: null, value, line: i + 1 });
    });
  } else {
    shape = 'dict by instance id';
    const data = parseJsonFile(text, path);
    if (!isObject(data)) throw new BadInputError('predictions must be a JSON list, JSONL, or a dict keyed by instance id', { file: path });
    records = Object.entries(data).map(([id, value]) => ({ id, value, path: id }));
  }
  const notes: RecordNote[] = [];
  const extraKeys = new Set<string>();
  // Each non-harness key read, with the harness key it stands in for.
  const usedAlternatives = new Map<string, string>();
  let dictWithoutId = 0;
  let idMismatch = 0;
  const predictions: Prediction[] = checkingFieldLines(text, { file: path }, () => records.map((r) => {
    const at = (key?: string) => (r.line !== undefined ? { file: path, line: r.line, ...(key === undefined ? {} : { field: key }) } : { file: path, field: key === undefined ? r.path! : `${r.path!}.${key}` });
    if (!isObject(r.value)) throw new BadInputError('a prediction is not a JSON object', at());
    const v = r.value;
    const ownId = typeof v.instance_id === 'string' ? v.instance_id : null;
    if (r.id !== null && ownId === null) dictWithoutId++;
    if (r.id !== null && ownId !== null && ownId !== r.id) idMismatch++;
    const id = ownId ?? r.id;
    if (id === null) throw new BadInputError(v.instance_id === undefined || v.instance_id === null ? 'a prediction has no instance_id' : `instance_id is not a string (${JSON.stringify(v.instance_id)})`, at('instance_id'));
    for (const key of Object.keys(v)) if (!HARNESS_KEYS.includes(key)) extraKeys.add(key);
    let patchKey = 'model_patch';
    if (!('model_patch' in v)) {
      patchKey = ALTERNATIVE_PATCH_KEYS.find((k) => k in v) ?? 'model_patch';
      if (patchKey !== 'model_patch') usedAlternatives.set(patchKey, 'model_patch');
    }
    const patch = v[patchKey];
    if (patch !== undefined && patch !== null && typeof patch !== 'string') throw new BadInputError(`${patchKey} is not a string`, at(patchKey));
    let model: string | null = typeof v.model_name_or_path === 'string' ? v.model_name_or_path : null;
    if (model === null) {
      const alt = ALTERNATIVE_MODEL_KEYS.find((k) => typeof v[k] === 'string');
      if (alt !== undefined) {
        usedAlternatives.set(alt, 'model_name_or_path');
        model = v[alt] as string;
      }
    }
    return { instance_id: id, model, patch: (patch as string | null | undefined) ?? null, flags: patchFlags((patch as string | null | undefined) ?? null) };
  }));
  const seen = new Set<string>();
  const dup = predictions.filter((p) => (seen.has(p.instance_id) ? true : (seen.add(p.instance_id), false)));
  if (dup.length > 0) notes.push(note('duplicate_instance', `${dup.length} instance id(s) appear more than once; the harness keeps the last`, dup.slice(0, 5).map((p) => p.instance_id)));
  const nonHarness = [...extraKeys].filter((k) => !usedAlternatives.has(k));
  if (usedAlternatives.size > 0) {
    const uses = [...usedAlternatives].map(([key, harnessKey]) => `'${key}' where the harness reads '${harnessKey}'`).join(', ');
    notes.push(note('non_harness_keys', `the file uses ${uses}: the harness would fail on it as it is (kept, not renamed)`, [path]));
  }
  if (nonHarness.length > 0) {
    const claim = nonHarness.some((k) => CLAIM_KEY.test(k)) ? ' (a claimed status or timing in a predictions file is not an evaluation)' : '';
    notes.push(note('extra_keys', `keys the harness ignores: ${nonHarness.sort().join(', ')}${claim}`, [path]));
  }
  const missingModel = predictions.filter((p) => p.model === null).length;
  if (missingModel > 0) notes.push(note('missing_model', `${missingModel} of ${predictions.length} predictions have no model_name_or_path: the harness needs it to name the log folder and the run summary`, [path]));
  if (dictWithoutId > 0) notes.push(note('dict_without_instance_id', `${dictWithoutId} dict entries have no instance_id of their own; the harness reads only the dict's values, so it could not evaluate them (the key is used as the id here)`, [path]));
  if (idMismatch > 0) notes.push(note('dict_key_mismatch', `${idMismatch} dict keys differ from their entry's instance_id (the entry's own id is used, as the harness does)`, [path]));
  const count = (flag: string) => predictions.filter((p) => p.flags.includes(flag));
  const flagNotes: [string, string][] = [
    ['fenced', 'wrapped in a Markdown code fence, which git apply rejects'],
    ['prose', 'starting with prose instead of a diff header, which git apply rejects'],
    ['no_hunk', 'with no @@ hunk header: not an applicable change (placeholder or garbage)'],
    ['contains_fence', 'containing a Markdown fence inside'],
  ];
  for (const [flag, what] of flagNotes) {
    const hit = count(flag);
    if (hit.length > 0) notes.push(note(`patch_${flag}`, `${hit.length} of ${predictions.length} patches ${what}`, hit.slice(0, 5).map((p) => p.instance_id)));
  }
  const empty = count('empty');
  if (empty.length > 0) notes.push(note('empty_patch', `${empty.length} of ${predictions.length} patches are empty: the harness counts them as submitted and never evaluates them (resolved ÷ total or ÷ submitted counts them as failures)`, empty.slice(0, 5).map((p) => p.instance_id)));
  return { path, shape, predictions, notes };
}

function isWholeJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}
