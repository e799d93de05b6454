/**
 * A group holds no items of its own. `diff` of gpt2-tiny's `--tasks mmlu` run and its `--tasks mmlu_stem
 * --predict_only` run said of mmlu_stem "no per-item samples in either run" (and "no per-item samples" in the
 * summary), while both runs hold per-item samples for its leaf tasks (fixtures/models/lmeval-reference/gpt2-tiny/
 * predict-only-group has 19 samples files). Where no leaf has samples (Qwen2.5-7B's xwinograd, lm-eval 0.4.3 vs
 * 0.4.8, results files only), "no per-item samples" is what is true.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runCli } from '../helpers/cli.ts';
import { externalFixture, fixturePath } from '../helpers/fixtures.ts';

const [MMLU, STEM] = [fixturePath('models/lmeval-reference/gpt2-tiny/mmlu-group'), fixturePath('models/lmeval-reference/gpt2-tiny/predict-only-group')];

test('diff: a group whose leaves were paired says it holds no items of its own, not "no per-item samples"', () => {
  // The group and three of its 19 leaves (mmlu_abstract_algebra, mmlu_anatomy, mmlu_astronomy).
  const r = runCli(['diff', MMLU, STEM, '--tasks', 'mmlu_stem,mmlu_a*', '--iterations', '10', '--json']);
  assert.equal(r.status, 0, r.stderr);
  const t = JSON.parse(r.stdout).comparisons[0].tasks.find((x: { taskA: string }) => x.taskA === 'mmlu_stem');
  assert.deepEqual(t.group, { leaves: 19, paired: 3 });
  assert.equal(
    t.pairedNote,
    "mmlu_stem is a group: it holds no items of its own (its number is put together from 19 leaf tasks), so it has no paired statistics of its own; 3 of its leaf tasks are compared item by item; only the group's reported aggregates can be set side by side",
  );
  const text = runCli(['diff', MMLU, STEM, '--tasks', 'mmlu_stem,mmlu_a*', '--iterations', '10']);
  assert.match(text.stdout, /mmlu_stem: differs: samples\.limit; falsifier violated; a group of 19 leaf tasks, no items of its own \(3 of its leaves paired item by item\)/);
  assert.doesNotMatch(text.stdout, /no per-item samples/);
});

test('diff: a group none of whose leaves has samples keeps "no per-item samples"', () => {
  const dir = externalFixture('lm-evaluation-harness/pr2809-qwen-versions/');
  const r = runCli(['diff', `${dir}results-0.4.3/Qwen__Qwen2.5-7B`, `${dir}results-0.4.8/qwen__qwen2.5-7B`, '--run-a', '21-17-00', '--run-b', '02-36-49', '--tasks', 'xwinograd', '--json']);
  assert.equal(r.status, 0, r.stderr);
  const t = JSON.parse(r.stdout).comparisons[0].tasks[0];
  assert.equal(t.taskA, 'xwinograd');
  assert.equal(t.group, undefined);
  assert.match(t.pairedNote, /^no per-item samples in either run/);
});
