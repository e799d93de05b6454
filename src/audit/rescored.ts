/**
 * Per-item values of the rescoring matrix (src/score/matrix.ts), keyed so the
 * diff can pair them like recorded scores: `rescored:<extractor>/<normaliser>`.
 * Rescoring is an extra view; when it cannot run on a store the diff still
 * runs, and says why the cells are missing.
 */
import type { OpenStore } from '../store/readStore.ts';
import { computeMatrix, type MatrixSpec } from '../score/matrix.ts';

export const RESCORED_PREFIX = 'rescored:';

/** doc_id → score key → value, for one (run, task). */
export type RescoredValues = Map<string, Map<string, number>>;

export interface StoreRescoring {
  byScope: Map<string, RescoredValues>;
  note: string | null;
}

export async function rescoredValues(store: OpenStore): Promise<StoreRescoring> {
  const byScope = new Map<string, RescoredValues>();
  // Each item's values go straight into the map as it is scored (no list of every item's readings first).
  const onItem: MatrixSpec['onItem'] = (scope, cellKeys, item) => {
    const key = `${scope.run_id}\u0000${scope.task}`;
    let values = byScope.get(key);
    if (values === undefined) byScope.set(key, (values = new Map()));
    const keyed = new Map<string, number>();
    cellKeys.forEach((cell, i) => {
      const v = item.values[i];
      if (typeof v === 'number') keyed.set(`${RESCORED_PREFIX}${cell.extractor}/${cell.normalizer}`, v);
    });
    values.set(item.doc_id, keyed);
  };
  try {
    await computeMatrix(store, { onItem });
  } catch (error) {
    return { byScope: new Map(), note: `rescoring failed, so no rescored cells are paired: ${(error as Error).message.split('\n')[0]}` };
  }
  return { byScope, note: null };
}
