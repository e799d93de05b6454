/**
 * The unpaired z-test on two reported aggregates — what lm-eval's
 * scripts/model_comparator.py computes. It ignores that both runs answered the
 * same items (the covariance term), so it understates how separable two runs
 * are; it is shown only when no per-item samples allow the paired test, and
 * labelled as such.
 */
import { twoSidedNormalP } from '../util/erfc.ts';

export interface UnpairedZ {
  z: number;
  /** Two-sided: 2 · (1 − Φ(|z|)). */
  p: number;
}

export function unpairedZ(a: number, stderrA: number, b: number, stderrB: number): UnpairedZ | null {
  const se = Math.sqrt(stderrA * stderrA + stderrB * stderrB);
  if (!Number.isFinite(se) || se <= 0 || !Number.isFinite(a) || !Number.isFinite(b)) return null;
  const z = (b - a) / se;
  return { z, p: twoSidedNormalP(z) };
}
