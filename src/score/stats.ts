/**
 * Aggregates and standard errors, in lm-eval's definitions so that a number we
 * print for a cell is the number lm-eval would print for the same per-item values.
 */
import { mean, meanStderr as lmevalMeanStderr, pySum } from './lmeval/aggregate.ts';

/** Two-sided 95% normal quantile. */
export const Z95 = 1.959963984540054;

/** lm-eval's mean_stderr (the harness's order of operations); null (lm-eval's "N/A") for n ≤ 1. */
export function meanStderr(values: readonly number[]): number | null {
  return values.length <= 1 ? null : lmevalMeanStderr(values);
}

/**
 * The same standard error for 0/1 values given only their count: Σ(x−μ)² is
 * correct·(1−μ)² + (n−correct)·μ². Equal to meanStderr up to the last bits of
 * floating-point summation order.
 */
export function binaryStderr(n: number, correct: number): number | null {
  if (n <= 1) return null;
  const mu = correct / n;
  const squares = correct * (1 - mu) ** 2 + (n - correct) * mu ** 2;
  return Math.sqrt(squares / (n - 1)) / Math.sqrt(n);
}

/**
 * Macro average (mean of group means) and its standard error. The groups are
 * independent samples, so Var(macro) = Σ se_g² / G² exactly; se_g is lm-eval's
 * per-group stderr. Null when any group has a single item (its stderr is undefined).
 */
export function macro(groups: readonly { mean: number; stderr: number | null }[]): { score: number; stderr: number | null } {
  const score = mean(groups.map((g) => g.mean));
  if (groups.some((g) => g.stderr === null)) return { score, stderr: null };
  const variance = pySum(groups.map((g) => g.stderr! ** 2));
  return { score, stderr: Math.sqrt(variance) / groups.length };
}

/** A 95% normal interval, clipped to [0, 1] because the scores are fractions. */
export function ci95(score: number, stderr: number | null): [number, number] | null {
  if (stderr === null) return null;
  return [Math.max(0, score - Z95 * stderr), Math.min(1, score + Z95 * stderr)];
}

/**
 * numpy.percentile's default method ("linear", Hyndman–Fan type 7) on values sorted ascending, for q in
 * [0, 1]: the value at virtual index (n − 1)·q, interpolated as numpy's _lerp does (from the upper
 * neighbour when the fraction is ≥ 0.5), so that the result is numpy's to the last bit. The one percentile
 * of the program: `rescore --bootstrap` intervals and the paired bootstrap both take theirs here.
 */
export function percentileLinear(sorted: ArrayLike<number>, q: number): number {
  const last = sorted.length - 1;
  const index = last * q;
  if (index >= last) return sorted[last]!;
  if (index < 0) return sorted[0]!;
  const lo = Math.floor(index);
  const below = sorted[lo]!;
  const above = sorted[lo + 1]!;
  const t = index - lo;
  const span = above - below;
  return t >= 0.5 ? above - span * (1 - t) : below + span * t;
}
