/**
 * `lmaudit serve` in-process over the onnx backend: echoed log-probs read as lm-eval's
 * local-completions reads them equal the backend's own loglikelihood (and is_greedy), chat
 * completions equal generateUntil on the chat-template-rendered prompt, /tokenize, /v1/models,
 * and the OpenAI error shape for an unknown model and bad fields.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { onnxBackend } from '../../src/models/onnx/onnxBackend.ts';
import { encodePair } from '../../src/models/lmevalRequests.ts';
import type { GenerationSettings, LanguageModel, LoglikelihoodRequest } from '../../src/models/lm.ts';
import { loadChatTemplate } from '../../src/prompt/chatTemplate.ts';
import { startServer } from '../../src/serve/server.ts';
import { parseLogprobs, postJson, type EchoReply } from './helpers.ts';

const GPT2 = 'fixtures/models/gpt2-tiny';
const QWEN3 = 'fixtures/models/qwen3-tiny';
const greedy = (maxGenToks: number, until: string[] = []): GenerationSettings => ({ until, maxGenToks, doSample: false, temperature: 0, topP: null, topK: null, seed: null, extra: {} });

async function serving<T>(path: string, body: (lm: LanguageModel, url: string, stats: () => { calls: number; jobs: number }) => Promise<T>): Promise<T> {
  // One inference thread (ONE_THREAD in test/helpers/cli.ts says why).
  const lm = await onnxBackend.open({ pretrained: path, threads: 1 }, { batchSize: 1 });
  const server = await startServer({ model: lm, modelName: 'tiny' });
  try {
    return await body(lm, server.url, server.queueStats);
  } finally {
    await server.close();
    await lm.close();
  }
}

test('gpt2-tiny: echoed log-probs summed over the continuation (as lm-eval slices them) equal the onnx loglikelihood to 1e-4, is_greedy equal; concurrent requests are batched', async () => {
  await serving(GPT2, async (lm, url, stats) => {
    const tokens = lm.tokenAccess!;
    const codec = { encode: (text: string, special?: boolean) => tokens.encode(text, special ?? true) };
    // A greedy continuation, so that both is_greedy values are exercised: the backend's own greedy text.
    const [gen] = await lm.generateUntil([{ context: 'The quick brown fox', settings: greedy(3) }]);
    const requests: LoglikelihoodRequest[] = [
      ...[' Paris', ' London', ' the capital of France, Paris'].map((continuation) => ({ context: 'Question: What is the capital of France?\nAnswer:', continuation })),
      { context: 'Is the sky blue? Answer: ', continuation: 'yes' },
      { context: '', continuation: 'An empty context is scored after the prefix token.' },
      { context: 'The quick brown fox', continuation: gen!.text },
    ];
    const expected = await lm.loglikelihood(requests);
    const prefix = tokens.eosTokenId!;
    const replies = await Promise.all(requests.map(async (r) => {
      const pair = encodePair(codec, r.context, r.continuation, prefix);
      // lm-eval's payload for a loglikelihood request (lmeval-scoring-and-outputs.md §6.5).
      const { status, json } = await postJson(`${url}/v1/completions`, { model: 'tiny', prompt: [...pair.context, ...pair.continuation], temperature: 0, max_tokens: 1, logprobs: 1, seed: 1234, echo: true });
      assert.equal(status, 200, JSON.stringify(json));
      const reply = json as EchoReply;
      assert.equal(reply.choices[0]!.logprobs!.tokens.length, pair.context.length + pair.continuation.length + 1);
      assert.equal(reply.usage.prompt_tokens, pair.context.length + pair.continuation.length);
      assert.equal(reply.usage.completion_tokens, 1);
      return parseLogprobs(reply, pair.context.length);
    }));
    requests.forEach((r, i) => {
      // 1e-4 is the bound; the server scores the whole row in one pass, the backend shares the context's KV (same arithmetic, other order: ~1e-6).
      assert.ok(Math.abs(replies[i]!.logprob - expected[i]!.logprob) < 1e-4, `${JSON.stringify(r)}: ${replies[i]!.logprob} vs ${expected[i]!.logprob}`);
      assert.equal(replies[i]!.isGreedy, expected[i]!.isGreedy, JSON.stringify(r));
    });
    assert.ok(expected.some((e) => e.isGreedy) && expected.some((e) => !e.isGreedy), 'both is_greedy values are covered');
    assert.ok(stats().calls < stats().jobs, `6 concurrent requests in fewer backend calls (${stats().calls} calls for ${stats().jobs} requests)`);
  });
});

test('gpt2-tiny: echo with max_tokens 0 returns the prompt only, first entry null, offsets in characters; string prompts are tokenized as /tokenize says', async () => {
  await serving(GPT2, async (lm, url) => {
    // GPT-2's BPE ids for "Hello world" (the public GPT-2 vocabulary: "Hello" 15496, " world" 995).
    const tok = await postJson(`${url}/tokenize`, { model: 'tiny', prompt: 'Hello world' });
    assert.deepEqual(tok.json, { count: 2, max_model_len: 96, tokens: [15496, 995], token_strs: null });
    // gpt2-tiny's tokenizer_config.json: bos and eos <|endoftext|>, no pad, so the pad is its unk (<|endoftext|>), as lm-eval's configure_pad_token picks; no chat template.
    const info = await (await fetch(`${url}/tokenizer_info`)).json();
    assert.deepEqual(info, { eos_token: '<|endoftext|>', bos_token: '<|endoftext|>', pad_token: '<|endoftext|>', chat_template: null, model_max_length: 96 });
    const detok = await postJson(`${url}/detokenize`, { tokens: [15496, 995] });
    assert.deepEqual(detok.json, { prompt: 'Hello world' });
    const { json } = await postJson(`${url}/v1/completions`, { prompt: 'Hello world', max_tokens: 0, echo: true, logprobs: 0 });
    const reply = json as EchoReply;
    const lp = reply.choices[0]!.logprobs!;
    assert.equal(reply.choices[0]!.text, 'Hello world');
    assert.deepEqual(lp.tokens, ['Hello', ' world']);
    assert.deepEqual(lp.text_offset, [0, 5]);
    assert.equal(lp.token_logprobs[0], null);
    assert.equal(lp.top_logprobs[0], null);
    // logprobs 0: the dict holds the token itself only, with the same value.
    assert.deepEqual(lp.top_logprobs[1], { ' world': lp.token_logprobs[1] });
    const [ll] = await lm.loglikelihood([{ context: 'Hello', continuation: ' world' }]);
    assert.ok(Math.abs((lp.token_logprobs[1] as number) - ll!.logprob) < 1e-4);
    assert.deepEqual(reply.usage, { prompt_tokens: 2, completion_tokens: 0, total_tokens: 2 });
    assert.equal(reply.choices[0]!.finish_reason, 'length');
  });
});

test('qwen3-tiny: a chat completion equals generateUntil on the prompt the chat template renders; /tokenize of messages equals its tokens', async () => {
  await serving(QWEN3, async (lm, url) => {
    const messages = [{ role: 'system', content: 'You are terse.' }, { role: 'user', content: 'What is 2+2?' }];
    const rendered = loadChatTemplate(`${QWEN3}/tokenizer_config.json`).render(messages, true);
    const [expected] = await lm.generateUntil([{ context: rendered, settings: greedy(12, ['\n\n']) }]);
    const { status, json } = await postJson(`${url}/v1/chat/completions`, { model: 'tiny', messages, max_tokens: 12, stop: ['\n\n'], temperature: 0, seed: 1 });
    assert.equal(status, 200, JSON.stringify(json));
    const reply = json as { object: string; choices: Array<{ message: { role: string; content: string }; finish_reason: string }>; usage: { prompt_tokens: number; completion_tokens: number } };
    assert.equal(reply.object, 'chat.completion');
    assert.equal(reply.choices[0]!.message.role, 'assistant');
    assert.equal(reply.choices[0]!.message.content, expected!.text);
    assert.equal(reply.choices[0]!.finish_reason, expected!.finishReason === 'length' ? 'length' : 'stop');
    const ids = lm.tokenAccess!.encode(rendered, false);
    assert.equal(reply.usage.prompt_tokens, ids.length);
    assert.equal(reply.usage.completion_tokens, expected!.usage.tokensOut);
    const tok = await postJson(`${url}/tokenize`, { messages });
    assert.deepEqual((tok.json as { tokens: number[] }).tokens, ids);
  });
});

test('errors come in OpenAI\'s shape: an unknown model is 404 as vLLM words it; bad fields and an over-long request are 400 naming the field', async () => {
  await serving(GPT2, async (_lm, url) => {
    const unknown = await postJson(`${url}/v1/completions`, { model: 'gpt-4', prompt: 'hi' });
    assert.equal(unknown.status, 404);
    assert.deepEqual(unknown.json, { error: { message: 'The model `gpt-4` does not exist.', type: 'NotFoundError', param: null, code: 404 } });
    const models = (await (await fetch(`${url}/v1/models`)).json()) as { data: Array<{ id: string; max_model_len: number }> };
    assert.deepEqual(models.data.map((m) => [m.id, m.max_model_len]), [['tiny', 96]]);
    const bad = await postJson(`${url}/v1/completions`, { prompt: 'hi', logprobs: 'many' });
    assert.equal(bad.status, 400);
    assert.equal((bad.json as { error: { param: string } }).error.param, 'logprobs');
    // gpt2-tiny holds 96 positions: 90 prompt tokens and 16 new ones do not fit.
    const long = await postJson(`${url}/v1/completions`, { prompt: new Array(90).fill(464), max_tokens: 16 });
    assert.equal(long.status, 400);
    assert.match((long.json as { error: { message: string } }).error.message, /maximum context length is 96 tokens\. However, you requested 106 tokens \(90 in the messages, 16 in the completion\)/);
    const notJson = await fetch(`${url}/v1/completions`, { method: 'POST', body: '{"prompt": ' });
    assert.equal(notJson.status, 400);
  });
});

test('gpt2-tiny: generation through /v1/completions equals generateUntil; with echo and logprobs the generated tokens are scored too (greedy: each is its position\'s best); a seed repeats a sampled text', async () => {
  await serving(GPT2, async (lm, url) => {
    const context = 'The quick brown fox';
    const [expected] = await lm.generateUntil([{ context, settings: greedy(5) }]);
    const { json } = await postJson(`${url}/v1/completions`, { prompt: context, max_tokens: 5, temperature: 0, echo: true, logprobs: 2, return_token_ids: true });
    const reply = json as EchoReply & { choices: Array<{ prompt_token_ids: number[]; token_ids: number[] }> };
    const choice = reply.choices[0]!;
    assert.equal(choice.text, context + expected!.text);
    assert.deepEqual(choice.prompt_token_ids, lm.tokenAccess!.encode(context, true));
    assert.equal(choice.token_ids.length, expected!.usage.tokensOut);
    const lp = choice.logprobs!;
    const n = choice.prompt_token_ids.length;
    assert.equal(lp.tokens.length, n + choice.token_ids.length);
    for (let p = n; p < lp.tokens.length; p++) {
      const top = lp.top_logprobs[p]!;
      // logprobs 2: the two best (the token itself among them when greedy).
      assert.equal(Object.keys(top).length, 2);
      assert.equal(lp.token_logprobs[p], Math.max(...Object.values(top)));
    }
    const sampled = async (seed: number) => ((await postJson(`${url}/v1/completions`, { prompt: context, max_tokens: 8, temperature: 1, seed })).json as EchoReply).choices[0]!.text;
    assert.equal(await sampled(5), await sampled(5));
    const refused = await postJson(`${url}/v1/completions`, { prompt: context, n: 2 });
    assert.equal(refused.status, 400);
    assert.equal((refused.json as { error: { param: string } }).error.param, 'n');
  });
});

test('gpt2-tiny: prompts whose logits exceed the worker\'s budget are scored in pieces through the KV cache, with the same echoed log-probs (1e-5) and top tokens', async () => {
  const prompts = [[464, 2068, 7586, 21831, 18045, 625, 262, 16931, 3290, 13], [15496, 995]];
  const echo = async () => {
    const out: NonNullable<EchoReply['choices'][number]['logprobs']>[] = [];
    let passes = 0;
    await serving(GPT2, async (lm, url) => {
      for (const prompt of prompts) out.push(((await postJson(`${url}/v1/completions`, { prompt, max_tokens: 0, echo: true, logprobs: 3 })).json as EchoReply).choices[0]!.logprobs!);
      passes = (await lm.counters!()).forward_passes!;
    });
    return Object.assign(out, { passes });
  };
  const whole = await echo();
  // 50,257 logits × 3 positions: a 10-token row goes through in four pieces.
  process.env.LMAUDIT_ONNX_LOGITS_BUDGET = String(50_257 * 3);
  let split: Awaited<ReturnType<typeof echo>>;
  try {
    split = await echo();
  } finally {
    delete process.env.LMAUDIT_ONNX_LOGITS_BUDGET;
  }
  assert.deepEqual([whole.passes, split.passes], [2, 5], 'one pass per prompt whole; the 10-token row in four pieces, the 2-token one in one');
  whole.forEach((w, i) => {
    const s = split[i]!;
    assert.deepEqual(s.tokens, w.tokens);
    // The KV cache is the same arithmetic in pieces: float rounding only (1e-5).
    w.token_logprobs.forEach((v, p) => assert.ok(v === null ? s.token_logprobs[p] === null : Math.abs(v - (s.token_logprobs[p] as number)) < 1e-5, `${i}/${p}`));
    w.top_logprobs.forEach((t, p) => assert.deepEqual(t === null ? null : Object.keys(t), s.top_logprobs[p] === null ? null : Object.keys(s.top_logprobs[p]!)));
  });
});
