/**
 * The check of issue 28 §1: every default matrix cell that carries an lm-eval metric's name equals the
 * per-item value the store recorded for that metric (lmaudit's own run stores and imported samples files
 * alike). Returns one line per item that differs, and how many (cell, item) pairs were compared.
 */
import type { OpenStore } from '../../../src/store/readStore.ts';
import { computeMatrix } from '../../../src/score/matrix.ts';
import { queryRows, sqlString } from '../../../src/util/duckdb.ts';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadSource } from '../../../src/audit/source.ts';
import { rescoreAsRecorded, type AsRecordedReport } from '../../../src/score/lmeval/asRecorded.ts';

/** The lm-eval metric each default cell reproduces, per answer type (greedy: the loglikelihood acc, multiple_choice exact_match). */
const RECORDED_METRIC: Record<string, Record<string, string>> = {
  logprobs: { acc: 'acc', acc_norm: 'acc_norm', acc_bytes: 'acc_bytes', greedy: 'exact_match' },
  loglikelihood: { greedy: 'acc' },
};

export interface CellComparison {
  /** task → cell → [compared, equal]. */
  perTask: Map<string, Map<string, [number, number]>>;
  differing: string[];
}

/** `tolerance`: how far a value may sit from the recorded one (0 but for task code whose last bit is libm's). */
export async function compareDefaultCells(store: OpenStore, tolerance: (task: string, metric: string) => number = () => 0): Promise<CellComparison> {
  const scopes = await computeMatrix(store, { keepItems: true });
  const out: CellComparison = { perTask: new Map(), differing: [] };
  for (const scope of scopes) {
    const names = RECORDED_METRIC[scope.answer_type];
    if (names === undefined) continue;
    const recorded = await queryRows<{ doc_id: string; metric: string; value: number | null }>(
      `SELECT doc_id, metric, value FROM ${store.table('scores')} WHERE run_id = ${sqlString(scope.run_id)} AND task = ${sqlString(scope.task)} AND filter = 'none'`,
    );
    const byKey = new Map(recorded.map((r) => [`${r.doc_id}\u0000${r.metric}`, r.value]));
    const perCell = new Map<string, [number, number]>();
    out.perTask.set(scope.task, perCell);
    scope.cellKeys.forEach((key, k) => {
      const metric = names[key.extractor];
      if (metric === undefined) return;
      for (const item of scope.items ?? []) {
        const want = byKey.get(`${item.doc_id}\u0000${metric}`);
        if (want === undefined) continue;
        const got = item.values[k];
        const counts = perCell.get(key.extractor) ?? [0, 0];
        counts[0]++;
        const ok = got !== null && got !== undefined && want !== null && Math.abs(got - want) <= tolerance(scope.task, metric);
        if (ok) counts[1]++;
        else out.differing.push(`${scope.task} doc ${item.doc_id}: cell ${key.extractor} ${got}, recorded ${metric} ${want}`);
        perCell.set(key.extractor, counts);
      }
    });
  }
  return out;
}

/** A reference run's folder (results and samples files) imported and rescored as recorded, with what its results file printed. */
export async function asRecordedOf(dir: string): Promise<{ printed: Record<string, Record<string, unknown>>; report: AsRecordedReport }> {
  const printed = JSON.parse(readFileSync(join(dir, readdirSync(dir).find((f) => f.startsWith('results_'))!), 'utf8')).results;
  const { store } = await loadSource([dir], { skipBad: false, fields: {} });
  return { printed, report: await rescoreAsRecorded(store) };
}
