/**
 * Inspect's built-in metrics (scorer/_metrics/*.py, 0.3.260) over reduced
 * per-sample scores, with the arithmetic Inspect uses: accuracy is a plain
 * Python loop sum, mean/stderr go through NumPy (pairwise sums), stderr may be
 * clustered by a metadata key. bootstrap_stderr draws from NumPy's global RNG
 * with no seed, so no log's value can be reproduced bit for bit; it is
 * recomputed with a seeded generator and compared with a tolerance instead.
 */
import { UnknownNameError } from '../../errors.ts';
import { npMean, npStd, npSum } from './numeric.ts';
import { type ScoreValue, valueToFloat } from '../../formats/inspectScore.ts';
import { pushTo } from '../../util/groupBy.ts';

export interface ReducedScore {
  sampleId: string | number;
  value: ScoreValue;
  /** Metadata of the sample's first epoch (clustering reads it). */
  metadata: Record<string, unknown> | null;
}

export type Metric = (scores: readonly ReducedScore[]) => number;

export function accuracy(scores: readonly ReducedScore[]): number {
  if (scores.length === 0) return 0;
  let total = 0;
  for (const s of scores) total += valueToFloat(s.value);
  return total / scores.length;
}

export function mean(scores: readonly ReducedScore[]): number {
  return scores.length === 0 ? 0 : npMean(scores.map((s) => valueToFloat(s.value)));
}

export function stderr(scores: readonly ReducedScore[]): number {
  const n = scores.length;
  if (n - 1 < 1) return 0;
  return npStd(scores.map((s) => valueToFloat(s.value)), 1) / Math.sqrt(n);
}

/** Sample standard deviation (ddof = 1); 0 below two values, as Inspect's std. */
export function std(scores: readonly ReducedScore[]): number {
  return scores.length - 1 < 1 ? 0 : npStd(scores.map((s) => valueToFloat(s.value)), 1);
}

/** Clustered standard error with the finite-cluster correction C/(C-1). */
export function clusteredStderr(cluster: string): Metric {
  return (scores) => {
    const groups = new Map<string, number[]>();
    for (const s of scores) {
      const id = s.metadata?.[cluster];
      if (id === undefined || id === null || (typeof id === 'number' && Number.isNaN(id))) {
        throw new Error(`sample ${s.sampleId} has no cluster metadata '${cluster}'`);
      }
      const key = typeof id === 'string' ? `s:${id}` : `j:${JSON.stringify(id)}`;
      pushTo(groups, key, valueToFloat(s.value));
    }
    const count = groups.size;
    if (count < 2) return 0;
    const all = [...groups.values()].flat();
    const m = npMean(all);
    let variance = 0;
    for (const g of groups.values()) variance += npSum(g.map((x) => x - m)) ** 2;
    return Math.sqrt((variance * count) / (count - 1)) / all.length;
  };
}

/** A small seeded generator (mulberry32): bootstrap draws need only be uniform and repeatable. */
function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function bootstrapStderr(numSamples = 1000, seed = 0): Metric {
  return (scores) => {
    const values = scores.map((s) => valueToFloat(s.value));
    if (values.length === 0) return 0;
    const random = seeded(seed);
    const means: number[] = [];
    for (let b = 0; b < numSamples; b++) {
      const draw = values.map(() => values[Math.floor(random() * values.length)]!);
      means.push(npMean(draw));
    }
    return npStd(means, 0);
  };
}

/**
 * How far a recomputed bootstrap_stderr may sit from a logged one: the Monte
 * Carlo error of a standard deviation estimated from B resamples is about
 * SE / sqrt(2B); four of those, so an honest log fails about once in 15,000.
 */
export function bootstrapTolerance(value: number, numSamples = 1000): number {
  return (4 * Math.abs(value)) / Math.sqrt(2 * numSamples) + 1e-12;
}

export type MetricKind = 'exact' | 'tolerance';

/** The built-in metrics lmaudit recomputes (var is not: its ddof changed from 0 to 1 in Feb 2025, by version). */
export const KNOWN_METRICS = ['accuracy', 'mean', 'stderr', 'bootstrap_stderr', 'std'] as const;

/** True when lmaudit recomputes the metric; a log's custom or other built-in metric is reported, not recomputed. */
export function isKnownMetric(name: string): boolean {
  return (KNOWN_METRICS as readonly string[]).includes(name.replace(/^inspect_ai\//, ''));
}

/** A metric by Inspect's name with its recorded params; `kind` says how its value can be compared. */
export function metricByName(name: string, params: Record<string, unknown> = {}): { metric: Metric; kind: MetricKind } {
  const bare = name.replace(/^inspect_ai\//, '');
  switch (bare) {
    case 'std':
      return { metric: std, kind: 'exact' };
    case 'accuracy':
      return { metric: accuracy, kind: 'exact' };
    case 'mean':
      return { metric: mean, kind: 'exact' };
    case 'stderr':
      return typeof params.cluster === 'string'
        ? { metric: clusteredStderr(params.cluster), kind: 'exact' }
        : { metric: stderr, kind: 'exact' };
    case 'bootstrap_stderr':
      return { metric: bootstrapStderr(typeof params.num_samples === 'number' ? params.num_samples : 1000), kind: 'tolerance' };
    default:
      throw new UnknownNameError('Inspect metric', bare, [...KNOWN_METRICS]);
  }
}
