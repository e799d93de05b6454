import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { mcnemarP, pairedComparison } from '../../src/audit/pairedStats.ts';

// Produced by test/audit/reference/paired_reference.py (scipy binomtest, CPython random, numpy percentile).
const reference = JSON.parse(readFileSync(new URL('./reference/paired_reference.json', import.meta.url), 'utf8'));

test('McNemar exact p equals the two-sided binomial test on the discordant pairs', () => {
  const r = pairedComparison(reference.binary.a, reference.binary.b, { iterations: 2000, seed: 1234 });
  assert.deepEqual(r.mcnemar, { aOnly: 9, bOnly: 2, p: r.mcnemar!.p });
  assert.ok(Math.abs(r.mcnemar!.p - reference.binary.mcnemar_p) < 1e-15);
  // Hand check: 2 * (C(11,0)+C(11,1)+C(11,2)) / 2^11 = 2 * 67 / 2048.
  assert.equal(mcnemarP(9, 2), (2 * 67) / 2048);
  assert.ok(Math.abs(mcnemarP(520, 480) - reference.mcnemar_large) < 1e-12);
  assert.ok(Math.abs(mcnemarP(970, 30) / reference.mcnemar_wide - 1) < 1e-9);
  assert.equal(mcnemarP(0, 0), 1);
});

test('paired bootstrap interval reproduces the Python reference exactly (seeded)', () => {
  const r = pairedComparison(reference.binary.a, reference.binary.b, { iterations: 2000, seed: 1234 });
  assert.deepEqual(r.ci, reference.binary.ci);
  assert.ok(Math.abs(r.difference - -7 / 40) < 1e-15);
  assert.equal(r.decidedBy, 'mcnemar');
  assert.equal(r.distinguishable, false);
  assert.match(r.sentence, /is not distinguishable from noise at n = 40/);
  const c = pairedComparison(reference.continuous.a, reference.continuous.b, { iterations: 500, seed: 7 });
  assert.equal(c.mcnemar, null);
  assert.deepEqual(c.ci, reference.continuous.ci);
  assert.equal(c.decidedBy, 'bootstrap');
});

test('identical scores: difference 0, p = 1, not distinguishable', () => {
  const r = pairedComparison([1, 0, 1], [1, 0, 1]);
  assert.equal(r.difference, 0);
  assert.deepEqual(r.ci, [0, 0]);
  assert.equal(r.mcnemar!.p, 1);
  assert.equal(r.distinguishable, false);
});
