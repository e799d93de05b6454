/**
 * lm-eval's aggregations and standard errors (§4), in the harness's operation order
 * so the last digit matches: Python `sum` as a left fold (CPython ≤3.11, and numpy
 * floats on any version) or Neumaier (CPython ≥3.12 on Python floats), Bessel
 * stddev, the chunked MT19937 bootstrap, numpy's pairwise sum for nanmean, and the
 * pooled group stderr.
 */
import { PyRandom } from '../../py/random.ts';
import { npSum } from '../../util/numpySum.ts';
import { pyExp, pyLog } from '../../py/math.ts';

export type SumMode = 'fold' | 'neumaier';
export type Stderr = number | 'N/A';

export function pySum(xs: readonly number[], mode: SumMode = 'fold'): number {
  if (mode === 'fold') {
    let s = 0;
    for (const x of xs) s += x;
    return s;
  }
  // CPython 3.12 sum(): Neumaier compensation, the correction added at the end.
  let s = 0;
  let c = 0;
  for (const x of xs) {
    const t = s + x;
    if (Math.abs(s) >= Math.abs(x)) c += s - t + x;
    else c += x - t + s;
    s = t;
  }
  return Number.isFinite(c) ? s + c : s;
}

export function mean(xs: readonly number[], mode: SumMode = 'fold'): number {
  return pySum(xs, mode) / xs.length;
}

/** sample_stddev: μ = sum/n; Σ(x−μ)²; /(n−1); sqrt. */
export function sampleStddev(xs: readonly number[], mode: SumMode = 'fold'): number {
  const mu = mean(xs, mode);
  return Math.sqrt(pySum(xs.map((x) => (x - mu) * (x - mu)), mode) / (xs.length - 1));
}

export function meanStderr(xs: readonly number[], mode: SumMode = 'fold'): number {
  return sampleStddev(xs, mode) / Math.sqrt(xs.length);
}

/** median: the upper middle of the sorted list (≥0.4.12); before 0.4.12 the list was not sorted. */
export function median(xs: readonly number[], sorts = true): number {
  const list = sorts ? [...xs].sort((a, b) => a - b) : xs;
  return list[Math.floor(list.length / 2)]!;
}

export function perplexity(lls: readonly number[], mode: SumMode = 'fold'): number {
  return pyExp(-mean(lls, mode));
}

/** weighted_mean: sum(ll) / sum(weight) over (ll, weight) pairs (weights are ints, so their sum is exact). */
export function weightedMean(items: readonly (readonly [number, number])[], mode: SumMode = 'fold'): number {
  return pySum(items.map((i) => i[0]), mode) / pySum(items.map((i) => i[1]), 'fold');
}

/** weighted_perplexity: exp(−Σll/Σw), corpus-level (word_perplexity, byte_perplexity). */
export function weightedPerplexity(items: readonly (readonly [number, number])[], mode: SumMode = 'fold'): number {
  return pyExp(-weightedMean(items, mode));
}

/** bits_per_byte: −Σll/Σbytes / math.log(2). */
export function bitsPerByte(items: readonly (readonly [number, number])[], mode: SumMode = 'fold'): number {
  return -weightedMean(items, mode) / pyLog(2);
}

/** nanmean: NaN for an empty or all-NaN list, else numpy.nanmean (NaNs dropped, pairwise sum). */
export function nanmean(xs: readonly number[]): number {
  // numpy replaces NaN by 0 and sums the whole array (the grouping of the pairwise sum depends on length).
  const count = xs.filter((x) => !Number.isNaN(x)).length;
  if (count === 0) return Number.NaN;
  return npSum(xs.map((x) => (Number.isNaN(x) ? 0 : x))) / count;
}

/**
 * bootstrap_stderr(f, xs, iters): chunks of min(1000, iters) replicates, chunk i drawn
 * with random.Random(i).choices(xs, k=len(xs)); the remainder of iters is dropped.
 */
export function bootstrapStderr<T>(f: (sample: T[]) => number, xs: readonly T[], iters: number, mode: SumMode = 'fold'): number {
  const chunk = Math.min(1000, iters);
  const chunks = Math.floor(iters / chunk);
  const replicates: number[] = [];
  for (let i = 0; i < chunks; i++) {
    const rng = new PyRandom(i);
    for (let j = 0; j < chunk; j++) replicates.push(f(rng.choices(xs, xs.length)));
  }
  return sampleStddev(replicates, mode);
}

export type AggregationName = 'mean' | 'median' | 'perplexity' | 'nanmean';
export const BOOTSTRAPPED = new Set(['median', 'matthews_corrcoef', 'f1', 'perplexity', 'bleu', 'chrf', 'ter', 'nanmean']);

export interface AggregateOptions {
  mode: SumMode;
  bootstrapIters: number | null;
  /** median sorts from 0.4.12 on. */
  medianSorts: boolean;
  /** bleu/chrf/ter use at most 100 bootstrap iterations. */
  metric: string;
}

/** The aggregate and its stderr as lm-eval computes them (§4.3). */
export function aggregate(name: AggregationName, xs: readonly number[], o: AggregateOptions): { value: number; stderr: Stderr } {
  const fn: (s: readonly number[]) => number = {
    mean: (s: readonly number[]) => mean(s, o.mode),
    median: (s: readonly number[]) => median(s, o.medianSorts),
    perplexity: (s: readonly number[]) => perplexity(s, o.mode),
    nanmean,
  }[name];
  const value = fn(xs);
  let stderr: Stderr = 'N/A';
  if (o.bootstrapIters !== null && o.bootstrapIters > 0 && xs.length > 1) {
    if (name === 'mean') stderr = meanStderr(xs, o.mode);
    else if (BOOTSTRAPPED.has(name)) {
      const iters = ['bleu', 'chrf', 'ter'].includes(o.metric) ? Math.min(o.bootstrapIters, 100) : o.bootstrapIters;
      stderr = bootstrapStderr((s) => fn(s), xs, iters, o.mode);
    }
  }
  return { value, stderr };
}

/**
 * How a group that does not weight by size gets its stderr: lm-eval 0.4.13's unweighted_mean_stderr
 * (sqrt(Σ se²) / k, the stderr of the plain mean of k independent task means), or, up to 0.4.12, the
 * pooled_sample_stderr that a size-weighted group uses (the two agree only when the tasks' sizes are equal).
 */
export type UnweightedGroupStderr = 'unweighted-mean' | 'pooled';

/** A group's value (size-weighted or not) and its stderr over its leaf tasks (§4.5, api/group.py). */
export function groupAggregate(
  tasks: readonly { value: number; stderr: Stderr; n: number }[],
  weightBySize: boolean,
  unweightedStderr: UnweightedGroupStderr = 'unweighted-mean',
): { value: number; stderr: Stderr } {
  const weights = tasks.map((t) => (weightBySize ? t.n : 1));
  const value = pySum(tasks.map((t, i) => t.value * weights[i]!)) / pySum(weights);
  if (tasks.some((t) => t.stderr === 'N/A')) return { value, stderr: 'N/A' };
  if (!weightBySize && unweightedStderr === 'unweighted-mean') {
    return { value, stderr: Math.sqrt(pySum(tasks.map((t) => (t.stderr as number) * (t.stderr as number)))) / tasks.length };
  }
  const total = pySum(tasks.map((t) => t.n));
  const pooled = pySum(tasks.map((t) => (t.n - 1) * ((t.stderr as number) * (t.stderr as number)) * t.n)) / (total - tasks.length);
  return { value, stderr: Math.sqrt(pooled / total) };
}
