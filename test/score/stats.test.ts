import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { percentileLinear } from '../../src/score/stats.ts';

// numpy.percentile (default method "linear") on seeded arrays: fixtures/make_percentile_cases.py.
const reference = JSON.parse(readFileSync(new URL('./fixtures/percentile_cases.json', import.meta.url), 'utf8')) as {
  numpy: string;
  cases: { values: number[]; percentiles: number[]; expected: number[] }[];
};

test("percentileLinear is numpy.percentile's default to the last bit", () => {
  assert.equal(reference.cases.length, 18);
  for (const { values, percentiles, expected } of reference.cases) {
    percentiles.forEach((p, k) => assert.equal(percentileLinear(values, p / 100), expected[k], `n = ${values.length}, p = ${p}`));
  }
});

test('percentileLinear by hand: (n − 1)·q, interpolated from the upper neighbour past the midpoint', () => {
  assert.equal(percentileLinear([1, 2, 3, 4], 0.5), 2.5);
  assert.equal(percentileLinear([1, 2, 3, 4], 0.025), 1.075);
  assert.equal(percentileLinear([1, 2, 3, 4], 0), 1);
  assert.equal(percentileLinear([1, 2, 3, 4], 1), 4);
  assert.equal(percentileLinear([5], 0.975), 5);
  // Not the nearest rank: index 0.975 · 9 = 8.775 lies between 8 and 9.
  assert.equal(percentileLinear([0, 1, 2, 3, 4, 5, 6, 7, 8, 9], 0.975), 8.775);
});
