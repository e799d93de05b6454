/**
 * The API backends' HTTP layer against a local server: which failures are retried (429/5xx,
 * resets, timeouts, truncated or malformed bodies) and which are final (other 4xx), Retry-After
 * in seconds and as an HTTP date, the concurrency bound, and the exchanges kept.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ApiRequestFailed, HttpClient, MalformedResponse, retryAfterMs, type HttpSettings } from '../../../src/models/api/http.ts';
import { startMock } from './mockServer.ts';

const SETTINGS: HttpSettings = { numConcurrent: 4, requestsPerMinute: null, timeoutMs: 2000, maxAttempts: 3, backoffMs: 1, maxBackoffMs: 4, maxRetryAfterMs: 5000, recordSample: 0, recordSeed: '1234' };
const client = (url: string, s: Partial<HttpSettings> = {}) => new HttpClient(new URL(`${url}/v1/`), { authorization: 'Bearer sk-test-secret' }, { ...SETTINGS, ...s });
const okJson = (json: unknown) => json as { ok: number };

test('Retry-After: delta-seconds and HTTP-date (RFC 9110 §10.2.3); unreadable is null', () => {
  const now = Date.parse('Wed, 21 Oct 2026 07:28:00 GMT');
  assert.equal(retryAfterMs('2', now), 2000);
  assert.equal(retryAfterMs('Wed, 21 Oct 2026 07:28:03 GMT', now), 3000);
  // A date already past waits nothing.
  assert.equal(retryAfterMs('Wed, 21 Oct 2026 07:27:00 GMT', now), 0);
  assert.equal(retryAfterMs('soon', now), null);
  assert.equal(retryAfterMs(undefined, now), null);
});

test('429 with Retry-After, 500, a reset, a truncated and a malformed body are retried; the attempt that succeeded is counted and every failed one kept', async () => {
  const replies = [
    { status: 429, json: { error: { message: 'slow down' } }, headers: { 'retry-after': '0.2' } },
    { status: 500, json: { error: { message: 'boom' } } },
    { reset: true as const },
    { truncate: '{"ok": ' },
    { text: '<html>oops</html>', status: 200 },
    { json: { ok: 7 } },
  ];
  const server = await startMock((_req, n) => replies[n]!);
  const c = client(server.url, { maxAttempts: 6 });
  const t0 = performance.now();
  const parse = (j: unknown) => {
    if (typeof (j as { ok?: unknown }).ok !== 'number') throw new MalformedResponse('no ok');
    return okJson(j);
  };
  const r = await c.post('completions', { a: 1 }, parse, { index: 0, endpoint: 'completions' });
  const waited = performance.now() - t0;
  assert.deepEqual(r.value, { ok: 7 });
  assert.equal(r.attempts, 6);
  // Retry-After 0.2 s was honoured (the backoffs are ≤ 4 ms each).
  assert.ok(waited >= 195, `waited ${waited} ms`);
  const kept = c.drainExchanges();
  assert.deepEqual(kept.map((x) => [x.attempt, x.status, x.error === null]), [[1, 429, false], [2, 500, false], [3, null, false], [4, null, false], [5, 200, false], [6, 200, true]]);
  assert.equal(kept[0]!.error, 'HTTP 429: slow down');
  assert.deepEqual(kept[0]!.request, { a: 1 });
  assert.ok(!JSON.stringify(kept).includes('sk-test-secret'));
  assert.deepEqual(server.seen.map((s) => s.headers.authorization), Array(6).fill('Bearer sk-test-secret'));
  c.close();
  await server.close();
});

test('a 4xx other than 408/409/429 is final: one attempt, the error kept', async () => {
  const server = await startMock(() => ({ status: 401, json: { error: { message: 'bad key' } } }));
  const c = client(server.url);
  await assert.rejects(c.post('completions', {}, okJson, { index: 3, endpoint: 'completions' }), (e: unknown) => e instanceof ApiRequestFailed && e.status === 401 && e.attempts === 1 && !e.retryable && e.message === 'completions: HTTP 401: bad key');
  assert.equal(server.seen.length, 1);
  assert.deepEqual(c.drainExchanges().map((x) => [x.item, x.status]), [[3, 401]]);
  c.close();
  await server.close();
});

test('408 and 409 are retried; exhausted attempts say how many', async () => {
  const server = await startMock((_r, n) => ({ status: n % 2 === 0 ? 408 : 409, json: {} }));
  const c = client(server.url);
  await assert.rejects(c.post('completions', {}, okJson, { index: 0, endpoint: 'completions' }), (e: unknown) => e instanceof ApiRequestFailed && e.retryable && e.message === 'completions: HTTP 408 (gave up after 3 attempts)');
  assert.equal(server.seen.length, 3);
  c.close();
  await server.close();
});

test('a reply after the timeout is a failed attempt, retried', async () => {
  const server = await startMock((_r, n) => (n === 0 ? { stallMs: 400, then: { json: { ok: 1 } } } : { json: { ok: 2 } }));
  const c = client(server.url, { timeoutMs: 100 });
  const r = await c.post('completions', {}, okJson, { index: 0, endpoint: 'completions' });
  assert.deepEqual([r.value, r.attempts], [{ ok: 2 }, 2]);
  assert.match(c.drainExchanges()[0]!.error!, /timeout/);
  c.close();
  await server.close();
});

test('num_concurrent bounds the requests in flight; max_requests_per_minute spaces their starts', async () => {
  let inFlight = 0;
  let most = 0;
  const server = await startMock(async () => {
    most = Math.max(most, ++inFlight);
    await new Promise((r) => setTimeout(r, 20));
    inFlight--;
    return { json: { ok: 1 } };
  });
  const c = client(server.url, { numConcurrent: 3 });
  await Promise.all(Array.from({ length: 12 }, (_, i) => c.post('completions', { i }, okJson, { index: i, endpoint: 'completions' })));
  assert.equal(most, 3);
  c.close();
  // 600 a minute: one start each 100 ms, so 4 requests take at least 300 ms.
  const limited = client(server.url, { numConcurrent: 8, requestsPerMinute: 600 });
  const t0 = performance.now();
  await Promise.all(Array.from({ length: 4 }, (_, i) => limited.post('completions', { i }, okJson, { index: i, endpoint: 'completions' })));
  assert.ok(performance.now() - t0 >= 295);
  limited.close();
  await server.close();
});

test('record_exchanges keeps a seeded sample of successes: the same requests each time', async () => {
  const server = await startMock(() => ({ json: { ok: 1 } }));
  const pick = async () => {
    const c = client(server.url, { recordSample: 0.5 });
    await Promise.all(Array.from({ length: 40 }, (_, i) => c.post('completions', { i }, okJson, { index: i, endpoint: 'completions' })));
    const items = c.drainExchanges().map((x) => x.item).sort((a, b) => a - b);
    c.close();
    return items;
  };
  const a = await pick();
  assert.deepEqual(await pick(), a);
  assert.ok(a.length > 5 && a.length < 35, `${a.length} of 40 kept`);
  await server.close();
});
