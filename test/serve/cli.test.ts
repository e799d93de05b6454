/**
 * `lmaudit serve` as a process: the URL on the first stdout line, serving until SIGTERM/SIGINT,
 * then exit 0; the dummy backend with --delay_ms; bad flags exit 2 with the flag named.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { dummyBackend } from '../../src/models/dummy.ts';
import { cliArgs, repoRoot, runCli } from '../helpers/cli.ts';
import { postJson } from './helpers.ts';

async function serveProcess(args: string[]) {
  const child = spawn(process.execPath, [...cliArgs, 'serve', ...args], { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  const lines = createInterface({ input: child.stdout });
  const [first] = (await Promise.race([once(lines, 'line'), once(child, 'exit').then(() => { throw new Error(`serve exited early: ${stderr}`); })])) as [string];
  return { child, url: first, stderr: () => stderr };
}

test('serve --model onnx: the first stdout line is the URL; it answers; SIGTERM exits 0', async () => {
  const { child, url } = await serveProcess(['--model', 'onnx', '--model_args', 'pretrained=fixtures/models/gpt2-tiny', '--served_model_name', 'gpt2-tiny']);
  assert.match(url, /^http:\/\/127\.0\.0\.1:\d+$/);
  const models = (await (await fetch(`${url}/v1/models`)).json()) as { data: Array<{ id: string }> };
  assert.deepEqual(models.data.map((m) => m.id), ['gpt2-tiny']);
  const tok = await postJson(`${url}/tokenize`, { prompt: 'Hello world' });
  // GPT-2's BPE ids ("Hello" 15496, " world" 995).
  assert.deepEqual((tok.json as { tokens: number[] }).tokens, [15496, 995]);
  child.kill('SIGTERM');
  const [code] = await once(child, 'exit');
  assert.equal(code, 0);
});

test('serve --model dummy --delay_ms 50: completions equal the dummy backend\'s generateUntil, each reply at least 50 ms late; SIGINT exits 0', async () => {
  const { child, url } = await serveProcess(['--model', 'dummy', '--delay_ms', '50']);
  const dummy = await dummyBackend.open({}, { batchSize: 1 });
  const [expected] = await dummy.generateUntil([{ context: 'Question: 2+2?\nAnswer:', settings: { until: ['\n'], maxGenToks: 16, doSample: false, temperature: 0, topP: null, topK: null, seed: null, extra: {} } }]);
  const t0 = performance.now();
  const { status, json } = await postJson(`${url}/v1/completions`, { model: 'dummy', prompt: 'Question: 2+2?\nAnswer:', max_tokens: 16, stop: ['\n'], temperature: 0 });
  const ms = performance.now() - t0;
  assert.equal(status, 200);
  assert.equal((json as { choices: Array<{ text: string }> }).choices[0]!.text, expected!.text);
  assert.ok(ms >= 50, `${ms} ms`);
  const echo = await postJson(`${url}/v1/completions`, { prompt: [1, 2], echo: true, logprobs: 1, max_tokens: 1 });
  assert.equal(echo.status, 400);
  assert.match((echo.json as { error: { message: string } }).error.message, /dummy backend has no per-token log-probs/);
  child.kill('SIGINT');
  const [code] = await once(child, 'exit');
  assert.equal(code, 0);
});

test('serve: bad flags exit 2 naming the flag', () => {
  const faults = runCli(['serve', '--model', 'dummy', '--faults', 'rate=2']);
  assert.equal(faults.status, 2);
  assert.match(faults.stderr, /--faults: rate must be a number from 0 to 1, got '2'/);
  const port = runCli(['serve', '--model', 'dummy', '--port', 'x']);
  assert.equal(port.status, 2);
  assert.match(port.stderr, /--port takes a whole number from 0 to 65535/);
  const backend = runCli(['serve', '--model', 'onx']);
  assert.equal(backend.status, 2);
  assert.match(backend.stderr, /onnx/);
});
