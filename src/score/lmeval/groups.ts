/**
 * Group numbers (§4.5): a group's value is the (size-weighted or plain) mean of its
 * leaf tasks' values, its stderr the pooled stderr (a plain mean's: lm-eval 0.4.13's
 * unweighted_mean_stderr, or the pooled one up to 0.4.12), and only when every leaf has a
 * numeric stderr. Reproduced from the leaf cells when every leaf has samples in the
 * store; otherwise the group cell names the leaves that are missing.
 */
import type { RunProvenance } from '../../store/schema.ts';
import { isPlainObject } from '../../util/json.ts';
import { groupAggregate } from './aggregate.ts';
import type { AsRecordedCell } from './asRecordedCell.ts';
import { scoredByLmevalAtLeast } from './harnessRules.ts';

const TOLERANCE = 1e-12;

function subtasksOf(run: RunProvenance, group: string): string[] | null {
  const fact = run.tasks[group]?.repeats.group_weighting?.configured;
  if (fact === undefined || fact.status === 'unknown' || !isPlainObject(fact.value) || !Array.isArray(fact.value.subtasks)) return null;
  return fact.value.subtasks.map(String);
}

/** weight_by_size of a group's metric where the store keeps the group's aggregate_metric_list (lmaudit run does). */
function weightBySizeOf(run: RunProvenance, group: string, metric: string): boolean | null {
  const fact = run.tasks[group]?.repeats.group_weighting?.configured;
  if (fact === undefined || fact.status === 'unknown' || !isPlainObject(fact.value) || !Array.isArray(fact.value.aggregate_metric_list)) return null;
  const entry = fact.value.aggregate_metric_list.find((e) => isPlainObject(e) && e.metric === metric);
  return isPlainObject(entry) ? entry.weight_by_size !== false : null;
}

/** Leaf tasks under a group, recursively (groups aggregate leaves, not subgroup results). */
function leavesOf(run: RunProvenance, group: string, seen = new Set<string>()): string[] {
  if (seen.has(group)) return [];
  seen.add(group);
  const subs = subtasksOf(run, group);
  if (subs === null) return [group];
  return subs.flatMap((s) => leavesOf(run, s, seen));
}

/**
 * The one count lm-eval weights each task by in a group, whatever the metric (its sample_len, evaluator_utils.py): the
 * largest of the task's metric counts from 0.4.13 on, the last-aggregated metric's before (its cells are made in the
 * order lm-eval aggregates them: filter by filter, each metric as its first document returned it). They differ from a
 * metric's own count only where some documents returned fewer metrics than others.
 */
function taskSizes(run: RunProvenance, leafCells: readonly AsRecordedCell[]): Map<string, number> {
  const largest = scoredByLmevalAtLeast(run, 0, 4, 13);
  const sizes = new Map<string, number>();
  for (const c of leafCells) if (c.run_id === run.run_id) sizes.set(c.task, largest ? Math.max(sizes.get(c.task) ?? 0, c.n) : c.n);
  return sizes;
}

