/**
 * Two readings of one (run, task) compared item by item: the per-item values computeMatrix
 * gave each (extractor × normaliser) paired on the items both scored, and the paired
 * statistics `lmaudit diff` states for two runs (pairedComparison: the difference B − A, its
 * percentile-bootstrap interval, exact McNemar for 0/1 values, the sentence), with the
 * paired standard error `lmaudit table` states for an interaction (pairedMeanStderr).
 * The four cells of McNemar's table are counted here from the same pairs; its two
 * discordant cells are McNemar's own counts.
 */
import { DEFAULT_PAIRED_OPTIONS, pairedComparison, pairedMeanStderr, type PairedResult } from '../audit/pairedStats.ts';
import type { ScopeResult } from '../score/matrix.ts';
import { ViewRequestError } from './viewErrors.ts';

export interface ReadingsComparison {
  a: { index: number; extractor: string; normalizer: string };
  b: ReadingsComparison['a'];
  /** Items read by the task. */
  items: number;
  /** Items without a value under one reading or both (not paired). */
  dropped: number;
  result: PairedResult;
  /** The paired standard error of B − A (null below two items). */
  stderr: number | null;
  /** McNemar's 2×2 table (null unless every paired value is 0 or 1): right under both, only A, only B, neither. */
  table: { bothRight: number; aOnly: number; bOnly: number; bothWrong: number } | null;
}

export function compareReadings(scope: ScopeResult, a: number, b: number): ReadingsComparison {
  const keys = scope.cellKeys;
  for (const [name, k] of [['a', a], ['b', b]] as const) {
    if (!Number.isInteger(k) || k < 0 || k >= keys.length) throw new ViewRequestError(`reading ${name}: no reading ${k} (this task has ${keys.length})`);
  }
  if (a === b) throw new ViewRequestError('two different readings are needed');
  const va: number[] = [];
  const vb: number[] = [];
  let dropped = 0;
  const items = scope.items ?? [];
  for (const item of items) {
    const [x, y] = [item.values[a], item.values[b]];
    if (typeof x !== 'number' || typeof y !== 'number' || !Number.isFinite(x) || !Number.isFinite(y)) {
      dropped++;
      continue;
    }
    va.push(x);
    vb.push(y);
  }
  const result = pairedComparison(va, vb, DEFAULT_PAIRED_OPTIONS);
  const table = result.mcnemar === null ? null : {
    bothRight: va.filter((x, i) => x === 1 && vb[i] === 1).length,
    aOnly: result.mcnemar.aOnly,
    bOnly: result.mcnemar.bOnly,
    bothWrong: va.filter((x, i) => x === 0 && vb[i] === 0).length,
  };
  const reading = (k: number) => ({ index: k, extractor: keys[k]!.extractor, normalizer: keys[k]!.normalizer });
  return {
    a: reading(a),
    b: reading(b),
    items: items.length,
    dropped,
    result,
    stderr: va.length === 0 ? null : pairedMeanStderr(vb.map((y, i) => y - va[i]!)).stderr,
    table,
  };
}
