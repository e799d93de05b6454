/**
 * `lmaudit serve --faults`: each kind does what it declares, the counters at GET /lmaudit/faults
 * match what clients saw, a retry draws again, and the seeded schedule is the stated splitmix32
 * stream in arrival order (re-derived here independently of src/serve/faults.ts).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { onnxBackend } from '../../src/models/onnx/onnxBackend.ts';
import { dummyBackend } from '../../src/models/dummy.ts';
import type { LanguageModel } from '../../src/models/lm.ts';
import { FAULT_KINDS, parseFaultSpec } from '../../src/serve/faults.ts';
import { startServer } from '../../src/serve/server.ts';
import { postJson, type EchoReply } from './helpers.ts';

const GPT2 = 'fixtures/models/gpt2-tiny';

/** A raw request: status, headers, the bytes received and how the exchange ended. */
function raw(url: string, body: unknown): Promise<{ status: number | null; headers: Record<string, unknown>; received: number; ended: 'complete' | 'error' | 'aborted' }> {
  return new Promise((resolve) => {
    const text = JSON.stringify(body);
    const req = request(`${url}/v1/completions`, { method: 'POST', headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) } }, (res) => {
      let received = 0;
      res.on('data', (c: Buffer) => (received += c.length));
      res.on('end', () => resolve({ status: res.statusCode ?? null, headers: res.headers, received, ended: 'complete' }));
      res.on('aborted', () => resolve({ status: res.statusCode ?? null, headers: res.headers, received, ended: 'aborted' }));
      res.on('error', () => resolve({ status: res.statusCode ?? null, headers: res.headers, received, ended: 'aborted' }));
    });
    req.on('error', () => resolve({ status: null, headers: {}, received: 0, ended: 'error' }));
    req.end(text);
  });
}

async function withServer<T>(model: LanguageModel, faults: string, body: (url: string, report: () => ReturnType<Awaited<ReturnType<typeof startServer>>['faults']>) => Promise<T>): Promise<T> {
  const server = await startServer({ model, modelName: 'tiny', faults: parseFaultSpec(faults) });
  try {
    return await body(server.url, server.faults);
  } finally {
    await server.close();
  }
}

test('every=1 with the kinds in turn: each request gets the declared fault, and the counters say so', async () => {
  const lm = await onnxBackend.open({ pretrained: GPT2 }, { batchSize: 1 });
  try {
    await withServer(lm, `every=1,kinds=${FAULT_KINDS.join(',')},retry_after=2,slow_ms=400`, async (url, report) => {
      const echo = { prompt: [464, 3139, 7586], max_tokens: 1, echo: true, logprobs: 1, temperature: 0 };
      // 429: Retry-After in seconds (in every=N mode the first 429 sends seconds, the second a date).
      const r429 = await postJson(`${url}/v1/completions`, echo);
      assert.equal(r429.status, 429);
      assert.equal(r429.headers.get('retry-after'), '2');
      assert.equal((r429.json as { error: { type: string } }).error.type, 'RateLimitError');
      assert.equal((await postJson(`${url}/v1/completions`, echo)).status, 500);
      assert.equal((await postJson(`${url}/v1/completions`, echo)).status, 503);
      // reset: no status line at all.
      assert.deepEqual(await raw(url, echo), { status: null, headers: {}, received: 0, ended: 'error' });
      // slow: a client timing out at 100 ms gives up; the server answers 504 (never the result) at 400 ms.
      await assert.rejects(fetch(`${url}/v1/completions`, { method: 'POST', body: JSON.stringify(echo), signal: AbortSignal.timeout(100) }), { name: 'TimeoutError' });
      // malformed: 200 whose body is not JSON.
      const malformed = await fetch(`${url}/v1/completions`, { method: 'POST', body: JSON.stringify(echo) });
      assert.equal(malformed.status, 200);
      await assert.rejects(malformed.json(), SyntaxError);
      // truncated: Content-Length promises more than arrives before the connection closes.
      const truncated = await raw(url, echo);
      assert.equal(truncated.status, 200);
      assert.notEqual(truncated.ended, 'complete');
      assert.ok(truncated.received < Number(truncated.headers['content-length']), `${truncated.received} of ${String(truncated.headers['content-length'])} bytes`);
      // wrong_echo: a 200 whose echo is the prompt with the prefix token (50256) prepended.
      const wrong = await postJson(`${url}/v1/completions`, echo);
      assert.equal(wrong.status, 200);
      const lp = (wrong.json as EchoReply).choices[0]!.logprobs!;
      assert.equal(lp.tokens[0], '<|endoftext|>');
      // The prefix token, the three prompt tokens and the generated one.
      assert.equal(lp.tokens.length, 1 + echo.prompt.length + 1);
      assert.equal((wrong.json as EchoReply).usage.prompt_tokens, 1 + echo.prompt.length);
      assert.deepEqual(report().by_kind, Object.fromEntries(FAULT_KINDS.map((k) => [k, 1])));
      assert.deepEqual(report().log.map((e) => [e.seq, e.kind]), FAULT_KINDS.map((k, i) => [i + 1, k]));
    });
  } finally {
    await lm.close();
  }
});

