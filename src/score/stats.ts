/**
 * Aggregates and standard errors, in lm-eval's definitions so that a number we
 * print for a cell is the number lm-eval would print for the same per-item values.
 */

/** Two-sided 95% normal quantile. */
export const Z95 = 1.959963984540054;

/** Python's sum(): a left-to-right double addition (CPython ≤ 3.11 on floats). */
export function pySum(values: readonly number[]): number {
  let total = 0;
  for (const v of values) total += v;
  return total;
}

export function mean(values: readonly number[]): number {
  return pySum(values) / values.length;
}

/**
 * lm-eval's mean_stderr: sample standard deviation (n − 1) over √n, in the harness's
 * order of operations (μ, Σ(x−μ)², /(n−1), sqrt, /sqrt(n)). null (lm-eval's "N/A") for n ≤ 1.
 */
export function meanStderr(values: readonly number[]): number | null {
  const n = values.length;
  if (n <= 1) return null;
  const mu = mean(values);
  let squares = 0;
  for (const v of values) squares += (v - mu) ** 2;
  return Math.sqrt(squares / (n - 1)) / Math.sqrt(n);
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
