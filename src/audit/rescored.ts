/**
 * Per-item values of the rescoring matrix (src/score/matrix.ts), keyed so the
 * diff can pair them like recorded scores: `rescored:<extractor>/<normaliser>`.
 * Rescoring is an extra view; when it cannot run on a store the diff still
 * runs, and says why the cells are missing.
 */
import type { OpenStore } from '../store/readStore.ts';
import { computeMatrix } from '../score/matrix.ts';

export const RESCORED_PREFIX = 'rescored:';

/** doc_id → score key → value, for one (run, task). */
export type RescoredValues = Map<string, Map<string, number>>;

export interface StoreRescoring {
  byScope: Map<string, RescoredValues>;
  note: string | null;
}

export async function rescoredValues(store: OpenStore): Promise<StoreRescoring> {
  const byScope = new Map<string, RescoredValues>();
  let scopes;
  try {
    scopes = await computeMatrix(store, { keepItems: true });
  } catch (error) {
    return { byScope, note: `rescoring failed, so no rescored cells are paired: ${(error as Error).message.split('\n')[0]}` };
  }
  for (const scope of scopes) {
    const values: RescoredValues = new Map();
    for (const item of scope.items ?? []) {
      const keyed = new Map<string, number>();
      scope.cellKeys.forEach((cell, i) => {
        const v = item.values[i];
        if (typeof v === 'number') keyed.set(`${RESCORED_PREFIX}${cell.extractor}/${cell.normalizer}`, v);
      });
      values.set(item.doc_id, keyed);
    }
    byScope.set(`${scope.run_id}\u0000${scope.task}`, values);
  }
  return { byScope, note: null };
}
