/**
 * A spread whose lowest and highest cells are equal names no cell. gpt-3.5-turbo's wmdp_cyber answers read against
 * doc.answer (fixtures/lmeval/pr1668-wmdp, 38 of 100 right under every extractor: python3 over the samples) printed
 * "spread: 0.3800 (exact/strip/micro) to 0.3800 (exact/strip/micro)", and the report on Llama-3's asdiv (acc 0.92, one
 * readable cell) "spread: 0 between the lowest cell (greedy/none = 0.92) and the highest (greedy/none = 0.92)".
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runCli } from '../helpers/cli.ts';

test('rescore: equal cells are "every scored cell"', () => {
  const r = runCli(['rescore', 'fixtures/lmeval/pr1668-wmdp', '--gold-field', 'doc.answer']);
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /\n {2}spread: every scored cell 0\.3800: 0\.00 points\n/);
});

test('report: equal cells are "every scored cell"', () => {
  const r = runCli(['report', 'fixtures/lmeval/pr2236-asdiv/asdiv']);
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /\nspread: 0 \(every scored cell 0\.92\)\. denominator: 50 of 50 items scored/);
  assert.doesNotMatch(r.stdout, /between the lowest cell \(greedy\/none = 0\.92\) and the highest \(greedy\/none = 0\.92\)/);
});
