/**
 * A group holds no items of its own. `diff` of gpt2-tiny's `--tasks mmlu` run and its `--tasks mmlu_stem
 * --predict_only` run said of mmlu_stem "no per-item samples in either run" (and "no per-item samples" in the
 * summary), while both runs hold per-item samples for every one of its 19 leaf tasks
 * (fixtures/models/lmeval-reference/gpt2-tiny/predict-only-group has 19 samples files).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runCli } from '../helpers/cli.ts';
import { fixturePath } from '../helpers/fixtures.ts';

test('diff: a group says it holds no items of its own and how many leaf tasks it puts together, not "no per-item samples"', () => {
  const r = runCli(['diff', fixturePath('models/lmeval-reference/gpt2-tiny/mmlu-group'), fixturePath('models/lmeval-reference/gpt2-tiny/predict-only-group'), '--tasks', 'mmlu_stem', '--json']);
  assert.equal(r.status, 0, r.stderr);
  const t = JSON.parse(r.stdout).comparisons[0].tasks[0];
  assert.equal(t.taskA, 'mmlu_stem');
  assert.deepEqual(t.group, { leaves: 19 });
  assert.equal(
    t.pairedNote,
    "mmlu_stem is a group: it holds no items of its own (its number is put together from 19 leaf tasks), so it has no paired statistics of its own; each leaf task both runs scored is compared item by item; only the group's reported aggregates can be set side by side",
  );
  const text = runCli(['diff', fixturePath('models/lmeval-reference/gpt2-tiny/mmlu-group'), fixturePath('models/lmeval-reference/gpt2-tiny/predict-only-group'), '--tasks', 'mmlu_stem']);
  assert.match(text.stdout, /mmlu_stem: differs: samples\.limit; falsifier violated; a group of 19 leaf tasks, no items of its own \(each leaf both runs scored is paired\)/);
  assert.doesNotMatch(text.stdout, /no per-item samples/);
});
