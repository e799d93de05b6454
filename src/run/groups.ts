/**
 * Group numbers for a run (lmeval-scoring-and-outputs.md §4.5, lm-eval ≥0.4.12 defaults):
 * a group with an aggregate_metric_list averages its leaf tasks, recursively (not its
 * subgroups' results), weighted by size unless weight_by_size is false, with the pooled
 * stderr; filter_list absent means every filter seen with the metric. The arithmetic is
 * the project's one implementation (score/lmeval/aggregate.ts).
 */
import { BadInputError } from '../errors.ts';
import type { GroupNode } from '../tasks/index.ts';
import { groupAggregate, type Stderr } from '../score/lmeval/aggregate.ts';
import type { TaskScores } from './scoring.ts';

export interface GroupResult {
  group: string;
  alias: string;
  /** Direct children (tasks and groups), by name. */
  children: string[];
  leaves: string[];
  version: unknown;
  /** Empty for a group without aggregate_metric_list (lm-eval then prints only its name). */
  results: { metric: string; filter: string; value: number; stderr: Stderr; n: number; higherIsBetter: boolean | null }[];
  aggregateMetricList: Record<string, unknown>[] | null;
}

/** A leaf task as groups name it: by its name, or through one of its tags. */
export interface LeafTask {
  name: string;
  tags: readonly string[];
}

/** A child named by a string is a task, or a tag that stands for every task carrying it (in run order). */
function expand(child: string, tasks: readonly LeafTask[]): string[] {
  if (tasks.some((t) => t.name === child)) return [child];
  return tasks.filter((t) => t.tags.includes(child)).map((t) => t.name);
}

function childNames(g: GroupNode, tasks: readonly LeafTask[]): string[] {
  return g.children.flatMap((c) => (typeof c === 'string' ? expand(c, tasks) : [c.group]));
}

function leavesOf(g: GroupNode, tasks: readonly LeafTask[]): string[] {
  return g.children.flatMap((c) => (typeof c === 'string' ? expand(c, tasks) : leavesOf(c, tasks)));
}

/**
 * Every group bottom-up as lm-eval's _collect_groups_bottom_up lists them: from each root (a group no other holds, in
 * the order they were loaded), its subgroups depth-first in the order the YAML names them, each before its parent.
 */
function bottomUp(groups: readonly GroupNode[]): GroupNode[] {
  const loaded = loadOrder(groups, (g) => g.children.filter((c): c is GroupNode => typeof c !== 'string'), (g) => g.group);
  const held = new Set(loaded.flatMap((g) => g.children.filter((c): c is GroupNode => typeof c !== 'string').map((c) => c.group)));
  const out: GroupNode[] = [];
  const seen = new Set<string>();
  const visit = (g: GroupNode) => {
    if (seen.has(g.group)) return;
    for (const c of g.children) if (typeof c !== 'string') visit(c);
    seen.add(g.group);
    out.push(g);
  };
  loaded.filter((g) => !held.has(g.group)).forEach(visit);
  return out;
}

/**
 * Groups in the order lm-eval's TaskManager.load collects them (the `groups` dict its results file's group_subtasks,
 * and the n-shot and higher_is_better propagation, follow): each requested group, then its subgroups depth-first,
 * a parent before its children; a group met twice keeps its first place.
 */
function loadOrder<G>(roots: readonly G[], subgroups: (g: G) => readonly G[], name: (g: G) => string): G[] {
  const all = new Map<string, G>();
  const visit = (g: G) => {
    if (!all.has(name(g))) all.set(name(g), g);
    for (const c of subgroups(g)) visit(c);
  };
  roots.forEach(visit);
  return [...all.values()];
}

/** A run's group results (bottom-up, as groupResults returns them) in lm-eval's load order (see loadOrder). */
export function groupsInLoadOrder(results: readonly GroupResult[]): GroupResult[] {
  const byName = new Map(results.map((g) => [g.group, g]));
  const held = new Set(results.flatMap((g) => g.children.filter((c) => byName.has(c))));
  return loadOrder(results.filter((g) => !held.has(g.group)), (g) => g.children.flatMap((c) => byName.get(c) ?? []), (g) => g.group);
}

/** Every group, bottom-up (subgroups before the groups that hold them), as lm-eval lists them. */
export function groupResults(groups: readonly GroupNode[], scores: readonly TaskScores[], tasks: readonly LeafTask[]): GroupResult[] {
  const ordered = bottomUp(groups);
  return ordered.map((g) => {
    const leaves = leavesOf(g, tasks);
    const out: GroupResult = { group: g.group, alias: g.group_alias ?? g.group, children: childNames(g, tasks), leaves, version: g.metadata?.version ?? null, results: [], aggregateMetricList: g.aggregate_metric_list };
    for (const entry of g.aggregate_metric_list ?? []) {
      const metric = String(entry.metric);
      const aggregation = entry.aggregation ?? 'mean';
      if (aggregation !== 'mean') throw new BadInputError(`group '${g.group}': aggregation ${String(aggregation)} of ${metric} is not supported (lm-eval allows mean or Python code)`, { file: g.source, field: 'aggregate_metric_list' });
      const weightBySize = entry.weight_by_size === undefined ? true : entry.weight_by_size === true;
      const leafResults = leaves.flatMap((t) => scores.find((s) => s.task === t)?.results.filter((r) => r.metric === metric) ?? []);
      const filters = Array.isArray(entry.filter_list) ? entry.filter_list.map(String) : typeof entry.filter_list === 'string' ? [entry.filter_list] : [...new Set(leafResults.map((r) => r.filter))];
      for (const filter of filters) {
        const cells = leafResults.filter((r) => r.filter === filter);
        if (cells.length === 0) continue;
        const { value, stderr } = groupAggregate(cells.map((c) => ({ value: c.value, stderr: c.stderr, n: c.n })), weightBySize);
        const hib = [...new Set(cells.map((c) => c.higherIsBetter))];
        out.results.push({ metric, filter, value, stderr, n: cells.reduce((a, c) => a + c.n, 0), higherIsBetter: hib.length === 1 ? hib[0]! : null });
      }
    }
    return out;
  });
}

/**
 * lm-eval's n-shot for groups (evaluator_utils._propagate_num_fewshot): one pass over the groups in load order, each
 * given the count its children share among those already known; a parent comes before its subgroups, so a group
 * holding groups (mmlu) gets none. `shots` holds the leaf tasks' counts and receives the groups'.
 */
export function propagateShots(groups: readonly GroupResult[], shots: Map<string, number>): Map<string, number> {
  for (const g of groupsInLoadOrder(groups)) {
    const childShots = new Set(g.children.filter((c) => shots.has(c)).map((c) => shots.get(c)!));
    if (childShots.size === 1) shots.set(g.group, [...childShots][0]!);
  }
  return shots;
}
