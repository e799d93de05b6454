/**
 * Inspect's scorers report `stderr` as a metric beside `accuracy` (results.scores[].metrics): it is the accuracy's
 * standard error, not a score. The report's summary and `ls` printed "accuracy,match 0.6667; stderr,match 0.3333",
 * and `diff` set "stderr,match" side by side as a score and gave accuracy no stderr, so no unpaired z.
 * Values: fixtures/external/inspect/2025-05-12T20-28-13-04-00_popularity.json (accuracy 2/3, stderr 1/3) and
 * fixtures/inspect/logs/…15-18-04… (accuracy 0.8, stderr 0.1333); z and p from scipy:
 *   a, sa, b, sb = 2/3, 1/3, 0.8, 0.13333333333333333; z = (b - a) / sqrt(sa² + sb²); p = 2 * norm.sf(|z|)
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadSource } from '../../src/audit/source.ts';
import { diffStores } from '../../src/audit/diff.ts';
import { DEFAULT_PAIRED_OPTIONS } from '../../src/audit/pairedStats.ts';
import { buildReport } from '../../src/report/model.ts';
import { isStderrKey, stderrKeyOf } from '../../src/audit/reportedStderr.ts';
import { fixturePath } from '../helpers/fixtures.ts';
import { exportEee } from '../../src/export/eee/exportEee.ts';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const OPTIONS = { skipBad: false, fields: {} };
const CANCELLED = fixturePath('external/inspect/2025-05-12T20-28-13-04-00_popularity.json');
const SCORED = fixturePath('inspect/logs/2025-02-11T15-18-04-05-00_popularity_mj7khqpMM4GBCfVQozKgzB.eval');

test("Inspect's stderr metric is the accuracy's standard error", async () => {
  const reported = { 'accuracy,match': 0.6666666666666666, 'stderr,match': 0.33333333333333337 };
  assert.equal(isStderrKey('stderr,match', reported), true);
  assert.equal(stderrKeyOf('accuracy,match', reported), 'stderr,match');
  // lm-eval's spelling is unchanged; a metric that merely contains the word is not a stderr.
  assert.equal(stderrKeyOf('acc,none', { 'acc,none': 0.5, 'acc_stderr,none': 0.1 }), 'acc_stderr,none');
  assert.equal(isStderrKey('stderr,match', { 'stderr,match': 0.1 }), false, 'no mean metric of that scorer beside it');

  const { store } = await loadSource([CANCELLED], OPTIONS);
  const data = await buildReport(store, null, null, { ...DEFAULT_PAIRED_OPTIONS, iterations: 100 });
  assert.deepEqual(data.summary[0]!.reported, [{ score: 'accuracy,match', value: 0.6666666666666666, stderr: 0.33333333333333337 }]);
});

test('diff of two Inspect logs: accuracy with each side\'s stderr and the unpaired z', async () => {
  const [a, b] = [await loadSource([CANCELLED], OPTIONS), await loadSource([SCORED], OPTIONS)];
  const d = await diffStores(a.store, b.store, { iterations: 100 });
  const reported = d.comparisons[0]!.tasks[0]!.reported;
  assert.deepEqual(reported.map((r) => r.score), ['accuracy,match']);
  assert.deepEqual([reported[0]!.stderrA, reported[0]!.stderrB], [0.33333333333333337, 0.13333333333333333]);
  // Last-digit tolerance: z is the same expression in both; p differs from scipy's in the 16th digit.
  assert.ok(Math.abs(reported[0]!.unpaired!.z - 0.37139067635410394) < 1e-15);
  assert.ok(Math.abs(reported[0]!.unpaired!.p - 0.7103465689955666) < 1e-14);
});

test('two Inspect runs of one scorer use the same metrics, whatever their values', async () => {
  // Both logs score with match → accuracy, stderr; their values differ (2/3 vs 0.8). scoring.metrics held the values,
  // so diff said "the metrics differ" and the falsifier's scoring clause was violated.
  const [a, b] = [await loadSource([CANCELLED], OPTIONS), await loadSource([SCORED], OPTIONS)];
  const t = (await diffStores(a.store, b.store, { iterations: 100 })).comparisons[0]!.tasks[0]!;
  const metrics = t.settings.items.find((i) => i.item === 'scoring')!.fields.find((f) => f.field === 'metrics')!;
  assert.equal(metrics.verdict, 'same');
  assert.equal(t.falsifier.clauses.find((c) => c.name === 'scoring')!.status, 'holds');
});

// fixtures/inspect/synthetic-modern.json (make_synthetic_log.py) reports the grader's style score with Inspect's
// mean() and bootstrap_stderr(): mean 0.5666666666666667, bootstrap_stderr 0.11886850694967294 under the mean
// reducer (python3 json of the log). The report's summary gave the mean no stderr and EEE's export wrote none.
test("Inspect's bootstrap_stderr is the standard error of a mean metric, in the report and the EEE export", async () => {
  assert.equal(stderrKeyOf('mean,style,mean', { 'mean,style,mean': 0.5, 'bootstrap_stderr,style,mean': 0.1 }), 'bootstrap_stderr,style,mean');
  const { store } = await loadSource([fixturePath('inspect/synthetic-modern.json')], OPTIONS);
  const data = await buildReport(store, null, null, { ...DEFAULT_PAIRED_OPTIONS, iterations: 100 });
  assert.deepEqual(data.summary[0]!.reported.find((r) => r.score === 'mean,style,mean'), { score: 'mean,style,mean', value: 0.5666666666666667, stderr: 0.11886850694967294 });
  const out = join(mkdtempSync(join(tmpdir(), 'eee-bootstrap-')), 'eee');
  const [file] = await exportEee(store, { out, organization: 'unknown', relationship: null, replace: false, retrieved: '0' });
  const aggregate = JSON.parse(readFileSync(file!.aggregate, 'utf8')) as { evaluation_results: { evaluation_result_id: string; score_details: unknown }[] };
  assert.deepEqual(aggregate.evaluation_results.find((x) => x.evaluation_result_id === 'synthetic_mc/mean,style,mean')!.score_details, {
    score: 0.5666666666666667,
    uncertainty: { standard_error: { value: 0.11886850694967294, method: "bootstrap: Inspect's bootstrap_stderr metric, as the log reports it" }, num_samples: 5 },
  });
});
