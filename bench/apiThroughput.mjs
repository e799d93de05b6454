#!/usr/bin/env node
// Issue 12's API target: against `lmaudit serve --model dummy --delay_ms 50` (every reply 50 ms late,
// no faults), lmaudit's openai-chat backend at num_concurrent 64 sustains at least 90% of the ideal
// 64 / 50 ms = 1,280 requests per second. The requests go as the runner sends them: batches of the
// backend's preferred size (num_concurrent × 64), one after another, each request with its retries,
// parsing, local stop cut and exchange sampling (record_exchanges=0.05). Printed as measured ÷ ideal.
// The baseline row, measured in the same run on the same server: lm-eval's sequential path
// (num_concurrent 1: one request at a time), whose ideal is 20 requests per second. Each server also gets a
// bare client's row (no parsing or bookkeeping), the server's own ceiling; and a minimal server in its own
// process shows what the client reaches where the server is not the limit.
// Arguments: [requests at num_concurrent 64 (default 12288: three whole batches of 64 × 64)] [requests in the sequential baseline (default 60)].
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const total = Number(process.argv[2] ?? 12288);
const sequential = Number(process.argv[3] ?? 60);
const DELAY_MS = 50;
const CONCURRENT = 64;

const { register } = await import('tsx/esm/api');
register();
const { backendFactory } = await import(new URL('../src/models/registry.ts', import.meta.url).href);

// The minimal server: what any OpenAI-compatible server must at least do (parse the body, wait, answer), in
// its own process as lmaudit serve is; it shows how much of the figure is the client's.
const MINIMAL = `
const http = require('node:http');
const reply = JSON.stringify({ id: 'c', object: 'chat.completion', model: 'bench', choices: [{ index: 0, message: { role: 'assistant', content: ' The answer is 4.' }, finish_reason: 'stop' }], usage: { prompt_tokens: 9, completion_tokens: 5, total_tokens: 14 } });
const models = JSON.stringify({ object: 'list', data: [{ id: 'bench', object: 'model' }] });
const server = http.createServer((req, res) => {
  let body = '';
  req.on('data', (c) => (body += c));
  req.on('end', () => {
    if (req.url === '/v1/models') return res.writeHead(200, { 'content-type': 'application/json' }).end(models);
    JSON.parse(body);
    setTimeout(() => res.writeHead(200, { 'content-type': 'application/json' }).end(reply), ${DELAY_MS});
  });
});
server.keepAliveTimeout = 60000;
server.listen(0, '127.0.0.1', () => console.log('http://127.0.0.1:' + server.address().port));
`;

async function startServer(args) {
  const child = spawn(process.execPath, args, { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] });
  const [url] = await once(createInterface({ input: child.stdout }), 'line');
  return { child, url };
}
const serve = await startServer([join(root, 'bin/lmaudit.mjs'), 'serve', '--model', 'dummy', '--delay_ms', String(DELAY_MS), '--served_model_name', 'bench']);
const minimal = await startServer(['-e', MINIMAL]);

const settings = { until: ['\n\nQuestion:'], maxGenToks: 16, doSample: false, temperature: null, topP: null, topK: null, seed: null, extra: {} };
const request = (i) => ({ context: '', messages: [{ role: 'user', content: `Question: what is ${i} + ${i}?\nAnswer:` }], settings });

async function measure(url, numConcurrent, count) {
  const lm = await backendFactory('openai-chat').open({ model: 'bench', base_url: `${url}/v1/chat/completions`, num_concurrent: numConcurrent, record_exchanges: 0.05 }, { batchSize: 1 });
  const size = lm.preferredBatchSize;
  // Warm the sockets (and the JIT) before the clock starts.
  await lm.generateUntil(Array.from({ length: Math.min(size, count) }, (_, i) => request(-1 - i)));
  lm.drainExchanges();
  const t0 = performance.now();
  let done = 0;
  for (let i = 0; i < count; i += size) {
    const batch = Array.from({ length: Math.min(size, count - i) }, (_, k) => request(i + k));
    const answers = await lm.generateUntil(batch);
    done += answers.length;
    lm.drainExchanges();
  }
  const seconds = (performance.now() - t0) / 1000;
  await lm.close();
  return { rate: done / seconds, seconds, done };
}

/** The same requests from a bare client (keep-alive node:http, no parsing, no bookkeeping): the server's own ceiling. */
async function measureBare(url, count) {
  const http = await import('node:http');
  const agent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENT });
  const target = new URL('/v1/chat/completions', url);
  const one = (i) => new Promise((resolve, reject) => {
    const body = JSON.stringify({ messages: request(i).messages, model: 'bench', max_tokens: 16, temperature: 0, stop: settings.until, seed: 1234 });
    const req = http.request(target, { method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } }, (res) => res.resume().on('end', resolve));
    req.on('error', reject);
    req.end(body);
  });
  let next = 0;
  const t0 = performance.now();
  await Promise.all(Array.from({ length: CONCURRENT }, async () => {
    while (next < count) await one(next++);
  }));
  const seconds = (performance.now() - t0) / 1000;
  agent.destroy();
  return { rate: count / seconds, seconds, done: count };
}

try {
  const ideal = (n) => (n * 1000) / DELAY_MS;
  const row = (name, m, n) => `${name.padEnd(52)} ${String(m.done).padStart(6)} req ${m.seconds.toFixed(2).padStart(7)} s ${m.rate.toFixed(0).padStart(6)} req/s   ideal ${ideal(n).toFixed(0).padStart(5)}   measured ÷ ideal ${(m.rate / ideal(n)).toFixed(3)}`;
  for (const [name, server] of [[`lmaudit serve --model dummy --delay_ms ${DELAY_MS}`, serve], [`a minimal server (parse, wait ${DELAY_MS} ms, answer)`, minimal]]) {
    const base = await measure(server.url, 1, sequential);
    const fast = await measure(server.url, CONCURRENT, total);
    console.log(`openai-chat against ${name}`);
    console.log(row('  lm-eval-style sequential (num_concurrent 1)', base, 1));
    console.log(row(`  lmaudit num_concurrent ${CONCURRENT}`, fast, CONCURRENT));
    console.log(row(`  a bare client, ${CONCURRENT} in flight (the server's ceiling)`, await measureBare(server.url, total), CONCURRENT));
    console.log(`  speed-up over the sequential baseline: ${(fast.rate / base.rate).toFixed(1)}×; target measured ÷ ideal ≥ 0.90 at num_concurrent ${CONCURRENT}: ${fast.rate / ideal(CONCURRENT) >= 0.9 ? 'met' : 'NOT met'}`);
  }
} finally {
  serve.child.kill();
  minimal.child.kill();
}
