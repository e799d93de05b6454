/**
 * `openai-completions` against a local server: the payloads are lm-eval's (local-completions at
 * 0.4.13: token-id prompts, echo, logprobs 1, temperature 0, seed 1234; max_tokens 0, then lm-eval's
 * 1 when the server refuses 0), the echoed log-probabilities are sliced at the context length, a
 * wrong echo fails loudly, and generation sends the stop list and cuts it locally too.
 * GPT-2's ids are the fixture tokenizer's: "The cat" = [464, 3797], " sat" = [3332].
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openaiCompletionsBackend } from '../../../src/models/api/openaiCompletions.ts';
import { loadTokenizer } from '../../../src/models/api/tokens.ts';
import { PartialBatchError, type GenerationSettings } from '../../../src/models/lm.ts';
import { startMock, type Seen } from './mockServer.ts';

const TOKENIZER = 'fixtures/models/gpt2-tiny';
const { tok } = loadTokenizer(TOKENIZER, null);

/** An echo as vLLM gives it: each position's token text, its log-prob (−pos/4), and a top-1 that is the token itself at even positions only. */
function echo(ids: number[], generated: number[]): unknown {
  const all = [...ids, ...generated];
  return {
    id: 'cmpl-1', object: 'text_completion', model: 'm',
    choices: [{
      index: 0, text: tok.decode(all, false), finish_reason: 'length',
      logprobs: {
        tokens: all.map((id) => tok.decode([id], false)),
        token_logprobs: all.map((_, p) => (p === 0 ? null : -p / 4)),
        top_logprobs: all.map((id, p) => (p === 0 ? null : p % 2 === 0 ? { [tok.decode([id], false)]: -p / 4 } : { ' other': -0.01 })),
        text_offset: all.map(() => 0),
      },
    }],
    usage: { prompt_tokens: ids.length, completion_tokens: generated.length, total_tokens: all.length },
  };
}
const promptOf = (s: Seen) => ((s.body as { prompt: number[][] }).prompt)[0]!;

test('loglikelihood: lm-eval\'s payload, the slice at the context length and is_greedy from top-1', async () => {
  const server = await startMock((s) => ({ json: echo(promptOf(s), []) }));
  const lm = await openaiCompletionsBackend.open({ model: 'm', base_url: `${server.url}/v1/completions`, tokenizer: TOKENIZER }, { batchSize: 1 });
  const [r] = await lm.loglikelihood([{ context: 'The cat', continuation: ' sat' }]);
  assert.deepEqual(server.seen[0]!.body, { model: 'm', prompt: [[464, 3797, 3332]], temperature: 0, max_tokens: 0, logprobs: 1, seed: 1234, echo: true });
  assert.equal(server.seen[0]!.path, '/v1/completions');
  // ctxlen 2: only position 2 (" sat") counts: −2/4; position 2 is even, so its top-1 is the token: greedy.
  assert.equal(r!.logprob, -0.5);
  assert.equal(r!.isGreedy, true);
  assert.deepEqual([r!.usage.tokensIn, r!.usage.attempts], [3, 1]);
  // Context "The", continuation " cat sat": positions 1 and 2, −0.25 − 0.5; position 1's top-1 is another token.
  const [s] = await lm.loglikelihood([{ context: 'The', continuation: ' cat sat' }]);
  assert.deepEqual([s!.logprob, s!.isGreedy], [-0.75, false]);
  await lm.close();
  await server.close();
});

test('a server that refuses max_tokens 0 gets 1 (lm-eval\'s value), the generated token is sliced off, and the change is recorded', async () => {
  const server = await startMock((s) => {
    const b = s.body as { max_tokens: number };
    if (b.max_tokens === 0) return { status: 400, json: { error: { message: 'max_tokens must be at least 1' } } };
    return { json: echo(promptOf(s), [50256]) };
  });
  const lm = await openaiCompletionsBackend.open({ model: 'm', base_url: `${server.url}/v1`, tokenizer: TOKENIZER }, { batchSize: 1 });
  const [a, b] = await lm.loglikelihood([{ context: 'The cat', continuation: ' sat' }, { context: 'The cat', continuation: ' sat' }]);
  assert.equal(a!.logprob, -0.5);
  assert.equal(b!.logprob, -0.5);
  assert.deepEqual(lm.describe().adjustments, [{ setting: 'max_tokens (log-likelihood requests)', configured: 0, used: 1, why: 'the server answered 400 to max_tokens 0' }]);
  const sent = server.seen.map((s) => (s.body as { max_tokens: number }).max_tokens);
  // At most the two first requests (sent together) asked for 0.
  assert.ok(sent.filter((m) => m === 0).length <= 2 && sent.filter((m) => m === 1).length === 2, JSON.stringify(sent));
  await lm.close();
  await server.close();
});

