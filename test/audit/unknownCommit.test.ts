import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runCli } from '../helpers/cli.ts';
import { externalFixture } from '../helpers/fixtures.ts';

// PR #2809's two Qwen2.5-7B runs: A's results file has `git_hash: null` (lm-eval writes null when `git describe`
// fails, i.e. not run from a git checkout), B's "ab90eba". Neither has samples.
const DIR = externalFixture('lm-evaluation-harness/pr2809-qwen-versions/');

test('a null git_hash is an unknown commit, not a commit that differs; no samples on either side is said in English', () => {
  const r = runCli(['diff', `${DIR}results-0.4.3`, `${DIR}results-0.4.8`, '--tasks', 'arc_easy', '--json']);
  assert.equal(r.status, 0, r.stderr);
  const comparison = JSON.parse(r.stdout).comparisons[0];
  const commit = comparison.runSettings.items.find((i: { item: string }) => i.item === 'harness').fields.find((f: { field: string }) => f.field === 'commit');
  assert.equal(commit.verdict, 'unknown in A');
  const task = comparison.tasks[0];
  // "the harness commit differs (null vs "ab90eba")" was a violation claimed on a value A never knew.
  assert.deepEqual(task.falsifier.clauses.find((c: { name: string }) => c.name === 'harness'), {
    // Both versions are inferred as 0.4.3–0.4.9 (test/audit/versionRange.test.ts): equal ranges are not one version.
    name: 'harness', phrase: 'harness versions or commits', status: 'unknown', finding: 'the harness commit unknown in A; the harness version unknown in both',
  });
  // The dtype (bf16 vs float32) still voids the comparison.
  assert.equal(task.falsifier.clauses.find((c: { name: string }) => c.name === 'precision').status, 'violated');
  assert.equal(task.pairedNote, 'no per-item samples in either run: paired statistics need the same items scored in both runs; only the reported aggregates can be set side by side');
});
