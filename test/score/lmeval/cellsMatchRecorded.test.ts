/**
 * Issue 28 §1: on lmaudit's own run stores, every default matrix cell named after an lm-eval metric equals the
 * per-item value lmaudit run recorded for that metric (lm-eval's process_results, reproduced digit for digit
 * by taskScoring.ts and checked against real lm-eval runs in cellsOnLmevalRuns.test.ts). Every multiple-choice
 * and loglikelihood task in tasks/ (one per task folder: the mmlu subjects share one configuration), on both
 * fixture models, a few documents each.
 */
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { TaskIndex } from '../../../src/tasks/index.ts';
import { loadSource } from '../../../src/audit/source.ts';
import { computeMatrix } from '../../../src/score/matrix.ts';
import { ONE_THREAD, runCli } from '../../helpers/cli.ts';
import { fixturePath } from '../../helpers/fixtures.ts';
import { compareDefaultCells } from './recordedCells.ts';
import { slowOnly, slowTests } from '../../helpers/slow.ts';
import { everyTask } from '../../helpers/everyTask.ts';

/** Every task of tasks/ whose output type sends loglikelihood requests; of a folder of many (mmlu's subjects, one configuration), the first. */
function loglikelihoodTasks(): string[] {
  const index = TaskIndex.withShipped();
  const byFolder = new Map<string, string[]>();
  for (const config of everyTask(index)) {
    if (!['multiple_choice', 'loglikelihood'].includes(config.output_type)) continue;
    byFolder.set(dirname(config.source), [...(byFolder.get(dirname(config.source)) ?? []), config.task]);
  }
  return [...byFolder.values()].flatMap((names) => (names.length > 3 ? [names.sort()[0]!] : names)).sort();
}

const dir = mkdtempSync(join(tmpdir(), 'lmaudit-cells-'));
process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
const tasks = loglikelihoodTasks();

/**
 * qwen3-tiny's run of every task is a slow cross-check (LMAUDIT_SLOW_TESTS=1; CI runs it): the cells are computed
 * from what the store holds, whichever model wrote it, and gpt2-tiny's run takes the same paths in under half the
 * time; qwen3-tiny's own case (arc_challenge 5-shot, doc 7) and lm-eval's qwen3-tiny runs below stay in the plain suite.
 */
const models = slowTests ? ['gpt2-tiny', 'qwen3-tiny'] : ['gpt2-tiny'];

before(() => {
  for (const model of models) {
    const r = runCli(['run', '--model', 'onnx', '--model_args', `pretrained=${fixturePath(`models/${model}`)},${ONE_THREAD}`, '--tasks', tasks.join(','), '--limit', '5', '--out', join(dir, model)]);
    assert.equal(r.status, 0, r.stderr);
  }
  // The case issue 28 found: the per-character length of a choice, delimiter excluded (doc 7 flips on it).
  const r = runCli(['run', '--model', 'onnx', '--model_args', `pretrained=${fixturePath('models/qwen3-tiny')},${ONE_THREAD}`, '--tasks', 'arc_challenge', '--num_fewshot', '5', '--limit', '8', '--out', join(dir, 'arc5')]);
  assert.equal(r.status, 0, r.stderr);
});

test('the tasks checked: every multiple-choice and loglikelihood task folder of tasks/', () => {
  assert.deepEqual(tasks, ['arc_challenge', 'arc_easy', 'boolq', 'hellaswag', 'lambada_openai', 'mmlu_abstract_algebra', 'piqa', 'truthfulqa_mc1', 'truthfulqa_mc2', 'winogrande']);
});

for (const model of ['gpt2-tiny', 'qwen3-tiny']) {
  test(`${model}: every default cell named after an lm-eval metric equals the recorded per-item value`, { skip: models.includes(model) ? false : slowOnly }, async () => {
    const { store } = await loadSource([join(dir, model)], { skipBad: false, fields: {} });
    const { perTask, differing } = await compareDefaultCells(store);
    assert.deepEqual(differing, []);
    // Each task compared its acc (greedy for lambada's loglikelihood acc) on all 5 documents.
    for (const task of tasks) {
      const cells = perTask.get(task);
      assert.ok(cells !== undefined, task);
      const acc = cells.get(task === 'lambada_openai' ? 'greedy' : 'acc');
      assert.deepEqual(acc, [5, 5], `${task}: ${JSON.stringify([...cells])}`);
    }
    assert.deepEqual(perTask.get('arc_challenge')!.get('acc_norm'), [5, 5]);
    assert.deepEqual(perTask.get('hellaswag')!.get('acc_norm'), [5, 5]);
    assert.deepEqual(perTask.get('piqa')!.get('acc_norm'), [5, 5]);
  });
}

