/**
 * The item page's data for a multiple-choice document (an lm-eval samples record written here:
 * three choices, gold index 1, log-likelihoods as recorded): a bar per choice with its summed
 * log-probability and the gold marked, the per-item values as recorded, and each reading's
 * pick; and how prompts are split into parts (chat messages, turn markers, few-shot segments).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ViewApi } from '../../src/view/api.ts';
import { ViewSession } from '../../src/view/sources.ts';
import { promptParts, type ItemDetail } from '../../src/view/itemDetail.ts';

const CONTEXT = 'Q: 2 + 2 = ?\nA:';
const CHOICES = [' 3', ' 4', ' 5'];
const LOGPROBS = [-2.5, -0.25, -4];

test('multiple choice: a bar per choice, gold marked, values as recorded', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'lmaudit-view-mc-'));
  const record = {
    doc_id: 0,
    doc: { question: '2 + 2 = ?', choices: ['3', '4', '5'], answer: 1 },
    target: 1,
    arguments: CHOICES.map((c) => [CONTEXT, c]),
    resps: LOGPROBS.map((lp, i) => [[lp, i === 1]]),
    filtered_resps: LOGPROBS.map((lp, i) => [lp, i === 1]),
    acc: 1.0,
  };
  const file = join(dir, 'samples_sums_2025-01-01T00-00-00.000000.jsonl');
  await writeFile(file, `${JSON.stringify(record)}\n`);
  const api = new ViewApi(await ViewSession.open([file], { skipBad: false, fields: {} }));
  const run = api.session.sources[0]!.loaded.store.manifest.runs[0]!.run_id;
  const item = (await api.answer('item', new URLSearchParams({ s: '0', run, task: 'sums', doc: '0' }))) as ItemDetail;
  assert.deepEqual(
    item.choiceBars?.map((b) => [b.choice.trim(), b.logprob, b.gold]),
    [['3', -2.5, false], ['4', -0.25, true], ['5', -4, false]],
  );
  assert.deepEqual(item.recorded.map((r) => [r.metric, r.filter, r.value_json]), [['acc', 'none', '1']]);
  // The argmax reading (lm-eval acc) picks choice 1, the gold: correct.
  const acc = item.readings.find((r) => r.extractor === 'acc');
  assert.deepEqual([acc?.extracted, acc?.value], ['1', 1]);
  assert.equal(item.prompt, CONTEXT);
});

test('prompt parts: chat messages, turn markers, and few-shot examples folded before the question', () => {
  const messages = promptParts(JSON.stringify([{ role: 'system', content: 'S' }, { role: 'user', content: 'U1' }, { role: 'assistant', content: 'A1' }, { role: 'user', content: 'U2' }]));
  assert.deepEqual(messages.parts.map((p) => [p.role, p.text, p.folded]), [['system', 'S', false], ['user', 'U1', true], ['assistant', 'A1', true], ['user', 'U2', false]]);
  const chatml = '<|im_start|>user\nQ1<|im_end|>\n<|im_start|>assistant\nA1<|im_end|>\n<|im_start|>user\nQ2<|im_end|>\n<|im_start|>assistant\n';
  const turns = promptParts(chatml);
  assert.deepEqual(turns.parts.map((p) => [p.role, p.folded]), [['user', true], ['assistant', true], ['user', false], ['assistant', false]]);
  assert.equal(turns.parts.map((p) => p.text).join(''), chatml);
  const plain = promptParts('Q: a\nA: 1\n\nQ: b\nA: 2\n\nQ: c\nA:');
  assert.deepEqual(plain.parts, [
    { role: 'examples', text: 'Q: a\nA: 1\n\nQ: b\nA: 2\n\n', folded: true },
    { role: 'question', text: 'Q: c\nA:', folded: false },
  ]);
});
