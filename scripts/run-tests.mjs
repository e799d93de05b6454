#!/usr/bin/env node
// Node 20's test runner expands no globs and `--test dir/` runs nothing, so the
// test files are listed here explicitly (every *.test.ts under test/) and passed on.
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { tmpdir } from 'node:os';
import { spawnSync } from 'node:child_process';

const root = new URL('..', import.meta.url).pathname;
function collect(dir) {
  return readdirSync(dir).sort().flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return collect(path);
    return name.endsWith('.test.ts') ? [relative(root, path)] : [];
  });
}
/** The newest modification time of the files under `dir`. */
function newest(dir) {
  return Math.max(0, ...readdirSync(dir).map((name) => {
    const path = join(dir, name);
    const stat = statSync(path);
    return stat.isDirectory() ? newest(path) : stat.mtimeMs;
  }));
}
// Some tests run the bundle as a user runs it (bin/lmaudit.mjs): a bundle older than the sources it was built from
// would test yesterday's code, so it is rebuilt first (`npm ci` builds it once; an edit since leaves it behind).
const bundle = join(root, 'dist/lmaudit.cjs');
const built = existsSync(bundle) ? statSync(bundle).mtimeMs : 0;
if (Math.max(newest(join(root, 'src')), statSync(join(root, 'scripts/build.mjs')).mtimeMs) > built) {
  const build = spawnSync(process.execPath, [join(root, 'scripts/build.mjs')], { cwd: root, stdio: 'inherit' });
  if (build.status !== 0) process.exit(build.status ?? 1);
}
const only = process.argv.slice(2);
const files = only.length > 0 ? only : collect(join(root, 'test'));
// The tests' temporary folders (and lmaudit's scratch folders) go under one folder of this run, removed when it
// ends: a test that fails, or a process it kills, leaves nothing behind in the machine's temporary folder.
const scratch = mkdtempSync(join(tmpdir(), 'lmaudit-tests-'));
const result = spawnSync(process.execPath, ['--import', 'tsx', '--test', '--test-concurrency=2', ...files], {
  cwd: root,
  stdio: 'inherit',
  env: { ...process.env, TMPDIR: scratch },
});
rmSync(scratch, { recursive: true, force: true });
process.exit(result.status ?? 1);