test('truthfulqa_mc2: its cell acc is the probability mass of the true answers, as recorded, and says so', async () => {
  const { store } = await loadSource([join(dir, 'gpt2-tiny')], { skipBad: false, fields: {} });
  const scope = (await computeMatrix(store, {})).find((s) => s.task === 'truthfulqa_mc2')!;
  assert.ok(scope.notes.some((n) => /^acc: the task's own metric acc, computed by its process_results \(truthfulqa\.process_results_mc2/.test(n)), scope.notes.join('\n'));
  const acc = scope.cells.find((c) => c.extractor === 'acc' && c.aggregation === 'micro')!;
  // Not an argmax: the mean of five probability masses in (0, 1), which no count of 0/1 values over 5 gives.
  assert.notEqual((acc.score! * 5) % 1, 0);
});

test('qwen3-tiny arc_challenge 5-shot: acc_norm divides by the choice length without the target delimiter (doc 7)', async () => {
  const { store } = await loadSource([join(dir, 'arc5')], { skipBad: false, fields: {} });
  const { perTask, differing } = await compareDefaultCells(store);
  assert.deepEqual(differing, []);
  assert.deepEqual(perTask.get('arc_challenge')!.get('acc_norm'), [8, 8]);
  const [scope] = await computeMatrix(store, { keepItems: true });
  const k = scope!.cellKeys.findIndex((c) => c.extractor === 'acc_norm');
  assert.equal(scope!.items!.find((i) => i.doc_id === '7')!.values[k], 1);
  const micro = scope!.cells.find((c) => c.extractor === 'acc_norm' && c.aggregation === 'micro')!;
  assert.equal(micro.correct, 2);
});

test('the committed real lm-eval 0.4.13 runs (fixtures/models/lmeval-reference): every default cell equals lm-eval\'s per-item value', async () => {
  for (const variant of ['gpt2-tiny/plain', 'qwen3-tiny/plain', 'qwen3-tiny/chat']) {
    const { store } = await loadSource([fixturePath(`models/lmeval-reference/${variant}`)], { skipBad: false, fields: {} });
    const { perTask, differing } = await compareDefaultCells(store);
    assert.deepEqual(differing, [], variant);
    assert.deepEqual(perTask.get('arc_easy')!.get('acc_norm'), [20, 20], variant);
    assert.deepEqual(perTask.get('mmlu_abstract_algebra')!.get('acc'), [20, 20], variant);
    assert.deepEqual(perTask.get('lambada_openai')!.get('greedy'), [20, 20], variant);
  }
});

/** process_results_mc2 goes through numpy's exp and sum, whose last bits are the platform's (taskCode.ts): 16 ulp of 1. */
const MC2_TOLERANCE = 16 * 2 ** -52;

for (const model of ['gpt2-tiny', 'qwen3-tiny']) {
  test(`real lm-eval 0.4.13 on ${model} (cells-mc: winogrande, truthfulqa_mc1/mc2, arc_challenge, hellaswag, piqa, boolq): every default cell equals lm-eval's per-item value`, async () => {
    const { store } = await loadSource([fixturePath(`models/lmeval-reference/${model}/cells-mc`)], { skipBad: false, fields: {} });
    const { perTask, differing } = await compareDefaultCells(store, (task) => (task === 'truthfulqa_mc2' ? MC2_TOLERANCE : 0));
    assert.deepEqual(differing, []);
    for (const task of ['arc_challenge', 'boolq', 'hellaswag', 'piqa', 'truthfulqa_mc1', 'truthfulqa_mc2', 'winogrande']) {
      assert.deepEqual(perTask.get(task)?.get('acc'), [20, 20], task);
    }
    for (const task of ['arc_challenge', 'hellaswag', 'piqa']) assert.deepEqual(perTask.get(task)?.get('acc_norm'), [20, 20], task);
  });
}
