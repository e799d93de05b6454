#!/usr/bin/env node
// `lmaudit serve` itself (for information; issue 12 sets no target): requests per second and p50/p99
// latency of log-likelihood requests — lm-eval local-completions' payload (token ids, echo, logprobs 1,
// max_tokens 1, temperature 0) — on the gpt2-tiny fixture model at concurrency 1, 8 and 64. The
// baseline is concurrency 1 in the same run: the ratio shows what batching concurrent requests into one
// backend call buys. Arguments: [requests per level] [model folder].
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const perLevel = Number(process.argv[2] ?? 256);
const model = process.argv[3] ?? 'fixtures/models/gpt2-tiny';
const LEVELS = [1, 8, 64];

// Multiple-choice shaped requests: a question context and four answer continuations each.
const QUESTIONS = [
  ['Question: Which is a gas?\nAnswer:', [' ice', ' steam', ' rock', ' wood']],
  ['Question: What do plants need to make food?\nAnswer:', [' sunlight', ' darkness', ' sand', ' noise']],
  ['Question: Which planet is closest to the Sun?\nAnswer:', [' Mercury', ' Venus', ' Earth', ' Mars']],
  ['Question: What is frozen water called?\nAnswer:', [' ice', ' steam', ' fog', ' dew']],
  ['Question: Which animal lays eggs?\nAnswer:', [' a chicken', ' a dog', ' a cat', ' a horse']],
  ['Question: What force pulls objects toward Earth?\nAnswer:', [' gravity', ' magnetism', ' friction', ' wind']],
];

const child = spawn(process.execPath, [join(root, 'bin/lmaudit.mjs'), 'serve', '--model', 'onnx', '--model_args', `pretrained=${model}`, '--served_model_name', 'bench'], { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] });
const [url] = await once(createInterface({ input: child.stdout }), 'line');

async function post(path, body) {
  const res = await fetch(`${url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  if (res.status !== 200) throw new Error(`${path}: HTTP ${res.status} ${await res.text()}`);
  return res.json();
}

try {
  const payloads = [];
  for (const [context, choices] of QUESTIONS) {
    const ctx = (await post('/tokenize', { prompt: context })).tokens;
    for (const choice of choices) {
      const whole = (await post('/tokenize', { prompt: context + choice })).tokens;
      payloads.push({ model: 'bench', prompt: [...ctx, ...whole.slice(ctx.length)], temperature: 0, max_tokens: 1, logprobs: 1, seed: 1234, echo: true });
    }
  }
  for (let i = 0; i < 16; i++) await post('/v1/completions', payloads[i % payloads.length]);
  const rows = [];
  for (const concurrency of LEVELS) {
    const before = await (await fetch(`${url}/lmaudit/stats`)).json();
    const latencies = [];
    let next = 0;
    const t0 = performance.now();
    await Promise.all(Array.from({ length: concurrency }, async () => {
      while (next < perLevel) {
        const payload = payloads[next++ % payloads.length];
        const s = performance.now();
        await post('/v1/completions', payload);
        latencies.push(performance.now() - s);
      }
    }));
    const seconds = (performance.now() - t0) / 1000;
    const after = await (await fetch(`${url}/lmaudit/stats`)).json();
    latencies.sort((a, b) => a - b);
    const pct = (q) => latencies[Math.min(latencies.length - 1, Math.ceil(q * latencies.length) - 1)];
    rows.push({ concurrency, rps: perLevel / seconds, p50: pct(0.5), p99: pct(0.99), perCall: (after.jobs - before.jobs) / (after.calls - before.calls) });
  }
  console.log(`lmaudit serve, ${model}: ${perLevel} log-likelihood requests per level (lm-eval local-completions payloads)`);
  console.log('  concurrency  req/s    p50 ms   p99 ms   requests per backend call  vs concurrency 1');
  for (const r of rows) {
    console.log(`  ${String(r.concurrency).padEnd(11)}  ${r.rps.toFixed(1).padEnd(7)}  ${r.p50.toFixed(1).padEnd(7)}  ${r.p99.toFixed(1).padEnd(7)}  ${r.perCall.toFixed(1).padEnd(25)}  ${(r.rps / rows[0].rps).toFixed(2)}×`);
  }
} finally {
  child.kill('SIGTERM');
  await once(child, 'exit');
}
