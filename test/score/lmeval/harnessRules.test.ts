/**
 * Which lm-eval release's rules as-recorded applies to a run (harnessRules.ts): an lm-eval run's own version, and
 * lm-eval 0.4.13's for a store `lmaudit run` wrote, whose harness version (lmaudit's 0.1.0) is no lm-eval release.
 * Before, that 0.1.0 was read as an lm-eval version older than 0.4.12: a median re-aggregated unsorted and a
 * multi_choice_regex filter trying the choices in order, where lmaudit run itself had sorted and tried longest first.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { emptyRunProvenance, inferred, recorded, same } from '../../../src/store/provenanceSchema.ts';
import { scoredByLmevalAtLeast } from '../../../src/score/lmeval/harnessRules.ts';

function run(name: string | null, version: { value: string; inferredHow?: string } | null) {
  const p = emptyRunProvenance({ run_id: 'r', label: 'r', source_kind: name === 'lmaudit' ? 'lmaudit' : 'lm-eval', source_format: 'x' });
  if (name !== null) p.harness.name = same(recorded(name));
  if (version !== null) p.harness.version = same(version.inferredHow === undefined ? recorded(version.value) : inferred(version.value, version.inferredHow));
  return p;
}

test("a store lmaudit run wrote is scored by lm-eval 0.4.13's rules, whatever lmaudit's own version", () => {
  const lmaudit = run('lmaudit', { value: '0.1.0' });
  assert.equal(scoredByLmevalAtLeast(lmaudit, 0, 4, 13), true);
  assert.equal(scoredByLmevalAtLeast(lmaudit, 0, 4, 12), true);
  assert.equal(scoredByLmevalAtLeast(lmaudit, 0, 4, 14), false);
});

test("an lm-eval run by its own version: 0.4.11 before both changes, 0.4.12 sorts medians, 'v0.3.x' reads as 0.3.0", () => {
  assert.equal(scoredByLmevalAtLeast(run('lm-eval', { value: '0.4.11' }), 0, 4, 12), false);
  assert.equal(scoredByLmevalAtLeast(run('lm-eval', { value: '0.4.12' }), 0, 4, 12), true);
  assert.equal(scoredByLmevalAtLeast(run('lm-eval', { value: '0.4.12' }), 0, 4, 13), false);
  assert.equal(scoredByLmevalAtLeast(run(null, { value: '0.4.13' }), 0, 4, 13), true);
  assert.equal(scoredByLmevalAtLeast(run(null, { value: '0.5.0' }), 0, 4, 13), true);
  assert.equal(scoredByLmevalAtLeast(run(null, { value: 'v0.3.x', inferredHow: 'write_out layout' }), 0, 4, 12), false);
  // Neither recorded nor inferred: the newest rules.
  assert.equal(scoredByLmevalAtLeast(run(null, null), 0, 4, 13), true);
});
