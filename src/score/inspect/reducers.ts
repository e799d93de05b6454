/**
 * Inspect's epoch reducers (scorer/_metric.py,
 * scorer/_reducer/reducer.py, 0.3.260): mean, median, mode, max, at_least_k,
 * pass_at_k, pass_k_k, collect. Root-NaN scores are the unscored sentinel and
 * are skipped; dict and list values reduce key by key / index by index.
 */
import { UnknownNameError } from '../../errors.ts';
import { exactMean, intRatio, pyMedian } from './numeric.ts';
import { type ScoreValue, valueToFloat } from '../../formats/inspectScore.ts';

export const isUnscored = (value: ScoreValue | undefined): boolean => typeof value === 'number' && Number.isNaN(value);

type Scalar = string | number | boolean;
type Statistic = (values: number[]) => number;
type Counter = (values: Scalar[]) => Scalar;

function statReducer(stat: Statistic): (values: ScoreValue[]) => ScoreValue {
  return (values) =>
    byShape(values, (leaves) => {
      const floats = leaves.map(valueToFloat).filter((v) => !Number.isNaN(v));
      return floats.length === 0 ? Number.NaN : stat(floats);
    });
}

function countReducer(count: Counter): (values: ScoreValue[]) => ScoreValue {
  return (values) =>
    byShape(values, (leaves) => {
      const kept = leaves.filter((v): v is Scalar => v !== null && typeof v !== 'object' && !isUnscored(v));
      return kept.length === 0 ? Number.NaN : count(kept);
    });
}

/** Applies `leaf` per key (dict), per index (list) or to the scalars, shaped by the first scored value. */
function byShape(values: ScoreValue[], leaf: (leaves: ScoreValue[]) => ScoreValue): ScoreValue {
  const scored = values.filter((v) => !isUnscored(v));
  const first = scored[0];
  if (first === undefined) return Number.NaN;
  if (Array.isArray(first)) {
    const lists = scored.filter(Array.isArray) as ScoreValue[][];
    return first.map((_, i) => leaf(lists.map((l) => l[i]!)));
  }
  if (first !== null && typeof first === 'object') {
    const dicts = scored.filter((v) => v !== null && typeof v === 'object' && !Array.isArray(v)) as Record<string, ScoreValue>[];
    return Object.fromEntries(Object.keys(first).map((k) => [k, leaf(dicts.map((d) => d[k]!))]));
  }
  return leaf(scored);
}

/** Python hashing treats 1, 1.0 and True as one key. */
function pyKey(v: Scalar): string {
  return typeof v === 'string' ? `s:${v}` : `n:${Number(v)}`;
}

const mostCommon: Counter = (values) => {
  const counts = new Map<string, { value: Scalar; n: number }>();
  for (const v of values) {
    const entry = counts.get(pyKey(v));
    if (entry === undefined) counts.set(pyKey(v), { value: v, n: 1 });
    else entry.n++;
  }
  let best: { value: Scalar; n: number } | undefined;
  for (const entry of counts.values()) if (best === undefined || entry.n > best.n) best = entry;
  return best!.value;
};

/** max keeps the raw value whose float is largest; the first wins ties. */
function maxReducer(values: ScoreValue[]): ScoreValue {
  return byShape(values, (leaves) => {
    const kept = leaves.filter((v) => !isUnscored(v));
    if (kept.length === 0) return Number.NaN;
    return kept.reduce((best, v) => (valueToFloat(v) > valueToFloat(best) ? v : best));
  });
}

function passAt(k: number, threshold = 1): Statistic {
  return (values) => {
    const total = values.length;
    const correct = values.filter((v) => v >= threshold).length;
    if (total < k) return Number.NaN;
    if (total - correct < k) return 1;
    let product = 1;
    for (let i = total - correct + 1; i <= total; i++) product *= 1 - k / i;
    return 1 - product;
  };
}

function comb(n: number, k: number): bigint {
  if (k < 0 || k > n) return 0n;
  let result = 1n;
  for (let i = 1; i <= k; i++) result = (result * BigInt(n - k + i)) / BigInt(i);
  return result;
}

function passK(k: number, threshold = 1): Statistic {
  return (values) => {
    const total = values.length;
    if (total < k) return Number.NaN;
    const correct = values.filter((v) => v >= threshold).length;
    // Python divides two ints: true division, correctly rounded (each as a double first would round twice past 2^53).
    return intRatio(comb(correct, k), comb(total, k));
  };
}

function atLeast(k: number, threshold = 1): Counter {
  return (values) => (values.filter((v) => valueToFloat(v) >= threshold).length >= k ? 1 : 0);
}

export type EpochReducer = (values: ScoreValue[]) => ScoreValue;

const FIXED: Record<string, EpochReducer> = {
  mean: statReducer(exactMean),
  median: statReducer(pyMedian),
  mode: countReducer(mostCommon),
  max: maxReducer,
  collect: (values) => {
    const kept = values.filter((v) => !isUnscored(v) && (v === null || typeof v !== 'object'));
    return kept.length === 0 ? Number.NaN : kept;
  },
};
const PARAMETERISED: Record<string, (k: number) => EpochReducer> = {
  at_least: (k) => countReducer(atLeast(k)),
  pass_at: (k) => statReducer(passAt(k)),
  pass_k: (k) => statReducer(passK(k)),
};

/** A reducer by its log name (`mean`, `pass_at_2`, `at_least_3` …). The threshold is not logged; 1.0 is assumed. */
export function reducerByName(name: string): EpochReducer {
  const fixed = FIXED[name];
  if (fixed !== undefined) return fixed;
  const m = /^(.*?)_(\d+)$/.exec(name);
  const make = m === null ? undefined : PARAMETERISED[m[1]!];
  if (make === undefined) {
    throw new UnknownNameError('Inspect epoch reducer', name, [...Object.keys(FIXED), 'at_least_<k>', 'pass_at_<k>', 'pass_k_<k>']);
  }
  return make(Number(m![2]));
}
