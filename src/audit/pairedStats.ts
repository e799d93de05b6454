/**
 * Paired statistics on the items two runs share: the difference in mean score
 * (B − A), a paired percentile-bootstrap 95% interval on it, and for 0/1 scores
 * the exact McNemar test. Paired, because both runs answered the same items:
 * the variance of a difference of correlated means is much smaller than the
 * unpaired z-test (lm-eval's model_comparator) assumes.
 *
 * The bootstrap draws indices with CPython's `random.Random(seed).randrange(n)`
 * (src/prompt/pyrandom.ts), so a few lines of Python reproduce an interval to
 * the last digit (test/audit/reference/paired_reference.py).
 */
import { PyRandom } from '../py/random.ts';
import { percentileLinear, Z95 } from '../score/stats.ts';

export interface PairedOptions {
  /**
   * Bootstrap resamples (default 2000: a percentile interval is stable there,
   * and each resample costs n draws — 50 000 items × 12 scores × 10 000 would take minutes).
   */
  iterations: number;
  /** Seed of the bootstrap's random.Random (default 1234). */
  seed: number;
  /** Two-sided level of the interval and of the test (default 0.05 → 95%). */
  alpha: number;
}

export const DEFAULT_PAIRED_OPTIONS: PairedOptions = { iterations: 2000, seed: 1234, alpha: 0.05 };

export interface McNemar {
  /** Items 1 (right) in A and 0 in B. */
  aOnly: number;
  /** Items 0 in A and 1 (right) in B. */
  bOnly: number;
  /** Exact two-sided p-value: 2·P(X ≤ min(b, c)) for X ~ Binomial(b + c, 1/2), capped at 1. */
  p: number;
  /** Set where a 1 is the worse outcome (the source's higher_is_better is false: crows_pairs' pct_stereotype). */
  oneIsWorse?: true;
}

/**
 * The discordant items in words: "right only in A" where a 1 is right; where the source says lower is better, a 1 is
 * not right (crows_pairs' pct_stereotype is 1 where the model preferred the stereotype), and the count says "1".
 */
export function onlyInPhrase(aOnly: number, bOnly: number, oneIsWorse = false): string {
  return oneIsWorse
    ? `${aOnly} scored 1 only in A, ${bOnly} only in B; a 1 is the worse outcome here, higher_is_better false`
    : `${aOnly} right only in A, ${bOnly} right only in B`;
}

export interface PairedResult {
  n: number;
  meanA: number;
  meanB: number;
  /** B − A: the mean of the per-item differences (meanB − meanA up to rounding; exact on 0/1 scores). */
  difference: number;
  /** Percentile bootstrap interval on the difference. */
  ci: [number, number];
  iterations: number;
  seed: number;
  /** Present only when every score is 0 or 1. */
  mcnemar: McNemar | null;
  /** Which test decided `distinguishable`. */
  decidedBy: 'mcnemar' | 'bootstrap';
  distinguishable: boolean;
  /** The plain sentence for people. */
  sentence: string;
}

/** Paired comparison of per-item scores `a[i]`, `b[i]` on the same items (NaN-free, same length). */
export function pairedComparison(a: readonly number[], b: readonly number[], options: Partial<PairedOptions> = {}, oneIsWorse = false): PairedResult {
  const { iterations, seed, alpha } = { ...DEFAULT_PAIRED_OPTIONS, ...options };
  if (a.length !== b.length) throw new RangeError(`paired samples differ in length (${a.length} vs ${b.length})`);
  const n = a.length;
  const meanA = mean(a);
  const meanB = mean(b);
  const diffs = a.map((x, i) => b[i]! - x);
  // The mean of the per-item differences, not meanB − meanA: on 0/1 scores their sum is an exact integer, so 4/20 − 3/20
  // is 0.05 itself, where 0.2 − 0.15 gives 0.05000000000000002 and a declared max_abs_difference of 0.05 was "violated".
  const difference = mean(diffs);
  const ci = bootstrapInterval(diffs, iterations, seed, alpha);
  const binary = n > 0 && [...a, ...b].every((v) => v === 0 || v === 1);
  const mcnemar = binary ? { ...mcnemarExact(a, b), ...(oneIsWorse ? { oneIsWorse: true as const } : {}) } : null;
  const decidedBy = mcnemar !== null ? 'mcnemar' : 'bootstrap';
  const excludes = ci[0] > 0 || ci[1] < 0;
  const differing = diffs.filter((d) => d !== 0).length;
  const distinguishable = n > 0 && (mcnemar !== null ? mcnemar.p < alpha : excludes && signTestCanReject(differing, alpha));
  return { n, meanA, meanB, difference, ci, iterations, seed, mcnemar, decidedBy, distinguishable, sentence: sentenceFor(n, difference, distinguishable, mcnemar, ci, alpha, differing) };
}

/**
 * Whether any two-sided test at `alpha` could tell `differing` non-zero paired differences from chance: the exact
 * sign test's smallest p, all of them on one side, is 2·0.5^m. Below that a percentile bootstrap still excludes 0
 * (two HELM items whose prompt-token counts both fell gave [-16, -13] at n = 2), but only because a resample of two
 * items cannot land far from them; McNemar, the same test on 0/1 scores, gives p = 0.5 there.
 */
export function signTestCanReject(differing: number, alpha: number): boolean {
  return 2 * 0.5 ** differing < alpha;
}

