#!/usr/bin/env node
// Node 20's test runner expands no globs and `--test dir/` runs nothing, so the
// test files are listed here explicitly (every *.test.ts under test/) and passed on.
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
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
