// `npm ci` on a fresh machine with nothing set must not run onnxruntime-node's install script's download of CUDA
// libraries from a host outside the npm registry (offline it fails and npm removes node_modules). The project carries
// the setting itself: .npmrc for npm 10 and 11 (which run every install script and pass the key to it as
// npm_config_onnxruntime_node_install), and package.json's allowScripts, which npm 11.16+ reads to warn about
// undeclared install scripts and npm 12 enforces. Every dependency with an install script is declared, allowed or
// denied, so none runs unannounced.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot, runCli } from '../helpers/cli.ts';

const read = (path: string) => readFileSync(join(repoRoot, path), 'utf8');

/** .npmrc as npm reads it (ini: `key=value`, `#` and `;` start a comment line). */
function npmrc(): Map<string, string> {
  const settings = new Map<string, string>();
  for (const line of read('.npmrc').split('\n')) {
    const text = line.trim();
    if (text === '' || text.startsWith('#') || text.startsWith(';')) continue;
    const eq = text.indexOf('=');
    assert.ok(eq > 0, `.npmrc: not a key=value line: ${text}`);
    settings.set(text.slice(0, eq).trim(), text.slice(eq + 1).trim());
  }
  return settings;
}

test('npm 10 and 11: the project .npmrc skips onnxruntime-node\'s download', () => {
  assert.equal(npmrc().get('onnxruntime-node-install'), 'skip');
});

test('allowScripts (npm 11 warns, npm 12 enforces) runs esbuild\'s install script and denies onnxruntime-node\'s; every install script is declared', () => {
  const pkg = JSON.parse(read('package.json')) as { allowScripts?: Record<string, boolean> };
  assert.deepEqual(pkg.allowScripts, { esbuild: true, 'onnxruntime-node': false });
  const lock = JSON.parse(read('package-lock.json')) as { packages: Record<string, { hasInstallScript?: boolean }> };
  const withScripts = Object.entries(lock.packages)
    .filter(([path, entry]) => path !== '' && entry.hasInstallScript)
    .map(([path]) => path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length))
    .sort();
  assert.deepEqual(withScripts, Object.keys(pkg.allowScripts ?? {}).sort());
});

test('CI installs as the README says, with no ONNXRUNTIME_NODE_INSTALL of its own, and runs the slow cross-checks too', () => {
  const ci = read('.ci/run');
  assert.doesNotMatch(ci, /ONNXRUNTIME_NODE_INSTALL/);
  assert.match(ci, /^npm ci$/m);
  // test/helpers/slow.ts: what `npm test` skips without the flag must still run in CI.
  assert.match(ci, /^LMAUDIT_SLOW_TESTS=1 npm test$/m);
});

test('the onnx backend says truthfully that it does not use a GPU, whether or not the CUDA provider is installed', () => {
  const dir = mkdtempSync(join(tmpdir(), 'lmaudit-device-'));
  try {
    const args = ['run', '--model', 'onnx', '--model_args', 'pretrained=fixtures/models/gpt2-tiny,device=cuda', '--tasks', 'arc_easy', '--limit', '1', '--out', join(dir, 's')];
    const r = runCli(args);
    assert.equal(r.status, 2, r.stderr);
    assert.match(r.stderr, /^lmaudit: --model_args device=cuda: the onnx backend runs on onnxruntime's CPU execution provider only \(lmaudit does not use the CUDA provider, installed or not: see the README's "GPU"\)/);
    assert.equal(existsSync(join(dir, 's')), false, 'refused before anything is written');
    assert.match(read('README.md'), /\*\*GPU\.\*\* lmaudit's `onnx` backend does not use a GPU/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
