import { test } from 'node:test';
import assert from 'node:assert/strict';
import { inferVersion } from '../../src/import/lmeval/resultsProvenance.ts';

// lm-eval's EvaluationTracker (first released in v0.4.3) writes start_time/end_time up to v0.4.9; samples gain
// 'filter'/'metrics' keys in v0.4.7 (`git grep start_time v0.4.3 -- lm_eval/loggers/evaluation_tracker.py`; the
// reference's §5.5 table). PR #2809's "results-0.4.3" Qwen2.5-7B file has start_time and no samples: it was
// inferred to be 0.4.7–0.4.9, a range that excludes the version it was written by.
const results = { results: {}, configs: {}, task_hashes: {}, model_source: 'hf', start_time: 1, end_time: 2 };

test('a results file with start_time and no samples is 0.4.3–0.4.9; with filter-keyed samples 0.4.7–0.4.9', () => {
  assert.equal(inferVersion(results, null).value, '0.4.3–0.4.9');
  assert.equal(inferVersion(results, { arguments: 'gen_args', hashes: true, filterKey: true }).value, '0.4.7–0.4.9');
  assert.equal(inferVersion(results, { arguments: 'gen_args', hashes: true, filterKey: false }).value, '0.4.3–0.4.6');
  const { start_time: _s, end_time: _e, ...withoutTimes } = results;
  assert.equal(inferVersion(withoutTimes, null).value, '≥0.4.10');
});

test('a v0.3 results file (no configs) cites only config.bootstrap_iters for its aggregation, not a metric_list it lacks', async () => {
  // Pythia-160m 5-shot (v0.3: results, versions, config): the source named configs.<task>.metric_list[].aggregation.
  const { importSources } = await import('../../src/import/index.ts');
  const { externalFixture } = await import('../helpers/fixtures.ts');
  const { runs } = await importSources([externalFixture('pythia/five-shot/160m-5shot_step143000.json')], { skipBad: false, fields: {} });
  const t = runs[0]!.provenance.tasks['hendrycksTest-high_school_geography']!;
  assert.deepEqual(t.repeats.aggregation!.used, { status: 'recorded', value: { per_metric: null, bootstrap_iters: 100000 }, from: 'config.bootstrap_iters' });
});
