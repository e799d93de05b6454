#!/usr/bin/env node
// Node 20's test runner expands no globs and `--test dir/` runs nothing, so the
// test files are listed here explicitly (every *.test.ts under test/) and passed on.
import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
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
const result = spawnSync(process.execPath, ['--import', 'tsx', '--test', '--test-concurrency=2', ...files], {
  cwd: root,
  stdio: 'inherit',
});
process.exit(result.status ?? 1);
