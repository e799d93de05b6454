import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../../helpers/cli.ts';
import { externalFixture } from '../../helpers/fixtures.ts';

// Inspect's popularity log (match scorer, samples C, C, I), with the log's metric list extended by the built-in
// std (np.std([1, 1, 0], ddof=1) = 0.5773502691896258, computed with NumPy) and two metrics lmaudit does not
// recompute: var (its ddof changed in Feb 2025) and a custom one. Any metric outside accuracy/mean/stderr/
// bootstrap_stderr made `rescore --extractors as-recorded` exit 2 ("Unknown Inspect metric 'std'"), as it did on
// EEE's cyse2 converter log, whose scorer lists std.
function logWithMetrics(): string {
  const log = JSON.parse(readFileSync(externalFixture('inspect/2025-05-12T20-28-13-04-00_popularity.json'), 'utf8'));
  const extra = { std: 0.5773502691896258, var: 0.33333333333333337, 'my_pkg/spread': 0.25 };
  for (const [name, value] of Object.entries(extra)) log.results.scores[0].metrics[name] = { name, value, params: {} };
  log.eval.scorers[0].metrics.push(...Object.keys(extra).map((name) => ({ name: name.includes('/') ? name : `inspect_ai/${name}`, options: {} })));
  const file = join(mkdtempSync(join(tmpdir(), 'lmaudit-metrics-')), 'popularity.json');
  writeFileSync(file, JSON.stringify(log));
  return file;
}

test("std is recomputed as Inspect's (ddof 1); a metric lmaudit does not recompute is listed, not fatal", () => {
  const file = logWithMetrics();
  const json = runCli(['rescore', file, '--extractors', 'as-recorded', '--json']);
  assert.equal(json.status, 0, json.stderr);
  const [cell] = JSON.parse(json.stdout).as_recorded[0].cells;
  assert.deepEqual(
    cell.metrics.map((m: { metric: string; stored: number; reproduced: boolean | null }) => [m.metric, m.stored, m.reproduced]),
    [['accuracy', 0.6666666666666666, true], ['stderr', 0.33333333333333337, true], ['std', 0.5773502691896258, true], ['var', 0.33333333333333337, null], ['my_pkg/spread', 0.25, null]],
  );
  const text = runCli(['rescore', file, '--extractors', 'as-recorded']);
  const row = text.stdout.split('\n').find((l) => l.startsWith('  popularity'))!;
  assert.ok(
    row.endsWith("3/3            accuracy 0.666666666667; stderr 0.333333333333; std 0.57735026919; var 0.333333333333 (not recomputed: lmaudit does not recompute Inspect's metric 'var'); my_pkg/spread 0.25 (not recomputed: lmaudit does not recompute Inspect's metric 'my_pkg/spread')"),
    row,
  );
});

// The cyse2 log: one of its 2340 samples, scored by a custom scorer. It said "no samples" and "no samples to
// recompute it from" (there is one, with its stored score), and hid that the log holds 1 of 2340 samples.
test('a custom scorer\'s trimmed log: its one stored score is counted, and the missing samples are named', () => {
  const log = externalFixture('agents/inspect-agent-logs/every_eval_ever/tests/data/inspect/data_cyse2_vuln_exploit_challenges.json');
  const r = runCli(['rescore', log, '--extractors', 'as-recorded']);
  assert.equal(r.status, 0, r.stderr);
  const row = r.stdout.split('\n').find((l) => l.includes('cyse2_vulnerability_exploit'))!;
  assert.match(row, /not rescored \(1 stored\) +accuracy 0\.38108974359 \(not recomputed\); mean 0\.38108974359 \(not recomputed\); std 0\.311562873057 \(not recomputed\) +the log holds 1 of the 2340 sample × epoch results the run had \(results\.total_samples, errored ones included\); 'vul_exploit_scorer' is not a built-in/);
});
