/**
 * Paired statistics for lm-eval's corpus-level aggregations of loglikelihood_rolling tasks: word_perplexity and
 * byte_perplexity (weighted_perplexity, exp(−Σll/Σw)) and bits_per_byte (−Σll/Σbytes / ln 2). Their per-item
 * values are (log-likelihood, weight) pairs, not numbers, so the mean-based pairing had nothing to pair: `diff` of
 * gpt2-tiny and qwen3-tiny on lambada_rolling showed three reported scores that differ and no statistic on them.
 * Here A and B are each side's aggregate over the shared items (lm-eval's own number when every item is shared),
 * and the percentile bootstrap resamples items, the same indices on both sides, recomputing both aggregates.
 */
import { PyRandom } from '../py/random.ts';
import { bitsPerByte, weightedPerplexity } from '../score/lmeval/aggregate.ts';
import { DEFAULT_AGGREGATION } from '../score/lmeval/taskScoring.ts';
import type { RunProvenance } from '../store/schema.ts';
import { aggregationOf } from './pairedAggregation.ts';
import type { DocRecord } from './itemJoin.ts';
import type { WeightedPair } from './weightedPair.ts';
import { DEFAULT_PAIRED_OPTIONS, percentileInterval, sentenceFor, signTestCanReject, type PairedOptions, type PairedResult } from './pairedStats.ts';

type CorpusAggregation = 'weighted_perplexity' | 'bits_per_byte';

const AGGREGATE: Record<CorpusAggregation, (items: readonly WeightedPair[]) => number> = {
  weighted_perplexity: (items) => weightedPerplexity(items),
  bits_per_byte: (items) => bitsPerByte(items),
};

/** The corpus aggregation both runs use for `metric` (recorded, else lm-eval's registered default), or null. */
export function corpusAggregation(metric: string, a: { run: RunProvenance; task: string }, b: { run: RunProvenance; task: string }): CorpusAggregation | null {
  const of = (s: { run: RunProvenance; task: string }) => aggregationOf(s.run, s.task, metric) ?? DEFAULT_AGGREGATION[metric];
  const [x, y] = [of(a), of(b)];
  return x === y && (x === 'weighted_perplexity' || x === 'bits_per_byte') ? x : null;
}

const WHAT: Record<CorpusAggregation, string> = {
  weighted_perplexity: "A and B are lm-eval's weighted_perplexity, exp(−(sum of log-likelihoods) / (sum of weights)), of the shared items' recorded pairs (the reported number when every item is shared); lower is better, so a negative B − A is a lower perplexity in B; each bootstrap resample recomputes both aggregates on the same items",
  bits_per_byte: "A and B are lm-eval's bits_per_byte, −(sum of log-likelihoods) / (sum of bytes) / ln 2, of the shared items' recorded pairs (the reported number when every item is shared); lower is better, so a negative B − A is fewer bits per byte in B; each bootstrap resample recomputes both aggregates on the same items",
};

/** The label's note on what A and B are. */
export const CORPUS_VALUES: Record<CorpusAggregation, string> = {
  weighted_perplexity: 'weighted_perplexity of the shared items',
  bits_per_byte: 'bits_per_byte of the shared items',
};

/** Paired comparison of a corpus-level aggregate on the same items (`a[i]` and `b[i]` are one item's pairs). */
export function pairedCorpusComparison(
  a: readonly WeightedPair[],
  b: readonly WeightedPair[],
  aggregation: CorpusAggregation,
  options: Partial<PairedOptions> = {},
): PairedResult {
  const { iterations, seed, alpha } = { ...DEFAULT_PAIRED_OPTIONS, ...options };
  if (a.length !== b.length) throw new RangeError(`paired samples differ in length (${a.length} vs ${b.length})`);
  const n = a.length;
  const f = AGGREGATE[aggregation];
  const meanA = n === 0 ? Number.NaN : f(a);
  const meanB = n === 0 ? Number.NaN : f(b);
  const difference = meanB - meanA;
  const differing = a.filter((x, i) => x[0] !== b[i]![0] || x[1] !== b[i]![1]).length;
  const ci = corpusBootstrap(a, b, f, differing, difference, iterations, seed, alpha);
  const excludes = ci[0] > 0 || ci[1] < 0;
  const distinguishable = n > 0 && excludes && signTestCanReject(differing, alpha);
  const sentence = `${sentenceFor(n, difference, distinguishable, null, ci, alpha, differing)} ${WHAT[aggregation]}.`;
  return { n, meanA, meanB, difference, ci, iterations, seed, mcnemar: null, decidedBy: 'bootstrap', distinguishable, sentence };
}

function corpusBootstrap(
  a: readonly WeightedPair[],
  b: readonly WeightedPair[],
  f: (items: readonly WeightedPair[]) => number,
  differing: number,
  difference: number,
  iterations: number,
  seed: number,
  alpha: number,
): [number, number] {
  const n = a.length;
  if (n === 0 || iterations <= 0) return [Number.NaN, Number.NaN];
  // Equal pairs on every item: every resample's two aggregates are equal.
  if (differing === 0) return [difference, difference];
  const rng = new PyRandom(seed);
  const diffs = new Float64Array(iterations);
  const [ra, rb] = [new Array<WeightedPair>(n), new Array<WeightedPair>(n)];
  for (let it = 0; it < iterations; it++) {
    for (let j = 0; j < n; j++) {
      const k = rng.randbelow(n);
      ra[j] = a[k]!;
      rb[j] = b[k]!;
    }
    diffs[it] = f(rb) - f(ra);
  }
  return percentileInterval(diffs, alpha);
}

/**
 * The corpus-level paired scores of the joined items: each 'metric,filter' both sides record as (log-likelihood,
 * weight) pairs under one corpus aggregation. Items without a pair on one side are counted as dropped.
 */
export function pairedCorpusScores(
  pairs: readonly [DocRecord, DocRecord][],
  a: { run: RunProvenance; task: string },
  b: { run: RunProvenance; task: string },
  options: Partial<PairedOptions>,
): { score: string; dropped: number; values: string; result: PairedResult }[] {
  const keys = new Set<string>();
  for (const [x, y] of pairs) for (const k of x.weighted?.keys() ?? []) if (y.weighted?.has(k)) keys.add(k);
  const out: { score: string; dropped: number; values: string; result: PairedResult }[] = [];
  for (const score of [...keys].sort()) {
    const aggregation = corpusAggregation(score.split(',')[0]!, a, b);
    if (aggregation === null) continue;
    const [xs, ys]: WeightedPair[][] = [[], []];
    for (const [x, y] of pairs) {
      const [px, py] = [x.weighted?.get(score), y.weighted?.get(score)];
      if (px === undefined || py === undefined) continue;
      xs.push(px);
      ys.push(py);
    }
    out.push({ score, dropped: pairs.length - xs.length, values: CORPUS_VALUES[aggregation], result: pairedCorpusComparison(xs, ys, aggregation, options) });
  }
  return out;
}
