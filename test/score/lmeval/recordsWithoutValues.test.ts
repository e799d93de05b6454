/**
 * A run whose per-sample records hold the prediction and target but no per-sample metric value (the BigScience
 * fork's 2022 examples file for xquad: 7 prompts × 5 examples, `pred` and `target` only) is not said to have "no
 * per-sample records": as-recorded said exactly that of it, while `ls` listed 5 items for each of its 7 tasks.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { externalFixture } from '../../helpers/fixtures.ts';
import { runCli } from '../../helpers/cli.ts';

test('records without per-sample metric values are named as such, with their tasks', () => {
  const r = runCli(['rescore', externalFixture('lm-evaluation-harness/pr566-bigscience-xquad'), '--extractors', 'as-recorded']);
  assert.equal(r.status, 0, r.stderr);
  const tasks = ['answer_given_context_and_question', 'answer_question_given_context', 'answer_the_question', 'given_context_answer_question_variation', 'given_context_generate_question', 'jeopardy', 'read_passage'].map((t) => `xquad.en+${t}`);
  assert.equal(
    r.stdout.split('\n')[1],
    `run lmeval-d41a938286bd5424 (lm-eval): 7 task(s) have printed numbers and per-sample records, but the records hold no per-sample metric value to aggregate, so nothing to reproduce; by name: ${tasks.join(', ')}`,
  );
  assert.ok(!r.stdout.includes('no per-sample records'), r.stdout);
});