/** The plain sentence of a paired result (also for the corpus-level aggregates of pairedCorpus.ts). */
export function sentenceFor(n: number, difference: number, distinguishable: boolean, mcnemar: McNemar | null, ci: [number, number], alpha: number, differing: number): string {
  if (n === 0) return 'There are no shared items, so the difference cannot be tested.';
  const level = `${Math.round((1 - alpha) * 100)}%`;
  const excludes = ci[0] > 0 || ci[1] < 0;
  const interval = `the paired bootstrap ${level} interval [${ci[0].toPrecision(3)}, ${ci[1].toPrecision(3)}] ${excludes ? 'excludes' : 'includes'} 0`;
  const evidence =
    mcnemar !== null
      ? `McNemar exact ${pClause(mcnemar.p)} on ${mcnemar.aOnly + mcnemar.bOnly} discordant item(s) (${onlyInPhrase(mcnemar.aOnly, mcnemar.bOnly, mcnemar.oneIsWorse)})` +
        // The table prints the bootstrap interval beside the verdict: where it points the other way, say which test decides.
        (excludes === distinguishable || !Number.isFinite(ci[0]) ? '' : `; ${interval}, but on 0/1 scores the exact test decides`)
      : excludes && !distinguishable
        ? `${interval}, but only ${differing} item(s) differ, too few for any two-sided test at ${alpha}: the exact sign test's smallest p on them is ${formatP(2 * 0.5 ** differing)}`
        : interval;
  return `The difference (B − A = ${signed(difference)}) ${distinguishable ? 'is' : 'is not'} distinguishable from noise at n = ${n}: ${evidence}.`;
}

/** Four significant digits, as the tables print a difference; from 1000 up the whole number (-585152, not -585200). */
function signed(x: number): string {
  const s = Math.abs(x) >= 1000 ? Number(x.toFixed(0)).toString() : Number(x.toPrecision(4)).toString();
  return x > 0 ? `+${s}` : s;
}

/**
 * Below this a p-value has lost its digits: the exact tail underflows to a subnormal or to 0, which
 * would print as 0.00e+0, a certainty no test gives. Such a p-value prints as `< 1e-300`.
 */
const P_FLOOR = 1e-300;

export function formatP(p: number): string {
  if (p < P_FLOOR) return '< 1e-300';
  return p >= 0.001 ? Number(p.toPrecision(3)).toString() : p.toExponential(2);
}

/** `p = 0.0312` (or `p=…` with `equals: '='`), and `p < 1e-300` where the double cannot show it. */
export function pClause(p: number, equals = ' = '): string {
  return p < P_FLOOR ? `p ${formatP(p)}` : `p${equals}${formatP(p)}`;
}

/**
 * Mean of per-item differences with its closed-form paired standard error sd(d, n−1)/√n and
 * interval mean ± 1.96·stderr (the standard error the matrix's cells use); none from one item.
 * `lmaudit table`'s interactions and the viewer's two-readings comparison state it.
 */
export function pairedMeanStderr(d: readonly number[]): { mean: number; stderr: number | null; ci95: [number, number] | null } {
  const n = d.length;
  const mean = d.reduce((s, x) => s + x, 0) / n;
  const stderr = n < 2 ? null : Math.sqrt(d.reduce((s, x) => s + (x - mean) ** 2, 0) / (n - 1)) / Math.sqrt(n);
  return { mean, stderr, ci95: stderr === null ? null : [mean - Z95 * stderr, mean + Z95 * stderr] };
}

function mean(xs: readonly number[]): number {
  if (xs.length === 0) return Number.NaN;
  let sum = 0;
  for (const x of xs) sum += x;
  return sum / xs.length;
}

/** Exact McNemar: only discordant pairs carry information; under H0 each is A-only or B-only with probability 1/2. */
export function mcnemarExact(a: readonly number[], b: readonly number[]): McNemar {
  let aOnly = 0;
  let bOnly = 0;
  for (let i = 0; i < a.length; i++) {
    if (a[i] === 1 && b[i] === 0) aOnly++;
    else if (a[i] === 0 && b[i] === 1) bOnly++;
  }
  return { aOnly, bOnly, p: mcnemarP(aOnly, bOnly) };
}

export function mcnemarP(aOnly: number, bOnly: number): number {
  const m = aOnly + bOnly;
  if (m === 0) return 1;
  const k = Math.min(aOnly, bOnly);
  // Sum in log space: m can be in the thousands, where 2^-m underflows.
  const logHalfM = -m * Math.LN2;
  let tail = 0;
  let logC = 0; // log C(m, 0)
  for (let i = 0; i <= k; i++) {
    if (i > 0) logC += Math.log(m - i + 1) - Math.log(i);
    tail += Math.exp(logC + logHalfM);
  }
  return Math.min(1, 2 * tail);
}

/**
 * Percentile bootstrap of the mean of `diffs`: each resample draws n indices
 * with `randrange(n)`; the interval is the alpha/2 and 1 − alpha/2 quantiles
 * (numpy's default linear interpolation, `percentileLinear`) of the resampled means.
 */
export function bootstrapInterval(diffs: readonly number[], iterations: number, seed: number, alpha: number): [number, number] {
  const n = diffs.length;
  if (n === 0 || iterations <= 0) return [Number.NaN, Number.NaN];
  // Every resample of a constant has that mean: skip the draws (Python's loop gives the same interval).
  if (diffs.every((d) => d === diffs[0])) return [diffs[0]!, diffs[0]!];
  const rng = new PyRandom(seed);
  const means = new Float64Array(iterations);
  for (let it = 0; it < iterations; it++) {
    let sum = 0;
    for (let j = 0; j < n; j++) sum += diffs[rng.randbelow(n)]!;
    means[it] = sum / n;
  }
  return percentileInterval(means, alpha);
}

/** The alpha/2 and 1 − alpha/2 quantiles of bootstrap replicates (sorted here), numpy's linear interpolation. */
export function percentileInterval(replicates: Float64Array, alpha: number): [number, number] {
  replicates.sort();
  return [percentileLinear(replicates, alpha / 2), percentileLinear(replicates, 1 - alpha / 2)];
}

