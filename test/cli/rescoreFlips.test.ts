import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runCli } from '../helpers/cli.ts';
import { fixturePath } from '../helpers/fixtures.ts';

// boolq-seq2seq's 16 answers (" yes"/" no" against "yes"/"no"): 13 are right once stripped and none under lm-eval's
// exact_match, so those 13 flip; docs 5, 6 and 11 are wrong under every cell. `--flips` says how many ids to list
// (default 20); the text listed at most 8 whatever it said.
const RUN = fixturePath('lmeval/bigrefactor-2023-06');
const ALL = '0, 8, 1, 9, 2, 10, 3, 4, 12, 13, 14, 7, 15';

const flipLine = (...flags: string[]) => {
  const r = runCli(['rescore', RUN, ...flags]);
  assert.equal(r.status, 0, r.stderr);
  return r.stdout.split('\n').find((l) => l.includes('items that flip between cells'))!.trim();
};

test('rescore lists as many flipping ids as --flips says, "first" only when some are left out', () => {
  assert.equal(flipLine(), `items that flip between cells: 13 (${ALL})`);
  assert.equal(flipLine('--flips', '10'), 'items that flip between cells: 13 (first: 0, 8, 1, 9, 2, 10, 3, 4, 12, 13)');
  assert.equal(flipLine('--flips', '3'), 'items that flip between cells: 13 (first: 0, 8, 1)');
});
