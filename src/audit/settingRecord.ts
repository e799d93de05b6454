/**
 * One run's record of a setting, read for comparison: its value in a comparable shape (record files by role, batch
 * sizes as one number, a group's lists as sets), its configured value projected onto the used value's shape, and
 * whether the two agree: resolved (`auto` and what it chose), completed by the harness, or contradicting each other.
 * settingsDiff.ts puts two runs' records side by side with these.
 */
import type { DisclosureItem, Setting } from '../store/schema.ts';
import { compareValues, type CanonicalOptions } from './noise.ts';
import { isKnown } from './provenanceView.ts';
import { isPlainObject } from '../util/json.ts';
import { lmevalRequestShape } from '../formats/lmevalGenKwargs.ts';

/** A row's item: a disclosure item, or the agent settings of agent runs (RunProvenance.agent). */
export type SettingsItem = DisclosureItem | 'agent';

/**
 * Record files identify a run rather than configure it: their paths, names and
 * hashes always differ between two runs, so they compare by role only (both
 * have results and samples, or not).
 */
export function comparableValue(item: SettingsItem, field: string, value: unknown): unknown {
  if (item === 'records' && field === 'files' && Array.isArray(value)) {
    // 'samples:<task>' compares as 'samples': the task name is compared where it belongs (task.name).
    return value.map((f) => String((f as { role?: string }).role ?? '?').split(':')[0]).sort();
  }
  // lm-eval records the sizes it ran at as a list (`batch_sizes: [8]`) beside the configured "8".
  if (item === 'model' && field === 'batch_size') {
    const one = Array.isArray(value) && value.length === 1 ? value[0] : value;
    if (typeof one === 'number' || (typeof one === 'string' && /^\d+$/.test(one))) return String(one);
  }
  // Inspect's scoring.metrics is results.scores: each metric with the value it came to (as-recorded rescoring reads
  // them there). The values are the reported numbers, not the metrics' definitions: two runs of one scorer whose
  // accuracies differ (0.667 and 0.8) did not use different metrics, which the falsifier said they had.
  if (item === 'scoring' && field === 'metrics' && Array.isArray(value)) {
    return value.map((s) =>
      isPlainObject(s) && Array.isArray(s.metrics) ? { ...s, metrics: s.metrics.map((m) => (isPlainObject(m) ? Object.fromEntries(Object.entries(m).filter(([k]) => k !== 'value')) : m)) } : s,
    );
  }
  // One request in two spellings: lm-eval records the kwargs a request asked for (its CLI writes `--gen_kwargs
  // until=x` as the string, `max_new_tokens=5` under that name), lmaudit run what its backend received after
  // normalize_gen_kwargs (["x"], max_gen_toks 5). Both compare as the backend receives them.
  if (item === 'generation' && field === 'stop_sequences' && typeof value === 'string') return [value];
  if (item === 'generation' && field === 'settings' && isPlainObject(value)) return lmevalRequestShape(value);
  // A group's subtasks, and the leaves they expand to, are sets: lm-eval 0.4.3 listed xwinograd's six in reverse, 0.4.8
  // sorted them; the group's number (a mean over them) does not depend on the order.
  if (item === 'repeats' && field === 'group_weighting' && isPlainObject(value)) {
    const sorted = { ...value };
    for (const key of ['subtasks', 'leaves'] as const) {
      const list = value[key];
      if (Array.isArray(list)) sorted[key] = [...list].map(String).sort();
    }
    return sorted;
  }
  return value;
}

const OUTPUT_TYPE_REQUESTS: Record<string, string> = {
  multiple_choice: 'loglikelihood',
  greedy_until: 'generate_until',
};

/**
 * Sources record configured and used values in different shapes (a metric list
 * of objects vs the metric names seen; n-samples {original, effective} vs a
 * document count). The configured value is projected onto the used value's
 * shape; when no projection fits, the two are not comparable and no
 * contradiction is claimed.
 */
export function projectConfigured(item: SettingsItem, field: string, configured: unknown, used: unknown, renames = true): { comparable: boolean; value: unknown } {
  let value = configured;
  // lm-eval merges the CLI's --gen_kwargs over the task's generation_kwargs.
  if (renames && item === 'generation' && field === 'settings' && value !== null && typeof value === 'object' && 'task' in value) {
    const v = value as { task?: unknown; cli?: unknown };
    value = { ...(v.task as object | null), ...(v.cli as object | null) };
  }
  if (renames && item === 'scoring' && field === 'output_type' && typeof value === 'string') value = OUTPUT_TYPE_REQUESTS[value] ?? value;
  if (Array.isArray(used) && used.every((u) => typeof u === 'string') && Array.isArray(value)) {
    value = value.map((v) => (v !== null && typeof v === 'object' ? ((v as Record<string, unknown>).name ?? (v as Record<string, unknown>).metric ?? v) : v));
  }
  if (Array.isArray(used) && used.length === 1 && !Array.isArray(value)) value = [value];
  if (typeof used === 'number' && value !== null && typeof value === 'object' && 'effective' in value) value = (value as { effective: unknown }).effective;
  const shape = (v: unknown) => (Array.isArray(v) ? 'array' : v === null ? 'null' : typeof v);
  const comparable = shape(value) === shape(used) || (typeof used === 'number' && typeof value === 'string') || (typeof used === 'string' && typeof value === 'number');
  return { comparable, value };
}

/**
 * lm-eval's `--batch_size auto` (and `auto:N`) asks it to find a size; `batch_sizes` records the
 * size it found. That the two differ is the setting working, not the record contradicting itself.
 */
