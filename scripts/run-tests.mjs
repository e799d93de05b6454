#!/usr/bin/env node
// Runs the test suite (`npm test`) or the files named: node scripts/run-tests.mjs [--cpu] [test/x.test.ts ...]
//
// Node 20's test runner expands no globs and `--test dir/` runs nothing, so the test files are listed here explicitly
// (every *.test.ts under test/) and passed on. The slow cross-checks (the lm-eval reference runs on the larger fixture
// model, the API backends against `lmaudit serve` on it, kill-and-resume at many points) run only with
// LMAUDIT_SLOW_TESTS=1, which .ci/run sets; without it they are reported as skipped, saying so.
//
// --cpu runs each file in a process of its own, one after another, and prints the CPU seconds (user + system, the
// file's child processes included) each took, largest first, and their sum: on a shared machine wall time says more
// about the neighbours than about the tests, CPU time much less. The suite's wall time on an idle machine with
// --test-concurrency=2 is about that sum over two plus the longest file's tail.
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { tmpdir } from 'node:os';
import { spawnSync } from 'node:child_process';
import { bundleIsCurrent } from '../bin/bundle.mjs';

const root = new URL('..', import.meta.url).pathname;
function collect(dir) {
  return readdirSync(dir).sort().flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return collect(path);
    return name.endsWith('.test.ts') ? [relative(root, path)] : [];
  });
}
// Most tests run the CLI as a user runs it, from the bundle (bin/lmaudit.mjs; test/helpers/cli.ts): a bundle older
// than the sources would test yesterday's code, so it is rebuilt first (`npm ci` builds it once; an edit since leaves
// it behind).
if (!bundleIsCurrent()) {
  const build = spawnSync(process.execPath, [join(root, 'scripts/build.mjs')], { cwd: root, stdio: 'inherit' });
  if (build.status !== 0) process.exit(build.status ?? 1);
}
const args = process.argv.slice(2);
const cpu = args.includes('--cpu');
const only = args.filter((a) => a !== '--cpu');
const files = only.length > 0 ? only : collect(join(root, 'test'));
// The tests' temporary folders (and lmaudit's scratch folders) go under one folder of this run, removed when it
// ends: a test that fails, or a process it kills, leaves nothing behind in the machine's temporary folder.
// The fixture trees test/helpers/fixtures.ts rebuilds from their compact form are rebuilt once in it and shared by
// every test file of the run (LMAUDIT_TEST_SHARED), rather than once a file.
const scratch = mkdtempSync(join(tmpdir(), 'lmaudit-tests-'));
const env = { ...process.env, TMPDIR: scratch, LMAUDIT_TEST_SHARED: join(scratch, 'shared-fixtures') };
let status;
if (cpu) {
  // bash's `times` prints the CPU time of the children it waited for (node, and what node waited for) last.
  const rows = [];
  let failed = 0;
  for (const file of files) {
    const r = spawnSync('bash', ['-c', 'node --import tsx --test --test-reporter=dot "$1" >/dev/null 2>&1; s=$?; times; exit $s', 'bash', file], { cwd: root, env, encoding: 'utf8' });
    const [user, system] = r.stdout.trim().split('\n').at(-1).split(/\s+/).map((t) => {
      const m = /^(\d+)m([\d.]+)s$/.exec(t);
      return Number(m[1]) * 60 + Number(m[2]);
    });
    rows.push([user + system, file, r.status]);
    if (r.status !== 0) failed++;
    process.stderr.write(`${(user + system).toFixed(1).padStart(7)} CPU s  ${file}${r.status === 0 ? '' : '  FAILED'}\n`);
  }
  rows.sort((a, b) => b[0] - a[0]);
  console.log(rows.map(([s, f, st]) => `${s.toFixed(1).padStart(7)} CPU s  ${f}${st === 0 ? '' : '  FAILED'}`).join('\n'));
  console.log(`${rows.reduce((n, [s]) => n + s, 0).toFixed(1).padStart(7)} CPU s  in all, ${files.length} file(s)${failed ? `, ${failed} failed` : ''}`);
  status = failed === 0 ? 0 : 1;
} else {
  const result = spawnSync(process.execPath, ['--import', 'tsx', '--test', '--test-concurrency=2', ...files], { cwd: root, stdio: 'inherit', env });
  status = result.status ?? 1;
}
rmSync(scratch, { recursive: true, force: true });
process.exit(status);
