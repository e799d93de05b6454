// The bundle that bin/lmaudit.mjs runs, and the V8 code cache the build made for it. A cache
// V8 rejects costs nothing but time, silently: this says so instead.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
// @ts-expect-error: plain JavaScript, no declarations
import { bundle, compileBundle } from '../bin/bundle.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const built = existsSync(bundle) ? false : 'no bundle: run `npm run build` (npm ci does)';

test('V8 accepts the code cache the build made for the bundle, made after it', { skip: built }, () => {
  assert.ok(statSync(`${bundle}.cache`).mtimeMs >= statSync(bundle).mtimeMs, 'bin/lmaudit.mjs ignores a cache older than the bundle');
  assert.equal(compileBundle().cachedDataRejected, false);
});

test('the bundled CLI runs, from any working folder, and exits 2 on bad input', { skip: built }, () => {
  const version = spawnSync(process.execPath, [`${root}bin/lmaudit.mjs`, '--version'], { cwd: '/', encoding: 'utf8' });
  assert.equal(version.status, 0, version.stderr);
  assert.equal(version.stdout.trim(), JSON.parse(readFileSync(`${root}package.json`, 'utf8')).version);
  const bad = spawnSync(process.execPath, [`${root}bin/lmaudit.mjs`, 'rescore', '/no/such/store'], { cwd: '/', encoding: 'utf8' });
  assert.equal(bad.status, 2);
  assert.match(bad.stderr, /\/no\/such\/store: no such file or folder/);
});