test('an echo of other tokens than those sent is an error naming the position, after the retries; the other answers of the batch come back with it', async () => {
  const server = await startMock((s) => {
    const ids = promptOf(s);
    // The first request's echo gains a BOS (as a server adding special tokens would).
    return { json: echo(ids.length === 3 ? [50256, ...ids.slice(0, 2)] : ids, []) };
  });
  const lm = await openaiCompletionsBackend.open({ model: 'm', base_url: server.url, tokenizer: TOKENIZER, backoff_ms: 1 }, { batchSize: 1 });
  await assert.rejects(lm.loglikelihood([{ context: 'The cat', continuation: ' sat' }, { context: 'The', continuation: ' cat' }]), (e: unknown) => {
    assert.ok(e instanceof PartialBatchError);
    assert.equal(e.message, '1 of 2 requests in the batch failed; the first: completions: malformed response body (echoed token 0 is "<|endoftext|>", sent id 464 ("The")) (gave up after 3 attempts)');
    assert.equal(e.completed[0], undefined);
    assert.equal((e.completed[1] as { logprob: number }).logprob, -0.25);
    return true;
  });
  const kept = lm.drainExchanges!();
  assert.deepEqual(kept.filter((x) => x.error !== null).map((x) => [x.item, x.attempt]), [[0, 1], [0, 2], [0, 3]]);
  assert.deepEqual(kept[0]!.request, { model: 'm', prompt: [[464, 3797, 3332]], temperature: 0, max_tokens: 0, logprobs: 1, seed: 1234, echo: true });
  await lm.close();
  await server.close();
});

test('loglikelihood_rolling: TemplateAPI\'s windows of max_length − 1 tokens, one request each, summed', async () => {
  const server = await startMock((s) => ({ json: echo(promptOf(s), []) }));
  const lm = await openaiCompletionsBackend.open({ model: 'm', base_url: server.url, tokenizer: TOKENIZER, max_length: 3 }, { batchSize: 1 });
  const [r] = await lm.loglikelihoodRolling([{ text: 'The cat sat' }]);
  // [464, 3797, 3332] in windows of 2: (ctx [50256], cont [464, 3797]) and (ctx [464, 3797], cont [3332]).
  assert.deepEqual(server.seen.map(promptOf).sort(), [[464, 3797, 3332], [50256, 464, 3797]]);
  // Window 1 scores positions 1 and 2 (−0.25 − 0.5), window 2 position 2 (−0.5).
  assert.equal(r!.logprob, -1.25);
  assert.equal(r!.usage.tokensIn, 3);
  await lm.close();
  await server.close();
});

const GEN: GenerationSettings = { until: ['\n\n', 'Q:'], maxGenToks: 8, doSample: false, temperature: null, topP: null, topK: null, seed: null, extra: {} };

test('generate_until: the prompt as ids, the stop list with EOS sent, the text cut locally at the first stop too', async () => {
  const server = await startMock(() => ({ json: { model: 'm', choices: [{ index: 0, text: ' on the mat.Q: next', finish_reason: 'length' }], usage: { prompt_tokens: 2, completion_tokens: 8 } } }));
  const lm = await openaiCompletionsBackend.open({ model: 'm', base_url: server.url, tokenizer: TOKENIZER }, { batchSize: 1 });
  const [g] = await lm.generateUntil([{ context: 'The cat', settings: GEN }]);
  assert.deepEqual(server.seen[0]!.body, { prompt: [[464, 3797]], model: 'm', max_tokens: 8, temperature: 0, stop: ['\n\n', 'Q:', '<|endoftext|>'], seed: 1234 });
  assert.deepEqual(g, { text: ' on the mat.', finishReason: 'length', stopUsed: ['\n\n', 'Q:', '<|endoftext|>'], usage: { tokensIn: 2, tokensOut: 8, truncatedTokens: 0, latencyMs: g!.usage.latencyMs, attempts: 1 } });
  await lm.close();
  await server.close();
});
