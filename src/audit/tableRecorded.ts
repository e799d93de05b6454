/**
 * The source's own per-item readings as columns of the audit table. When no reading rule of the
 * rescoring matrix can read a run's items (no usable gold answer was recorded: TruthfulQA's
 * generation task keeps its reference answers in the task's code, not in the records), the
 * metrics the harness recorded per item are the reading rules there are — BLEU, ROUGE-1/2/L and
 * BLEURT each deciding, over the same stored answer, whether it is true — and they cost no
 * model call. Only rates are columns (every value a number in [0, 1]: `bleu_acc`, not
 * `bleu_max`), so that the spreads compare like with like.
 */
import { queryRows, sqlString } from '../util/duckdb.ts';
import type { OpenStore } from '../store/readStore.ts';
import { EXTRA_FIELD_PREFIX } from '../store/schema.ts';
import { ci95, macro, meanStderr } from '../score/stats.ts';
import { mean } from '../score/lmeval/aggregate.ts';
import type { Aggregation } from '../score/sweeps.ts';

export interface RecordedCell {
  score: number;
  stderr: number | null;
  ci95: [number, number] | null;
  n: number;
}

export interface RecordedReadings {
  /** Column key ('recorded bleu_acc', with ' (filter)' when the filter is not 'none') → its cell. */
  cells: Map<string, RecordedCell>;
  /** Per item (doc_id): column key → the value recorded for it. */
  items: Map<string, Map<string, number>>;
}

export function recordedKey(filter: string, metric: string): string {
  return filter === 'none' ? `recorded ${metric}` : `recorded ${metric} (${filter})`;
}

const ORDER = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * The recorded per-item rates of one (run, task), in (filter, metric) order; null when it has none.
 * A metric with any value that is not a number in [0, 1] is not a rate and is left out.
 */
export async function recordedReadings(store: OpenStore, runId: string, task: string, aggregation: Aggregation): Promise<RecordedReadings | null> {
  const rows = await queryRows<{ doc_id: string; filter: string; metric: string; value: number | null; grp: string | null }>(`
    SELECT s.doc_id, s.filter, s.metric, s.value, g.grp
    FROM ${store.table('scores')} s
    LEFT JOIN (SELECT doc_id, any_value("group") AS grp FROM ${store.table('instances')}
               WHERE run_id = ${sqlString(runId)} AND task = ${sqlString(task)} GROUP BY doc_id) g USING (doc_id)
    WHERE s.run_id = ${sqlString(runId)} AND s.task = ${sqlString(task)} AND NOT starts_with(s.metric, ${sqlString(EXTRA_FIELD_PREFIX)})
    ORDER BY s.filter, s.metric, s.doc_id`);
  const byKey = new Map<string, { filter: string; metric: string; rate: boolean; values: { doc: string; group: string; value: number }[] }>();
  for (const r of rows) {
    const key = recordedKey(r.filter, r.metric);
    let entry = byKey.get(key);
    if (entry === undefined) byKey.set(key, (entry = { filter: r.filter, metric: r.metric, rate: true, values: [] }));
    if (typeof r.value !== 'number' || !(r.value >= 0 && r.value <= 1)) entry.rate = false;
    else entry.values.push({ doc: r.doc_id, group: r.grp ?? task, value: r.value });
  }
  const kept = [...byKey].filter(([, e]) => e.rate && e.values.length > 0).sort(([, a], [, b]) => ORDER(a.filter, b.filter) || ORDER(a.metric, b.metric));
  if (kept.length === 0) return null;
  const cells = new Map<string, RecordedCell>();
  const items = new Map<string, Map<string, number>>();
  for (const [key, e] of kept) {
    cells.set(key, cellOf(e.values, aggregation));
    for (const v of e.values) {
      let item = items.get(v.doc);
      if (item === undefined) items.set(v.doc, (item = new Map()));
      item.set(key, v.value);
    }
  }
  return { cells, items };
}

/** Micro: the mean with lm-eval's mean_stderr; macro: the mean of group means, as the matrix's cells. */
function cellOf(values: readonly { group: string; value: number }[], aggregation: Aggregation): RecordedCell {
  const all = values.map((v) => v.value);
  if (aggregation === 'micro') {
    const score = mean(all);
    const stderr = meanStderr(all);
    return { score, stderr, ci95: ci95(score, stderr), n: all.length };
  }
  const groups = new Map<string, number[]>();
  for (const v of values) {
    const g = groups.get(v.group);
    if (g === undefined) groups.set(v.group, [v.value]);
    else g.push(v.value);
  }
  const m = macro([...groups].sort(([a], [b]) => ORDER(a, b)).map(([, g]) => ({ mean: mean(g), stderr: meanStderr(g) })));
  return { score: m.score, stderr: m.stderr, ci95: ci95(m.score, m.stderr), n: all.length };
}
