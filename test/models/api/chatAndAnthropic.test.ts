/**
 * `openai-chat` and `anthropic` against local servers: the payloads (lm-eval's local-chat-completions
 * and anthropic-chat fields, with the whole stop list and no change by model name), the text cut
 * at the stop strings locally, and what the Messages API changed recorded as used ≠ configured.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openaiChatBackend } from '../../../src/models/api/openaiChat.ts';
import { anthropicBackend } from '../../../src/models/api/anthropic.ts';
import type { GenerationSettings } from '../../../src/models/lm.ts';
import { startMock } from './mockServer.ts';

const STOPS = ['\n\n', 'Question:', '</s>', '<|im_end|>', '###'];
const GEN: GenerationSettings = { until: STOPS, maxGenToks: 32, doSample: false, temperature: null, topP: null, topK: null, seed: null, extra: {} };
const MESSAGES = [
  { role: 'system', content: 'Answer briefly.' },
  { role: 'user', content: 'Question: 1+1?' },
  { role: 'assistant', content: 'Answer: 2' },
  { role: 'user', content: 'Question: 2+2?' },
];

test('openai-chat: the messages as built, all five stop strings, temperature 0 even for a model named gpt-5; null content is "" with its finish reason', async () => {
  const replies = [
    { json: { model: 'gpt-5-mini', choices: [{ index: 0, message: { role: 'assistant', content: 'Answer: 4###tail' }, finish_reason: 'stop' }], usage: { prompt_tokens: 30, completion_tokens: 5 } } },
    { json: { model: 'gpt-5-mini', choices: [{ index: 0, message: { role: 'assistant', content: null }, finish_reason: 'length' }], usage: { prompt_tokens: 30, completion_tokens: 32 } } },
  ];
  const server = await startMock((_s, n) => replies[n]!, ['gpt-5-mini']);
  const lm = await openaiChatBackend.open({ model: 'gpt-5-mini', base_url: `${server.url}/v1/chat/completions` }, { batchSize: 1 });
  const [a] = await lm.generateUntil([{ context: JSON.stringify(MESSAGES), messages: MESSAGES, settings: GEN }]);
  assert.deepEqual(server.seen[0]!.body, { messages: MESSAGES, model: 'gpt-5-mini', max_tokens: 32, temperature: 0, stop: STOPS, seed: 1234 });
  assert.equal(server.seen[0]!.path, '/v1/chat/completions');
  assert.deepEqual([a!.text, a!.finishReason, a!.stopUsed, a!.usage.tokensIn, a!.usage.tokensOut], ['Answer: 4', 'stop', STOPS, 30, 5]);
  const [b] = await lm.generateUntil([{ context: JSON.stringify(MESSAGES), messages: MESSAGES, settings: GEN }]);
  assert.deepEqual([b!.text, b!.finishReason], ['', 'length']);
  assert.equal(lm.capabilities.logprobs, false);
  assert.equal(lm.capabilities.messages, 'required');
  await lm.close();
  await server.close();
});

test('openai-chat records another model answering as used ≠ configured', async () => {
  const server = await startMock(() => ({ json: { model: 'm-2026-01', choices: [{ index: 0, message: { content: 'x' }, finish_reason: 'stop' }] } }), ['m']);
  const lm = await openaiChatBackend.open({ model: 'm', base_url: server.url }, { batchSize: 1 });
  await lm.generateUntil([{ context: '[]', messages: [{ role: 'user', content: 'hi' }], settings: GEN }]);
  assert.deepEqual(lm.describe().adjustments, [{ setting: 'model', configured: 'm', used: ['m-2026-01'], why: 'the responses name another model' }]);
  await lm.close();
  // max_tokens_field=max_completion_tokens: the field lm-eval's openai-chat-completions sends instead.
  const reasoning = await openaiChatBackend.open({ model: 'm', base_url: server.url, max_tokens_field: 'max_completion_tokens' }, { batchSize: 1 });
  await reasoning.generateUntil([{ context: '[]', messages: [{ role: 'user', content: 'hi' }], settings: GEN }]);
  assert.deepEqual(server.seen[1]!.body, { messages: [{ role: 'user', content: 'hi' }], model: 'm', max_completion_tokens: 32, temperature: 0, stop: STOPS, seed: 1234 });
  await reasoning.close();
  await server.close();
});

test('anthropic: x-api-key and anthropic-version headers, system apart, whitespace-only stops left to the local cut, thinking sent, a rejected temperature left out and recorded', async () => {
  const server = await startMock((s) => {
    const body = s.body as Record<string, unknown>;
    if ('temperature' in body) return { status: 400, json: { type: 'error', error: { type: 'invalid_request_error', message: 'temperature is not supported for this model' } } };
    return { json: { id: 'msg_1', type: 'message', role: 'assistant', model: 'claude-x', content: [{ type: 'thinking', thinking: 'hmm' }, { type: 'text', text: 'Answer: 4\n\nQuestion: next' }], stop_reason: 'end_turn', usage: { input_tokens: 40, output_tokens: 9 } } };
  }, ['claude-x']);
  const env = process.env.ANTHROPIC_API_KEY;
  process.env.ANTHROPIC_API_KEY = 'sk-ant-test-key';
  try {
    const lm = await anthropicBackend.open({ model: 'claude-x', base_url: server.url, thinking: 'adaptive' }, { batchSize: 1 });
    const [r] = await lm.generateUntil([{ context: JSON.stringify(MESSAGES), messages: MESSAGES, settings: GEN }]);
    const sent = server.seen.map((s) => s.body);
    assert.deepEqual(sent[1], { model: 'claude-x', max_tokens: 32, messages: MESSAGES.slice(1), system: 'Answer briefly.', stop_sequences: ['Question:', '</s>', '<|im_end|>', '###'], thinking: { type: 'adaptive' } });
    assert.deepEqual((sent[0] as { temperature: number }).temperature, 0);
    assert.equal(server.seen[1]!.headers['x-api-key'], 'sk-ant-test-key');
    assert.equal(server.seen[1]!.headers['anthropic-version'], '2023-06-01');
    assert.equal(server.seen[1]!.path, '/v1/messages');
    // Only the text block is the answer, cut at "\n\n" here since the API was not sent it.
    assert.deepEqual([r!.text, r!.finishReason, r!.usage.tokensIn, r!.usage.tokensOut], ['Answer: 4', 'eos', 40, 9]);
    assert.deepEqual(lm.describe().adjustments?.map((a) => [a.setting, a.used]), [
      ['stop_sequences', ['Question:', '</s>', '<|im_end|>', '###']],
      ['temperature', 'not sent (model default)'],
    ]);
    await lm.close();
  } finally {
    if (env === undefined) delete process.env.ANTHROPIC_API_KEY;
    else process.env.ANTHROPIC_API_KEY = env;
  }
  await server.close();
});
