/**
 * `lmaudit view` as a user runs it (from the sources, as test/helpers/cli.ts does): it prints a
 * 127.0.0.1 URL and serves the page and the API there until stopped; bad input is exit 2 with
 * a message naming the field or file; --bundle writes the site and says where.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cliArgs, repoRoot, runCli } from '../helpers/cli.ts';
import { fixturePath } from '../helpers/fixtures.ts';
import { ensureAssets } from './viewHelpers.ts';

test('lmaudit view prints its URL on 127.0.0.1 and serves the runs there', async () => {
  await ensureAssets();
  const child = spawn(process.execPath, [...cliArgs, 'view', fixturePath('lmeval/bigrefactor-2023-06')], { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'] });
  try {
    const url = await new Promise<string>((resolve, reject) => {
      let out = '';
      child.stdout.on('data', (c: Buffer) => {
        out += c.toString();
        const m = /^lmaudit view: (http:\/\/127\.0\.0\.1:\d+\/) \(127\.0\.0\.1 only; Ctrl-C to stop\)$/m.exec(out);
        if (m) resolve(m[1]!);
      });
      child.on('exit', (code) => reject(new Error(`exited ${code}: ${out}`)));
    });
    const runs = (await (await fetch(`${url}api/runs`)).json()) as { sources: { runs: { run_id: string; tasks: { task: string; items: number }[] }[] }[] };
    assert.deepEqual(runs.sources[0]!.runs[0]!.tasks, [{ task: 'boolq-seq2seq', items: 16 }]);
    const page = await fetch(url);
    assert.match(page.headers.get('content-security-policy') ?? '', /default-src 'none'/);
    assert.match(await page.text(), /<script src="app\.js"><\/script>/);
  } finally {
    child.kill('SIGTERM');
  }
});

test('lmaudit view: bad input is exit 2 naming the field or the file', () => {
  const port = runCli(['view', fixturePath('lmeval/bigrefactor-2023-06'), '--port', 'x']);
  assert.equal(port.status, 2);
  assert.match(port.stderr, /--port must be an integer ≥ 1, got 'x'/);
  const missing = runCli(['view', 'no/such/store']);
  assert.equal(missing.status, 2);
  assert.match(missing.stderr, /no\/such\/store/);
  assert.doesNotMatch(missing.stderr, /\n\s+at /, 'no stack trace');
});

test('lmaudit view --bundle writes the site and says where to open it', async () => {
  await ensureAssets();
  const dir = await mkdtemp(join(tmpdir(), 'lmaudit-view-cli-'));
  const r = runCli(['view', fixturePath('lmeval/bigrefactor-2023-06'), '--bundle', join(dir, 'site')]);
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, new RegExp(`^Wrote a static bundle of \\d+ answers to ${join(dir, 'site')} \\(open ${join(dir, 'site', 'index.html')}\\)$`, 'm'));
  assert.ok(existsSync(join(dir, 'site', 'index.html')));
});
