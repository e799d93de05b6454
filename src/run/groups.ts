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

function depth(g: GroupNode): number {
  return 1 + Math.max(0, ...g.children.map((c) => (typeof c === 'string' ? 0 : depth(c))));
}

/** Every group, bottom-up (subgroups before the groups that hold them), as lm-eval lists them. */
export function groupResults(groups: readonly GroupNode[], scores: readonly TaskScores[], tasks: readonly LeafTask[]): GroupResult[] {
  const all = new Map<string, GroupNode>();
  const visit = (g: GroupNode) => {
    if (all.has(g.group)) return;
    all.set(g.group, g);
    for (const c of g.children) if (typeof c !== 'string') visit(c);
  };
  groups.forEach(visit);
  const ordered = [...all.values()].sort((a, b) => depth(a) - depth(b));
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
