/**
 * `lmaudit view --bundle <dir>` wrote index.html, app.js, app.css and data/ into whatever folder it was given: named
 * the store it was showing, it mixed the site into the store's own files (and would replace a project's index.html).
 * It now writes into a new or empty folder, or over an earlier bundle, and refuses anything else with exit 2.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cliArgs, repoRoot, runCli } from '../helpers/cli.ts';
import { fixturePath } from '../helpers/fixtures.ts';
import { ensureAssets } from './viewHelpers.ts';

test('view --bundle refuses a folder holding other files, and leaves it as it was', async () => {
  await ensureAssets();
  const dir = await mkdtemp(join(tmpdir(), 'lmaudit-bundle-folder-'));
  await writeFile(join(dir, 'provenance.json'), '{}');
  await writeFile(join(dir, 'index.html'), '<p>mine</p>');
  const r = runCli(['view', fixturePath('lmeval/bigrefactor-2023-06'), '--bundle', dir]);
  assert.equal(r.status, 2, r.stdout);
  assert.equal(r.stderr, `lmaudit: ${dir}: the bundle folder holds files that are not an earlier bundle of lmaudit view (provenance.json); name a new or empty folder\n`);
  assert.deepEqual(readdirSync(dir).sort(), ['index.html', 'provenance.json']);
});

test('view --bundle writes over an earlier bundle of its own', async () => {
  await ensureAssets();
  const site = join(await mkdtemp(join(tmpdir(), 'lmaudit-bundle-folder-')), 'site');
  for (let i = 0; i < 2; i++) {
    const r = runCli(['view', fixturePath('lmeval/bigrefactor-2023-06'), '--bundle', site]);
    assert.equal(r.status, 0, r.stderr);
  }
  assert.deepEqual(readdirSync(site).sort(), ['app.css', 'app.js', 'data', 'index.html']);
});

test('a bundle stopped half-way (killed) is written over by the same command: it was refused as "not an earlier bundle of lmaudit view (data)"', async () => {
  await ensureAssets();
  const site = join(await mkdtemp(join(tmpdir(), 'lmaudit-bundle-folder-')), 'site');
  const child = spawn(process.execPath, [...cliArgs, 'view', fixturePath('lmeval/bigrefactor-2023-06'), '--bundle', site], { cwd: repoRoot, stdio: 'ignore' });
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  // Killed once its first answers are written (the bundle writes 135 for this source), as Ctrl-C or a dead machine would.
  let answers = 0;
  while (child.exitCode === null && answers < 3) {
    answers = existsSync(join(site, 'data')) ? readdirSync(join(site, 'data')).filter((f) => f !== 'bundle.js').length : 0;
    await new Promise((wait) => setTimeout(wait, 5));
  }
  child.kill('SIGKILL');
  await exited;
  assert.ok(!existsSync(join(site, 'index.html')), 'the bundle was stopped before its end');
  const r = runCli(['view', fixturePath('lmeval/bigrefactor-2023-06'), '--bundle', site]);
  assert.equal(r.status, 0, r.stderr);
  assert.deepEqual(readdirSync(site).sort(), ['app.css', 'app.js', 'data', 'index.html']);
});
