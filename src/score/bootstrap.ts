/**
 * `rescore --bootstrap N`: a seeded, stratified bootstrap of every cell. Each
 * replicate redraws every group's items with replacement (CPython's random,
 * seeded, so a Python script can reproduce the replicates), keeping group sizes so
 * that the macro average stays defined. The standard error is the replicates'
 * sample standard deviation (n − 1, as lm-eval's bootstrap_stderr); the interval
 * is the 2.5th–97.5th percentile of the replicates, numpy's default (linear) percentile.
 */
import { PyRandom } from '../py/random.ts';
import { compareCodePoints } from '../py/str.ts';
import { sampleStddev } from './lmeval/aggregate.ts';
import { percentileLinear } from './stats.ts';
import { pushTo } from '../util/groupBy.ts';

export interface BootstrapResult {
  stderr: number | null;
  ci95: [number, number] | null;
  iterations: number;
  seed: number;
}

/** Per cell, per aggregation: values[cell][item] with items' groups. */
export function bootstrapCells(
  values: readonly (readonly number[])[],
  groups: readonly string[],
  iterations: number,
  seed: number,
): { micro: BootstrapResult; macro: BootstrapResult }[] {
  const byGroup = new Map<string, number[]>();
  groups.forEach((g, i) => pushTo(byGroup, g, i));
  // Python's sorted(): by code point (JS's default sort compares UTF-16 units and puts an emoji before 'Ａ').
  const members = [...byGroup.keys()].sort(compareCodePoints).map((g) => byGroup.get(g)!);
  const total = groups.length;
  const rng = new PyRandom(seed);
  const micro: number[][] = values.map(() => []);
  const macro: number[][] = values.map(() => []);
  const sums = new Array<number>(values.length);
  for (let r = 0; r < iterations; r++) {
    const groupMeans: number[][] = values.map(() => []);
    sums.fill(0);
    for (const items of members) {
      const groupSums = new Array<number>(values.length).fill(0);
      // One draw of indices per replicate and group, shared by all cells: paired across cells.
      for (let k = 0; k < items.length; k++) {
        const item = items[rng.randbelow(items.length)]!;
        for (let c = 0; c < values.length; c++) groupSums[c]! += values[c]![item]!;
      }
      for (let c = 0; c < values.length; c++) {
        sums[c]! += groupSums[c]!;
        groupMeans[c]!.push(groupSums[c]! / items.length);
      }
    }
    for (let c = 0; c < values.length; c++) {
      micro[c]!.push(sums[c]! / total);
      macro[c]!.push(groupMeans[c]!.reduce((a, b) => a + b, 0) / groupMeans[c]!.length);
    }
  }
  const summarise = (replicates: number[]): BootstrapResult => {
    const sorted = [...replicates].sort((a, b) => a - b);
    const ci95: [number, number] | null = sorted.length ? [percentileLinear(sorted, 0.025), percentileLinear(sorted, 0.975)] : null;
    return { stderr: replicates.length > 1 ? sampleStddev(replicates) : null, ci95, iterations, seed };
  };
  return values.map((_, c) => ({ micro: summarise(micro[c]!), macro: summarise(macro[c]!) }));
}
