/**
 * As-recorded rescoring of lm-eval's f1 and mcc metrics: per-sample (gold, pred) pairs that scikit-learn aggregates,
 * which lmaudit took as "not recomputed" before. Reference: the real lm-eval 0.4.13 run
 * fixtures/models/lmeval-reference/gpt2-tiny/f1-mcc (boolq with acc, f1 and mcc; arc_challenge, four choices, with acc
 * and mcc; 40 documents each, the default 100,000 bootstrap iterations), its samples and the numbers its results
 * file printed: every pair recomputed from the stored log-likelihoods, every value and stderr equal to the last bit.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fixturePath } from '../../helpers/fixtures.ts';
import { asRecordedOf } from './recordedCells.ts';
import { runCli } from '../../helpers/cli.ts';

const DIR = fixturePath('models/lmeval-reference/gpt2-tiny/f1-mcc');

test('f1 and mcc of a real lm-eval run: every (gold, pred) pair recomputed, value and bootstrap stderr equal to the printed ones', async () => {
  const { printed: results, report } = await asRecordedOf(DIR);
  const seen: string[] = [];
  for (const cell of report.cells) {
    const label = `${cell.task} ${cell.metric}`;
    seen.push(label);
    assert.equal(cell.items.taken_as_recorded, null, label);
    assert.deepEqual(cell.items.differing, [], label);
    assert.equal(cell.items.reproduced, 40, label);
    assert.equal(cell.value, results[cell.task][`${cell.metric},none`], label);
    assert.equal(cell.stderr, results[cell.task][`${cell.metric}_stderr,none`], label);
    assert.equal(cell.matches_reported, true, label);
  }
  assert.deepEqual(seen.sort(), ['arc_challenge_mcc acc', 'arc_challenge_mcc mcc', 'boolq_f1_mcc acc', 'boolq_f1_mcc f1', 'boolq_f1_mcc mcc']);
  assert.equal(report.cells.find((c) => c.metric === 'f1')!.aggregation, 'f1');
  assert.equal(report.cells.find((c) => c.task === 'arc_challenge_mcc' && c.metric === 'mcc')!.aggregation, 'matthews_corrcoef');
});

test("f1 aggregated by task code (scikit-learn's f1_score with average micro, macro, weighted, as afrimmlu's utils.py): read from the recorded source, reproduced", async () => {
  // fixtures/models/lmeval-reference/gpt2-tiny/f1-averages: arc_challenge, 40 documents, three copies of the task whose f1
  // is aggregated by utils.micro_f1_score, macro_f1_score and weighted_f1_score (lm-eval's aradice/piqa/metrics.py).
  const dir = fixturePath('models/lmeval-reference/gpt2-tiny/f1-averages');
  const { printed: results, report } = await asRecordedOf(dir);
  const f1 = report.cells.filter((c) => c.metric === 'f1');
  assert.deepEqual(f1.map((c) => c.task).sort(), ['arc_challenge_f1_macro', 'arc_challenge_f1_micro', 'arc_challenge_f1_weighted']);
  for (const cell of f1) {
    assert.equal(cell.items.reproduced, 40, cell.task);
    assert.match(cell.aggregation!, new RegExp(`^def ${cell.task.replace('arc_challenge_f1_', '')}_f1_score\\(items\\):`), cell.task);
    assert.equal(cell.value, results[cell.task]['f1,none'], cell.task);
    // lm-eval bootstraps only its own registered aggregations: task code gets no stderr.
    assert.equal(cell.stderr, 'N/A', cell.task);
    assert.equal(results[cell.task]['f1_stderr,none'], 'N/A', cell.task);
    assert.equal(cell.matches_reported, true, cell.task);
  }
  // Three different numbers from the same pairs: the average is what differs.
  assert.equal(new Set(f1.map((c) => c.value)).size, 3);
});

test('a recorded pair that the log-likelihoods do not give is named as differing; the aggregate is formed from the recomputed pairs', async () => {
  // The first boolq document's recorded pred flipped (arc_challenge's samples are left out: not needed here).
  const dir = mkdtempSync(join(tmpdir(), 'f1-edited-'));
  for (const f of readdirSync(DIR)) {
    if (f.startsWith('samples_arc')) continue;
    if (!f.startsWith('samples_boolq')) {
      copyFileSync(join(DIR, f), join(dir, f));
      continue;
    }
    const lines = readFileSync(join(DIR, f), 'utf8').trimEnd().split('\n');
    const first = JSON.parse(lines[0]!) as { f1: [number, number] };
    const edited = [first.f1[0], 1 - first.f1[1]];
    lines[0] = lines[0]!.replace(`"f1": [${first.f1[0]}, ${first.f1[1]}]`, `"f1": [${edited[0]}, ${edited[1]}]`);
    writeFileSync(join(dir, f), `${lines.join('\n')}\n`);
  }
  const { printed, report: edited } = await asRecordedOf(dir);
  const cell = edited.cells.find((c) => c.metric === 'f1')!;
  assert.equal(cell.items.reproduced, 39);
  assert.equal(cell.items.differing.length, 1);
  assert.equal(cell.items.differing[0]!.why, 'recomputed (gold, pred) pair differs from the recorded one');
  // Formed from the recomputed pairs, the aggregate is still the number lm-eval printed.
  assert.equal(cell.value, printed.boolq_f1_mcc!['f1,none']);
});

test('lmaudit rescore --extractors as-recorded prints the f1 and mcc cells as reproduced', () => {
  const r = runCli(['rescore', DIR, '--extractors', 'as-recorded', '--tasks', 'boolq_f1_mcc']);
  assert.equal(r.status, 0, r.stderr);
  const row = r.stdout.split('\n').find((l) => /boolq_f1_mcc\s+none\s+f1\s/.test(l));
  assert.ok(row, r.stdout);
  assert.match(row!, /\s40\s+0\.171428571429\s+0\.0848824754731\s+0\.171428571429 ± 0\.0848824754731\s+yes\s+40 of 40\s/);
});
