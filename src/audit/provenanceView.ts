/**
 * Reading the provenance block for the audit: the value a setting effectively
 * had (what was used when known, else what was configured), whether the record
 * contradicts itself, and how many of the disclosure items (DISCLOSURE_ITEMS) a source recorded.
 */
import {
  DISCLOSURE_FIELDS,
  DISCLOSURE_ITEMS,
  PER_RUN_ITEMS,
  type DisclosureItem,
  type PerTaskItem,
  type Fact,
  type RunProvenance,
  type Setting,
  type TaskProvenance,
} from '../store/schema.ts';

export function isKnown(fact: Fact | undefined): fact is Exclude<Fact, { status: 'unknown' }> {
  return fact !== undefined && fact.status !== 'unknown';
}

/** The fact that best says what the setting was: `used` when recorded or inferred, else `configured`. */
export function effectiveFact(setting: Setting | undefined): Fact {
  if (setting === undefined) return { status: 'unknown' };
  return isKnown(setting.used) ? setting.used : setting.configured;
}

export function factValue(fact: Fact): unknown {
  return isKnown(fact) ? fact.value : undefined;
}

/** Run-level items: PER_RUN_ITEMS, and the agent settings (RunProvenance.agent belongs to the run, not a task). */
export function isPerRunItem(item: DisclosureItem | 'agent'): boolean {
  return item === 'agent' || (PER_RUN_ITEMS as readonly string[]).includes(item);
}

/** The settings of one disclosure item for a run (and a task, for per-task items). */
export function itemGroup(run: RunProvenance, task: string | null, item: DisclosureItem): Record<string, Setting> {
  // `?? {}`: a provenance block made before the environment item existed has no such group.
  if (isPerRunItem(item)) return run[item as 'harness' | 'model' | 'environment' | 'records'] ?? {};
  if (task === null) return {};
  const block = run.tasks[task];
  return block === undefined ? {} : block[item as PerTaskItem] ?? {};
}

/** A setting by `item.field` (e.g. 'fewshot.count'). */
export function setting(run: RunProvenance, task: string | null, path: `${DisclosureItem}.${string}`): Setting | undefined {
  const [item, field] = path.split('.') as [DisclosureItem, string];
  return itemGroup(run, task, item)[field];
}

/** The effective value of `item.field`, or undefined when unknown. */
export function valueOf(run: RunProvenance, task: string | null, path: `${DisclosureItem}.${string}`): unknown {
  return factValue(effectiveFact(setting(run, task, path)));
}

export interface DisclosureCount {
  item: DisclosureItem;
  /** Fields with a recorded or inferred value. */
  known: number;
  fields: number;
  recorded: boolean;
}

/** Per disclosure item, how many fields the source recorded (or we inferred); an item counts as recorded when any field is known. */
export function disclosureCounts(run: RunProvenance, task: string | null): DisclosureCount[] {
  return DISCLOSURE_ITEMS.map((item) => {
    const group = itemGroup(run, task, item);
    const fields = DISCLOSURE_FIELDS[item].length;
    const known = DISCLOSURE_FIELDS[item].filter((f) => isKnown(group[f]?.configured) || isKnown(group[f]?.used)).length;
    return { item, known, fields, recorded: known > 0 };
  });
}

/** Extra fields an importer added beyond the schema's list (kept in the diff: they are settings too). */
export function fieldsOf(item: DisclosureItem, a: Record<string, Setting>, b: Record<string, Setting>): string[] {
  const listed = DISCLOSURE_FIELDS[item] as readonly string[];
  const extra = [...new Set([...Object.keys(a), ...Object.keys(b)])].filter((f) => !listed.includes(f)).sort();
  return [...listed, ...extra];
}

/**
 * A metric's entry in a task's metric list ({metric, aggregation, higher_is_better}, as lm-eval's metric_list
 * records it), from the used value or else the configured one.
 */
export function metricSpec(block: TaskProvenance | undefined, metric: string): { aggregation?: unknown; higher_is_better?: unknown } | undefined {
  for (const side of [block?.scoring.metrics?.used, block?.scoring.metrics?.configured]) {
    const list = side !== undefined && isKnown(side) ? side.value : undefined;
    if (!Array.isArray(list)) continue;
    const found = (list as unknown[]).find((x) => x !== null && typeof x === 'object' && (x as { metric?: unknown }).metric === metric);
    if (found !== undefined) return found as { aggregation?: unknown; higher_is_better?: unknown };
  }
  return undefined;
}
