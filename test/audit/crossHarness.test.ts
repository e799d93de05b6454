/**
 * `diff` across harnesses and across HELM runs: settings mapped to the same disclosure items and compared by
 * meaning (HELM's max_train_instances is the few-shot count; its multiple-choice adapter sends no stop sequences
 * whatever the spec says), items aligned by content when ids differ, the prompt difference shown, and paired
 * statistics on what aligned — on HELM's BBQ runs (5-shot vs 0-shot; three models) and on HELM's MMLU run against
 * the real lm-eval run of the same nine questions (fixtures/helm-vs-lmeval).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { decodedFixture, fixturePath } from '../helpers/fixtures.ts';
import { loadSource } from '../../src/audit/source.ts';
import { diffStores } from '../../src/audit/diff.ts';

const options = { skipBad: false, fields: {} };
const bbq = (suite: string, model: string) =>
  decodedFixture('helm', `stanford-crfm-helm/benchmark_output${suite}/bbq:subject=all,method=multiple_choice_joint,model=${model}`);
const fiveShot = bbq('_bbq/runs/v1', 'openai_gpt-4-turbo-2024-04-09');
const zeroShot = (model: string) => bbq('_TRUE_latest/runs/v3', model);
const mmlu = decodedFixture('helm', 'evaleval-every_eval_ever/tests/data/helm/mmlu:subject=philosophy,method=multiple_choice_joint,model=openai_gpt2');

async function diff(a: string, b: string) {
  const [sa, sb] = [await loadSource([a], options), await loadSource([b], options)];
  return diffStores(sa.store, sb.store, { iterations: 200 });
}

const differing = (t: { settings: { items: { item: string; fields: { field: string; verdict: string }[] }[] } }) =>
  t.settings.items.flatMap((i) => i.fields.filter((f) => f.verdict !== 'same' && !f.verdict.startsWith('unknown')).map((f) => `${i.item}.${f.field}: ${f.verdict}`));

test('BBQ 5-shot vs 0-shot (same model): only the few-shot count and the sample set differ; the one shared item aligns', async () => {
  const result = await diff(fiveShot, zeroShot('openai_gpt-4-turbo-2024-04-09'));
  const task = result.comparisons[0]!.tasks[0]!;
  // The spec's stop_sequences ["\n"] is not sent by the multiple_choice_joint adapter: no contradiction, no difference.
  assert.deepEqual(differing(task), ['fewshot.count: differs', 'samples.limit: differs', 'samples.document_count: differs', 'samples.document_ids: differs']);
  assert.equal(task.items!.shared, 1);
  assert.equal(task.items!.onlyB, 1);
  assert.equal(task.items!.differences.promptsDiffer, 1);
  // The 5-shot prompt holds five worked examples the 0-shot one does not: 35 lines removed.
  assert.match(task.items!.differences.promptExamples[0]!.patch, /@@ -1,39 \+1,4 @@/);
  const em = task.paired.find((p) => p.score === 'exact_match,split=test')!;
  assert.deepEqual([em.result.n, em.result.meanA, em.result.meanB], [1, 1, 1]);
});

test('BBQ 0-shot, three models: the run-level model differs, the adapter settings compare as the same', async () => {
  const claude = zeroShot('anthropic_claude-3-5-sonnet-20240620');
  for (const other of ['openai_gpt-4o-2024-05-13', 'openai_gpt-4-turbo-2024-04-09']) {
    const result = await diff(zeroShot(other), claude);
    const comparison = result.comparisons[0]!;
    const runLevel = comparison.runSettings.items.flatMap((i) => i.fields.filter((f) => f.verdict === 'differs').map((f) => `${i.item}.${f.field}`));
    assert.deepEqual(runLevel.filter((f) => f.startsWith('model.')), ['model.backend', 'model.model_id']);
    const task = comparison.tasks[0]!;
    // Claude's spec says stop_sequences [], OpenAI's ["\n"]: both send none, so stop sequences are the same.
    assert.ok(!differing(task).some((f) => f.startsWith('generation.stop_sequences')), differing(task).join('; '));
    assert.equal(task.items!.shared, 2);
  }
});

test('HELM MMLU vs the lm-eval run of the same questions: 9 items aligned on the question text, prompts differ, correctness paired', async () => {
  const result = await diff(mmlu, join(fixturePath('helm-vs-lmeval'), 'lm-eval'));
  const task = result.comparisons[0]!.tasks[0]!;
  const items = task.items!;
  assert.equal(items.key, 'doc_text');
  assert.deepEqual(items.pairsByKey, { doc_hash: 0, doc_content: 0, doc_text: 9, doc_id: 0 });
  assert.deepEqual([items.shared, items.onlyA, items.onlyB, items.onlyAIds], [9, 1, 0, ['id11']]);
  // HELM writes "Question: " before each question; lm-eval does not.
  assert.equal(items.differences.promptsDiffer, 9);
  assert.match(items.differences.promptExamples[0]!.patch, /\n-Question: According to Moore’s “ideal utilitarianism,”/);
  const paired = task.paired.find((p) => p.score.startsWith('correct ('))!;
  assert.equal(paired.score, 'correct (A exact_match,split=test ~ B acc,none)');
  // HELM's gpt2 got 1 of the 9 test items right (id222); lm-eval's dummy model none (its results file: acc 0).
  assert.deepEqual([paired.result.n, paired.result.meanA, paired.result.meanB], [9, 1 / 9, 0]);
  // Both prompts show the same five fixed examples after the task description: five visible on each side.
  assert.deepEqual([task.checks.a, task.checks.b].map((side) => side.find((c) => c.id === 'fewshot_count')!).map((c) => [c.status, c.used]), [['ok', '5'], ['ok', '5']]);
  // Few-shot count: HELM's max_train_instances and lm-eval's num_fewshot are both 5.
  assert.ok(!differing(task).includes('fewshot.count: differs'), differing(task).join('; '));
});
