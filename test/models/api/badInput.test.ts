/**
 * What the API backends refuse before a run starts, through the CLI: exit 2, one clear message,
 * no store written and nothing sent to the model endpoints.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCliAsync, startMock } from './mockServer.ts';

const TOK = 'tokenizer=fixtures/models/gpt2-tiny';

test('unreachable, not OpenAI-compatible, a model not served, a missing key, a key in model_args, a chat backend asked for log-likelihoods or without a chat template: exit 2 before the run starts', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'lmaudit-api-bad-'));
  // A port that was free a moment ago: nothing listens there.
  const probe = http.createServer();
  await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
  const closedPort = (probe.address() as AddressInfo).port;
  await new Promise<void>((r) => probe.close(() => r()));
  // A web server that is not an API: every path is an HTML 404.
  const html = http.createServer((_req, res) => res.writeHead(404, { 'content-type': 'text/html' }).end('<html><body>Not Found</body></html>'));
  await new Promise<void>((r) => html.listen(0, '127.0.0.1', r));
  const htmlUrl = `http://127.0.0.1:${(html.address() as AddressInfo).port}`;
  const api = await startMock(() => ({ status: 500, json: {} }), ['served-model']);

  const run = (n: number, model: string, args: string, extra: string[] = [], env: Record<string, string> = {}) =>
    runCliAsync(['run', '--model', model, '--model_args', args, '--tasks', extra.includes('gsm8k') ? 'gsm8k' : 'arc_easy', '--limit', '2', '--out', join(dir, `s${n}`), ...extra.filter((e) => e !== 'gsm8k')], env);
  const cases: Array<[string, ReturnType<typeof run>, RegExp]> = [
    ['unreachable', run(1, 'openai-completions', `model=m,base_url=http://127.0.0.1:${closedPort}/v1/completions,${TOK}`), new RegExp(`^lmaudit: --model openai-completions: cannot reach the server at http://127.0.0.1:${closedPort} \\(GET http://127.0.0.1:${closedPort}/v1/models: ECONNREFUSED`)],
    ['not an API', run(2, 'openai-completions', `model=m,base_url=${htmlUrl},${TOK}`), new RegExp(`^lmaudit: --model openai-completions: ${htmlUrl} is not an OpenAI-compatible server \\(GET ${htmlUrl}/v1/models answered 404\\)`)],
    ['model not served', run(3, 'openai-completions', `model=gpt2,base_url=${api.url},${TOK}`), new RegExp(`^lmaudit: --model_args model=gpt2: the server at ${api.url} does not serve it \\(it lists 'served-model'\\)`)],
    ['named key unset', run(4, 'openai-completions', `model=served-model,base_url=${api.url},${TOK},api_key_env=LMAUDIT_TEST_UNSET_KEY`), /^lmaudit: --model openai-completions: no API key \(set LMAUDIT_TEST_UNSET_KEY in the environment\)/],
    ['anthropic without key', run(5, 'anthropic', `model=served-model,base_url=${api.url}`, ['gsm8k'], { ANTHROPIC_API_KEY: '' }), /^lmaudit: --model anthropic: no API key \(set ANTHROPIC_API_KEY in the environment\)/],
    ['key in model_args', run(6, 'openai-chat', `model=served-model,base_url=${api.url},api_key=sk-abc`, ['gsm8k', '--apply_chat_template']), /^lmaudit: --model_args api_key: a key is never taken on the command line .*set it in the environment \(OPENAI_API_KEY, or name another variable with api_key_env=NAME\)/],
    ['chat asked for log-likelihoods', run(7, 'openai-chat', `model=served-model,base_url=${api.url}`, ['--apply_chat_template']), /^lmaudit: task 'arc_easy' needs log-probabilities; the --model backend gives none/],
    ['chat without a template', run(8, 'openai-chat', `model=served-model,base_url=${api.url}`, ['gsm8k']), /^lmaudit: --model openai-chat takes chat messages: run with --apply_chat_template/],
  ];
  for (const [name, pending, message] of cases) {
    const r = await pending;
    assert.equal(r.status, 2, `${name}: ${r.stderr}`);
    assert.match(r.stderr, message, name);
    assert.doesNotMatch(r.stderr, /\n\s+at /, `${name}: no stack trace`);
  }
  for (let n = 1; n <= 8; n++) assert.equal(existsSync(join(dir, `s${n}`)), false, `store s${n} was written`);
  // Nothing reached the model endpoints (the mock records every request but GET /v1/models).
  assert.deepEqual(api.seen, []);
  html.close();
  await api.close();
});
