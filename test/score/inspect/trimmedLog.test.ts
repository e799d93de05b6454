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
      ['accuracy', 0.35443037974683544, null, 'the log holds 1 of the 79 sample × epoch results it was computed over'],
      ['stderr', 0.05416137871537831, null, 'the log holds 1 of the 79 sample × epoch results it was computed over'],
    ],
  );
  const text = runCli(['rescore', LOG, '--extractors', 'as-recorded']);
  assert.equal(text.status, 0, text.stderr);
  const row = text.stdout.split('\n').find((l) => l.includes('gdm_intercode_ctf'))!;
  assert.match(row, /accuracy 0\.354430379747 \(not recomputed\); stderr 0\.0541613787154 \(not recomputed\)/);
  assert.match(row, /the log holds 1 of the 79 sample × epoch results \(results\.total_samples\) its metrics were computed over$/);
  assert.doesNotMatch(row, /ours/);
});
