/**
 * The source's own configuration, key by key: for lm-eval runs, the results
 * file's `config`, `configs[task]` and top-level settings, compared under the
 * noise rules. The disclosure items say what moves a number; this says
 * everything the two records wrote, so a difference no disclosure field
 * covers (a dataset_kwargs, a renamed group) is still seen — and the noise
 * (clock readings, function addresses, '151643' vs 151643) is seen to be noise.
 */
import type { RunProvenance } from '../store/schema.ts';
import { isPlainObject } from '../util/json.ts';
import { compareValues, type NoiseRuleName } from './noise.ts';
import { rawResults } from './recordFiles.ts';
import { sanitizeModelName } from '../formats/lmevalModelName.ts';

export type SourceKeyVerdict = 'same' | 'differs' | 'only in A' | 'only in B';

export interface SourceKeyRow {
  key: string;
  a?: unknown;
  b?: unknown;
  verdict: SourceKeyVerdict;
  rules: NoiseRuleName[];
}

export interface SourceConfigDiff {
  available: boolean;
  why: string | null;
  /** Keys compared in all. */
  compared: number;
  /** Every key that is not plainly the same (differs, on one side only, or the same only under a noise rule). */
  rows: SourceKeyRow[];
}

/** Per-task tables of the results file, read at [task]. */
const PER_TASK = ['configs', 'versions', 'n-shot', 'n-samples', 'higher_is_better', 'task_hashes'];
/** Aggregates and bulky text that are results, not configuration. */
const SKIP = new Set(['results', 'groups', 'group_subtasks', 'samples', 'chat_template']);

function flatten(json: Record<string, unknown>, task: string): Map<string, unknown> {
  const out = new Map<string, unknown>();
  for (const [key, value] of Object.entries(json)) {
    if (SKIP.has(key)) continue;
    if (PER_TASK.includes(key)) {
      const perTask = isPlainObject(value) ? value[task] : undefined;
      if (isPlainObject(perTask) && key === 'configs') for (const [k, v] of Object.entries(perTask)) out.set(`configs.${k}`, v);
      else if (perTask !== undefined) out.set(key, perTask);
      continue;
    }
    if (key === 'config' && isPlainObject(value)) {
      for (const [k, v] of Object.entries(value)) out.set(`config.${k}`, v);
      continue;
    }
    out.set(key, value);
  }
  return out;
}

function compareKey(key: string, a: unknown, b: unknown): ReturnType<typeof compareValues> {
  // Compared as {key: value} so key-based rules (clock readings) apply.
  const leaf = key.split('.').at(-1)!;
  return compareValues({ [leaf]: a }, { [leaf]: b }, { hubId: key === 'model_name', loadedFrom: LOADED_FROM_KEYS.has(key) });
}

/** Keys whose paths name the weights or the dataset loaded: their folders are part of the name (noise.ts's loadedFrom). */
const LOADED_FROM_KEYS = new Set(['model_name', 'config.model_args', 'config.model', 'configs.dataset_path', 'configs.dataset_name', 'configs.dataset_kwargs']);

/**
 * model_name_sanitized is lm-eval's sanitize_model_name(model_name): where each side's value is that of its
 * model_name, it names the same model exactly when model_name does, so its verdict is model_name's (the Hub-id
 * case rule included: 'Qwen__Qwen2.5-7B' and 'qwen__qwen2.5-7B' come from 'Qwen/Qwen2.5-7B' and
 * 'qwen/qwen2.5-7B'). A value not derived from its side's model_name is compared as it is.
 */
function compareSanitized(fa: Map<string, unknown>, fb: Map<string, unknown>): ReturnType<typeof compareValues> {
  const [a, b] = [fa.get('model_name_sanitized'), fb.get('model_name_sanitized')];
  const plain = compareKey('model_name_sanitized', a, b);
  if (plain.equal) return plain;
  const [nameA, nameB] = [fa.get('model_name'), fb.get('model_name')];
  const derived = typeof nameA === 'string' && typeof nameB === 'string' && sanitizeModelName(nameA) === a && sanitizeModelName(nameB) === b;
  return derived ? compareKey('model_name', nameA, nameB) : plain;
}

export async function diffSourceConfig(runA: RunProvenance, taskA: string, runB: RunProvenance, taskB: string): Promise<SourceConfigDiff> {
  const [ra, rb] = [await rawResults(runA), await rawResults(runB)];
  if (ra.status !== 'read' || rb.status !== 'read') {
    const why = [ra.status === 'unavailable' ? `A: ${ra.why}` : null, rb.status === 'unavailable' ? `B: ${rb.why}` : null].filter(Boolean).join('; ');
    return { available: false, why, compared: 0, rows: [] };
  }
  const fa = flatten(ra.json, taskA);
  const fb = flatten(rb.json, taskB);
  const keys = [...new Set([...fa.keys(), ...fb.keys()])].sort();
  const rows: SourceKeyRow[] = [];
  for (const key of keys) {
    const inA = fa.has(key);
    const inB = fb.has(key);
    if (!inA || !inB) {
      rows.push(inA ? { key, a: fa.get(key), verdict: 'only in A', rules: [] } : { key, b: fb.get(key), verdict: 'only in B', rules: [] });
      continue;
    }
    const c = key === 'model_name_sanitized' ? compareSanitized(fa, fb) : compareKey(key, fa.get(key), fb.get(key));
    if (c.equal && c.rules.length === 0) continue;
    rows.push({ key, a: fa.get(key), b: fb.get(key), verdict: c.equal ? 'same' : 'differs', rules: c.rules });
  }
  return { available: true, why: null, compared: keys.length, rows };
}