test('every=2: a faulted request is not answered later, and its retry is a new request that draws again; wrong_echo gives way on a request without echo', async () => {
  const lm = await dummyBackend.open({}, { batchSize: 1 });
  await withServer(lm, 'every=2,kinds=wrong_echo,500', async (url, report) => {
    const gen = { prompt: 'Question: 2+2?\nAnswer:', max_tokens: 8, temperature: 0 };
    const statuses = [];
    for (let i = 0; i < 4; i++) statuses.push((await postJson(`${url}/v1/completions`, gen)).status);
    // Requests 2 and 4 are faulted; wrong_echo does not apply to a request without echo, so 500 takes its turn.
    assert.deepEqual(statuses, [200, 500, 200, 500]);
    assert.deepEqual(report().log.map((e) => [e.seq, e.kind]), [[2, '500'], [4, '500']]);
    assert.equal(report().requests, 4);
  });
});

/** The stream faults.ts states: splitmix32, three draws per request (hit, pick, form). */
function splitmix32(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x9e3779b9) >>> 0;
    let z = s;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
    return ((z ^ (z >>> 16)) >>> 0) / 4294967296;
  };
}

test('rate=0.3,seed=7: the faulted requests and their kinds are the seeded stream in arrival order; 429 sends seconds or an HTTP date as drawn', async () => {
  const lm = await dummyBackend.open({}, { batchSize: 1 });
  const kinds = ['429', '500', '503'];
  const next = splitmix32(7);
  const expected: Array<[number, string, boolean]> = [];
  for (let seq = 1; seq <= 40; seq++) {
    const [hit, pick, form] = [next(), next(), next()];
    const kind = kinds[Math.floor(pick * kinds.length)]!;
    if (hit < 0.3) expected.push([seq, kind, kind === '429' && form < 0.5]);
  }
  await withServer(lm, 'rate=0.3,seed=7,kinds=429,500,503,retry_after=3', async (url, report) => {
    const seen: Array<[number, string, boolean]> = [];
    for (let seq = 1; seq <= 40; seq++) {
      const r = await postJson(`${url}/v1/completions`, { prompt: `request ${seq}`, max_tokens: 4, temperature: 0 });
      if (r.status === 200) continue;
      const retryAfter = r.headers.get('retry-after');
      seen.push([seq, String(r.status), retryAfter !== null && retryAfter !== '3']);
      if (r.status === 429 && retryAfter !== '3') {
        // An HTTP date about 3 s ahead (whole seconds, rounded up).
        const ahead = (Date.parse(retryAfter!) - Date.now()) / 1000;
        assert.ok(ahead > 1.5 && ahead <= 4.5, `Retry-After ${retryAfter} is ${ahead} s ahead`);
      }
    }
    assert.deepEqual(seen, expected);
    assert.equal(report().faulted, expected.length);
    assert.ok(expected.some((e) => e[1] === '429' && e[2]) && expected.some((e) => e[1] === '429' && !e[2]), 'both Retry-After forms are drawn in this stream');
  });
});

test('slow: a client that waits gets a 504 error after slow_ms, never the answer', async () => {
  const lm = await dummyBackend.open({}, { batchSize: 1 });
  await withServer(lm, 'every=1,kinds=slow,slow_ms=200', async (url, report) => {
    const t0 = performance.now();
    const r = await postJson(`${url}/v1/completions`, { prompt: 'late', max_tokens: 4 });
    assert.ok(performance.now() - t0 >= 200);
    assert.equal(r.status, 504);
    assert.equal((r.json as { error: { type: string } }).error.type, 'GatewayTimeoutError');
    assert.equal((r.json as { choices?: unknown }).choices, undefined);
    assert.deepEqual(report().by_kind.slow, 1);
  });
});

test('--faults specs that cannot be read are refused naming the key', () => {
  assert.throws(() => parseFaultSpec('rate=1.5'), /rate must be a number from 0 to 1/);
  assert.throws(() => parseFaultSpec('kinds=429,teapot'), /unknown fault kind 'teapot'/);
  assert.throws(() => parseFaultSpec('rate=0.1,every=2'), /not both/);
  assert.throws(() => parseFaultSpec('speed=3'), /unknown key 'speed'/);
  assert.deepEqual(parseFaultSpec('rate=0.3,seed=7,kinds=429,reset'), { rate: 0.3, seed: 7, kinds: ['429', 'reset'], every: null, retryAfterSeconds: 1, slowMs: 30000 });
});
