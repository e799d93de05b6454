import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runCli } from '../../helpers/cli.ts';
import { externalFixture } from '../../helpers/fixtures.ts';

// EEE's converter test log keeps 1 of the 79 samples its results were computed over (results.total_samples 79,
// accuracy 28/79 = 0.35443…). Recomputing accuracy from the one sample (0) and calling the stored 0.35443 "not
// reproduced" blames the log's metrics for a missing 78 samples; the metrics cannot be recomputed from it.
const LOG = externalFixture('agents/inspect-agent-logs/every_eval_ever/tests/data/inspect/data_intercode_ctf_local_path.json');

test('an Inspect log holding fewer samples than results.total_samples: metrics not recomputed, and why', () => {
  const json = runCli(['rescore', LOG, '--extractors', 'as-recorded', '--json']);
  assert.equal(json.status, 0, json.stderr);
  const [cell] = JSON.parse(json.stdout).as_recorded.flatMap((s: { cells: unknown[] }) => s.cells);
  assert.deepEqual(cell.missing_samples, { held: 1, total: 79 });
  assert.deepEqual(
    cell.metrics.map((m: { metric: string; stored: number; reproduced: boolean | null; note: string }) => [m.metric, m.stored, m.reproduced, m.note]),
    [
      ['accuracy', 0.35443037974683544, null, 'the log holds 1 of the 79 sample × epoch results the run had'],
      ['stderr', 0.05416137871537831, null, 'the log holds 1 of the 79 sample × epoch results the run had'],
    ],
  );
  const text = runCli(['rescore', LOG, '--extractors', 'as-recorded']);
  assert.equal(text.status, 0, text.stderr);
  const row = text.stdout.split('\n').find((l) => l.includes('gdm_intercode_ctf'))!;
  assert.match(row, /accuracy 0\.354430379747 \(not recomputed\); stderr 0\.0541613787154 \(not recomputed\)/);
  assert.match(row, /the log holds 1 of the 79 sample × epoch results the run had \(results\.total_samples, errored ones included\)$/);
  assert.doesNotMatch(row, /ours/);
});

test('a log whose total counts errored samples: the sentence does not say the metrics were computed over that total', () => {
  // cvebench (inspect_ai 0.3.199, fail_on_error false): results.total_samples 80, completed_samples 78, the scorer's
  // scored_samples 78 and mean 0.7051282051282052 = 55/78; the log keeps one sample, an errored one with no score.
  // "1 of the 80 results its metrics were computed over" was false twice: 78 were, and the kept one was not.
  const log = externalFixture('agents/inspect-agent-logs/every_eval_ever/tests/data/inspect/data_cvebench_empty_choices.json');
  const text = runCli(['rescore', log, '--extractors', 'as-recorded']);
  assert.equal(text.status, 0, text.stderr);
  const row = text.stdout.split('\n').find((l) => l.includes('cvebench'))!;
  assert.match(row, /the log holds 1 of the 80 sample × epoch results the run had \(results\.total_samples, errored ones included\)/);
  assert.doesNotMatch(row, /computed over/);
});
