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
import { externalFixture } from '../helpers/fixtures.ts';
import { loadSource } from '../../src/audit/source.ts';
import { computeMatrix } from '../../src/score/matrix.ts';

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

test("an Inspect log's epochs are named as epochs reduced by Inspect's reducer, not as lm-eval repeats read by take_first", async () => {
  // log_streaming.eval (inspect_ai's test logs): header.json's eval.config has epochs 2 and no epochs_reducer (Inspect's
  // default, mean); reductions.json holds sample 1 → 0.5 (epochs I, C) and sample 2 → 1.0 (C, C), the log's accuracy
  // 0.75 over both epochs. A cell reads epoch 1 only: inspect-match/none is 0.5 (I, C). Before the fix the note spoke
  // of lm-eval's take_first filter and majority_vote, which an Inspect log has nothing of.
  const { store } = await loadSource([externalFixture('inspect/log_streaming.eval')], { skipBad: false, fields: {} });
  const [scope] = await computeMatrix(store, { extractors: ['inspect-match'], normalizers: ['none'], aggregations: ['micro'] });
  assert.equal(scope!.cells[0]!.score, 0.5);
  assert.deepEqual(
    scope!.notes.filter((n) => n.includes('epoch') || n.includes('repeats')),
    ["the log holds 2 epochs of each sample: each cell reads epoch 1 only (repeat 0); Inspect scores every epoch and reduces each sample's scores (reducer mean) before its metrics, so the log's numbers are over all 2 epochs"],
  );
});