function autoResolved(s: Setting | undefined): string | null {
  if (s === undefined || !isKnown(s.configured) || !isKnown(s.used)) return null;
  const c = s.configured.value;
  if (typeof c !== 'string' || !/^auto(:\d+)?$/.test(c.trim())) return null;
  return `configured ${brief(c)}, resolved to ${brief(s.used.value)}`;
}

/**
 * The harness filled in what the configuration left out: every configured key (or list element) is
 * used as configured, and the used value adds more — lm-eval's default max_gen_toks, the EOS string a
 * backend appends to the stop list. That is the configuration completed, not contradicted.
 */
export function extendedByHarness(item: SettingsItem, field: string, s: Setting | undefined): string | null {
  if (s === undefined || !isKnown(s.configured) || !isKnown(s.used)) return null;
  const used = s.used.value;
  const { value: configured } = projectConfigured(item, field, s.configured.value, used);
  const same = (a: unknown, b: unknown) => compareValues(a, b).equal;
  if (Array.isArray(configured) && Array.isArray(used) && used.length > configured.length && configured.every((c, i) => same(c, used[i]))) {
    return `configured ${brief(configured)}; the harness added ${brief(used.slice(configured.length))}`;
  }
  const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);
  if (isObject(configured) && isObject(used)) {
    const keys = Object.keys(configured);
    const added = Object.keys(used).filter((k) => !(k in configured));
    if (added.length > 0 && keys.every((k) => k in used && (same(configured[k], used[k]) || extendsList(configured[k], used[k])))) {
      return `configured ${brief(configured)}; the harness added ${brief(Object.fromEntries(added.map((k) => [k, used[k]])))}`;
    }
  }
  return null;
}

/** A scalar configured where a list is used (lm-eval's `until: "x"` → ["x"]). */
function extendsList(configured: unknown, used: unknown): boolean {
  return typeof configured === 'string' && Array.isArray(used) && used.length === 1 && used[0] === configured;
}

/** auto resolved to a value, or the configuration completed (or, by a rule of its, changed) by the harness. */
export function resolvedBy(item: SettingsItem, field: string, s: Setting | undefined): string | null {
  return autoResolved(s) ?? extendedByHarness(item, field, s) ?? groupExpanded(item, field, s) ?? delimiterDroppedForChat(item, field, s);
}

/**
 * The target delimiter a task configures and none sent: lm-eval (0.4.6 and later) sends a multiple-choice task's
 * continuations without it under a chat template (construct_requests), and so does `lmaudit run`, which records
 * both. No other rule empties it, so the record follows the harness rather than contradicting itself.
 */
function delimiterDroppedForChat(item: SettingsItem, field: string, s: Setting | undefined): string | null {
  if (item !== 'chat_template' || field !== 'target_delimiter' || s === undefined || !isKnown(s.configured) || !isKnown(s.used)) return null;
  const [configured, used] = [s.configured.value, s.used.value];
  if (typeof configured !== 'string' || configured === '' || used !== '') return null;
  return `configured ${brief(configured)}, sent "": under a chat template lm-eval (0.4.6 and later) sends multiple-choice continuations without the target delimiter`;
}

/**
 * A group's configured subtasks and the leaf tasks it averaged (repeats.group_weighting, as lmaudit run and the
 * lm-eval importer record it) are one structure seen twice: the subtasks, through their subgroups, expand to the
 * leaves. That is not the record contradicting itself.
 */
function groupExpanded(item: SettingsItem, field: string, s: Setting | undefined): string | null {
  if (item !== 'repeats' || field !== 'group_weighting' || s === undefined || !isKnown(s.configured) || !isKnown(s.used)) return null;
  const leaves = (s.used.value as { leaves?: unknown } | null)?.leaves;
  return Array.isArray(leaves) ? `the group's subtasks expand to the ${leaves.length} leaf task(s) it averaged` : null;
}

/**
 * Which model-name rule a field compares under: an agent's model names are API model ids (the provider-prefix
 * rule), any other run's model_id a Hugging Face Hub id (the case rule); a path to the weights or the dataset keeps
 * its folders.
 */
export function nameOptions(item: SettingsItem, field: string, agentRuns: boolean): CanonicalOptions {
  if (item === 'agent' && (field === 'model_configured' || field === 'model_recorded')) return { providerPrefix: true };
  if (item === 'model' && field === 'model_id') return agentRuns ? { providerPrefix: true, loadedFrom: true } : { hubId: true, loadedFrom: true };
  if (LOADED_FROM.has(`${item}.${field}`)) return { loadedFrom: true };
  return {};
}

/** Fields whose paths name what was loaded (noise.ts's loadedFrom): the model's weights and the task's dataset. */
const LOADED_FROM = new Set(['model.args', 'task.dataset_path', 'task.dataset_name']);

export function selfContradiction(item: SettingsItem, field: string, s: Setting | undefined, agentRuns: boolean): string | null {
  if (s === undefined || !isKnown(s.configured) || !isKnown(s.used)) return null;
  if (resolvedBy(item, field, s) !== null) return null;
  const names = nameOptions(item, field, agentRuns);
  const usedValue = comparableValue(item, field, s.used.value);
  // Equal as recorded, or equal once projected onto the used value's shape: no contradiction.
  const asIs = projectConfigured(item, field, s.configured.value, s.used.value, false);
  if (asIs.comparable && compareValues(comparableValue(item, field, asIs.value), usedValue, names).equal) return null;
  const projected = projectConfigured(item, field, s.configured.value, s.used.value);
  if (!projected.comparable) return null;
  if (compareValues(comparableValue(item, field, projected.value), usedValue, names).equal) return null;
  return `configured ${brief(s.configured.value)}, used ${brief(s.used.value)}`;
}

export function brief(value: unknown, max = 80): string {
  const text = typeof value === 'string' ? JSON.stringify(value) : JSON.stringify(value) ?? String(value);
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}