export function groupCells(run: RunProvenance, leafCells: readonly AsRecordedCell[]): AsRecordedCell[] {
  const out: AsRecordedCell[] = [];
  const sizes = taskSizes(run, leafCells);
  for (const group of Object.keys(run.tasks)) {
    if (subtasksOf(run, group) === null) continue;
    const reported = run.reported[group] ?? {};
    const leaves = leavesOf(run, group);
    for (const key of Object.keys(reported)) {
      const m = /^(.+),(.+)$/.exec(key);
      if (m === null || m[1]!.endsWith('_stderr')) continue;
      const [, metric, filter] = m as unknown as [string, string, string];
      const printed = { value: reported[key], stderr: reported[`${metric}_stderr,${filter}`] ?? null };
      // Group.aggregate (api/group.py) averages the leaves that have the metric: a leaf whose printed results lack it
      // is left out, not missing (qa_unweighted's acc_norm over arc_easy and arc_challenge, mmlu_anatomy having none).
      const averaged = leaves.filter((t) => run.reported[t] === undefined || key in run.reported[t]!);
      const cells = averaged.map((t) => leafCells.find((c) => c.task === t && c.metric === metric && c.filter === filter));
      const missing = averaged.filter((_, i) => cells[i] === undefined || cells[i]!.value === null);
      const base: AsRecordedCell = {
        run_id: run.run_id, task: group, filter, metric, n: 0, aggregation: 'group (pooled stderr)', value: null, stderr: null,
        reported: printed, matches_reported: null, items: { reproduced: 0, within_tolerance: null, taken_as_recorded: null, differing: [] }, why: null, warnings: [],
      };
      if (missing.length > 0) {
        out.push({ ...base, why: `group over ${averaged.length} leaf task(s) with ${metric},${filter}; no reproduced cell for ${missing.join(', ')} (no per-sample records in the store)` });
        continue;
      }
      const leafValues = cells.map((c) => ({ value: c!.value!, stderr: c!.stderr ?? 'N/A', n: sizes.get(c!.task) ?? c!.n }));
      const weighted = groupAggregate(leafValues, true);
      const close = (a: unknown, b: number) => typeof a === 'number' && Math.abs(a - b) <= TOLERANCE;
      // weight_by_size is in the group's YAML, which results files do not carry: try lm-eval's two settings.
      const matches = (a: typeof weighted) => close(printed.value, a.value) && (printed.stderr === 'N/A' ? a.stderr === 'N/A' : a.stderr !== 'N/A' && close(printed.stderr, a.stderr));
      // Unweighted, lm-eval 0.4.13 takes the stderr of the plain mean; up to 0.4.12 the pooled one (aggregate.ts).
      const pooledPlain = groupAggregate(leafValues, false, 'pooled');
      const plainOf013 = groupAggregate(leafValues, false);
      const plain = !matches(plainOf013) && matches(pooledPlain) ? pooledPlain : plainOf013;
      const [byWeight, byPlain] = [matches(weighted), matches(plain)];
      const configured = weightBySizeOf(run, group, metric);
      const pick = configured !== null ? (configured ? weighted : plain) : byPlain && !byWeight ? plain : weighted;
      const stderrOk = pick === plain ? byPlain : printed.stderr === 'N/A' ? pick.stderr === 'N/A' : pick.stderr !== 'N/A' && close(printed.stderr, pick.stderr);
      // Equal sizes make the two means (and here their stderrs) equal: then the file cannot tell which was set.
      const why = configured !== null
        ? `weight_by_size=${configured} (the group's aggregate_metric_list)`
        : byWeight && byPlain
        ? 'weight_by_size true and false give these numbers alike (the group config is not in the results file)'
        : `weight_by_size=${pick === weighted} (the group config is not in the results file; ${byWeight || byPlain ? 'the setting that matches is shown' : "neither setting matches; lm-eval's default, true, is shown"})`;
      const stderrRule = pick === weighted || pick.stderr === weighted.stderr ? '' : pick === pooledPlain ? "; stderr pooled, as lm-eval up to 0.4.12 took it" : '; stderr of the plain mean of the tasks, as lm-eval 0.4.13 takes it';
      out.push({
        ...base,
        aggregation: pick === plainOf013 ? 'group (stderr of the plain mean)' : 'group (pooled stderr)',
        n: leafValues.reduce((a, l) => a + l.n, 0),
        value: pick.value,
        stderr: pick.stderr,
        matches_reported: close(printed.value, pick.value) && stderrOk,
        items: { reproduced: cells.reduce((a, c) => a + c!.items.reproduced, 0), within_tolerance: null, taken_as_recorded: null, differing: cells.flatMap((c) => c!.items.differing) },
        why: `${why}${stderrRule}`,
      });
    }
  }
  return out;
}
