/**
 * A task with repeats (lm-eval's self-consistency tasks draw 64 responses per request): the rescoring
 * matrix reads each item's first response only, and says so.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot, runCli } from '../helpers/cli.ts';

test('rescore says that each cell reads the first of a task\'s repeats, and only for a task with repeats', () => {
  const dir = mkdtempSync(join(tmpdir(), 'lmaudit-repeats-'));
  writeFileSync(join(dir, 'gsm8k_rep3.yaml'), `include: ${join(repoRoot, 'tasks/gsm8k/gsm8k.yaml')}\ntask: gsm8k_rep3\nrepeats: 3\n`);
  const note = "note: the task draws 3 responses per request (repeats): each cell reads the first of them only (repeat 0), as lm-eval's take_first filter does; filters over all of them (majority_vote, take_first_k) are not rescored";
  const run = runCli(['run', '--model', 'dummy', '--tasks', 'gsm8k_rep3,gsm8k', '--include_path', dir, '--limit', '2', '--out', join(dir, 'store')]);
  assert.equal(run.status, 0, run.stderr);
  const r = runCli(['rescore', join(dir, 'store')]);
  assert.equal(r.status, 0, r.stderr);
  const section = (t: string) => {
    const at = r.stdout.indexOf(`${t}  (run`);
    assert.ok(at >= 0, `${t}: ${r.stdout}`);
    return r.stdout.slice(at).split('\n\n')[0]!;
  };
  const [rep3, plain] = [section('gsm8k_rep3'), section('gsm8k')];
  assert.ok(rep3!.includes(note), rep3);
  assert.ok(!plain!.includes('repeats'), plain);
  rmSync(dir, { recursive: true, force: true });
});
