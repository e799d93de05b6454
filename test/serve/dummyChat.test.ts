/**
 * `lmaudit serve` over the dummy backend, the API bench's server: a chat completion equals the dummy's
 * generateUntil on the prompt its ChatML template renders (written out by hand below); the template is
 * compiled once per model, not per request; and `delayMs` is a delay per request, waited concurrently.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { dummyBackend } from '../../src/models/dummy.ts';
import { modelChatTemplate } from '../../src/serve/chat.ts';
import { startServer } from '../../src/serve/server.ts';
import { postJson } from './helpers.ts';

const settings = { until: ['\n\nQuestion:'], maxGenToks: 16, doSample: false, temperature: 0, topP: null, topK: null, seed: null, extra: {} };

test('dummy chat: the reply equals generateUntil on the ChatML render; the template is compiled once; 16 concurrent requests each wait the delay, at the same time', async () => {
  const model = await dummyBackend.open({}, { batchSize: 1 });
  assert.equal(modelChatTemplate(model), modelChatTemplate(model));
  // The 16 requests reach the server within a few milliseconds of each other on an idle machine; a delay of 250 ms
  // (the bench's is 50) leaves a loaded one room to read them all while the first still waits.
  const server = await startServer({ model, modelName: 'bench', delayMs: 250 });
  try {
    const question = (i: number) => `Question: what is ${i} + ${i}?\nAnswer:`;
    // The dummy's CHAT_TEMPLATE with add_generation_prompt, by hand.
    const rendered = (i: number) => `<|im_start|>user\n${question(i)}<|im_end|>\n<|im_start|>assistant\n`;
    const expected = await model.generateUntil(Array.from({ length: 16 }, (_, i) => ({ context: rendered(i), settings })));
    const replies = await Promise.all(Array.from({ length: 16 }, async (_, i) => {
      const sent = performance.now();
      const reply = await postJson(`${server.url}/v1/chat/completions`, { model: 'bench', messages: [{ role: 'user', content: question(i) }], max_tokens: 16, temperature: 0, stop: ['\n\nQuestion:'] });
      return { ...reply, ms: performance.now() - sent };
    }));
    for (const [i, r] of replies.entries()) {
      assert.equal(r.status, 200);
      const json = r.json as { choices: Array<{ message: { content: string } }>; usage: { prompt_tokens: number; completion_tokens: number } };
      assert.equal(json.choices[0]!.message.content, expected[i]!.text);
      assert.deepEqual([json.usage.prompt_tokens, json.usage.completion_tokens], [expected[i]!.usage.tokensIn, expected[i]!.usage.tokensOut]);
      assert.ok(r.ms >= 250, `request ${i} answered after ${r.ms} ms, before its 250 ms delay`);
    }
    // The server's own count: all 16 waited their delay at the same time (delays taken in turn would count 1).
    assert.deepEqual(server.delays(), { waiting: 0, mostAtOnce: 16 });
  } finally {
    await server.close();
  }
});
