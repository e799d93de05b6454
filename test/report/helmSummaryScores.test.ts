/**
 * A HELM run's reported scores in the report's summary. HELM's stats.json (MMLU philosophy, gpt2, from EEE's tests)
 * lists the request bookkeeping first — num_references 4, num_train_trials 1, num_prompt_tokens 350.44…, runtimes,
 * finish reasons — and exact_match (test 0.1111111111111111, valid 0.0: python3 json of stats.json) after them; the
 * summary's cell listed the bookkeeping as scores and was clipped before reaching exact_match.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadSource } from '../../src/audit/source.ts';
import { DEFAULT_PAIRED_OPTIONS } from '../../src/audit/pairedStats.ts';
import { buildReport } from '../../src/report/model.ts';
import { renderReport } from '../../src/report/render.ts';
import { decodedFixture } from '../helpers/fixtures.ts';

test('report summary: a HELM run reports its scores, not its token counts, runtimes and finish reasons', async () => {
  const mmlu = decodedFixture('helm', 'evaleval-every_eval_ever/tests/data/helm/mmlu:subject=philosophy,method=multiple_choice_joint,model=openai_gpt2');
  const source = await loadSource([mmlu], { skipBad: false, fields: {} });
  const data = await buildReport(source.store, null, null, { ...DEFAULT_PAIRED_OPTIONS, iterations: 100 });
  const reported = data.summary[0]!.reported;
  assert.deepEqual(reported.slice(0, 2).map((r) => [r.score, r.value]), [['exact_match,split=test', 0.1111111111111111], ['exact_match@5,split=test', 0.1111111111111111]]);
  const names = new Set(reported.map((r) => r.score.split(',')[0]));
  for (const bookkeeping of ['num_references', 'num_prompt_tokens', 'inference_runtime', 'finish_reason_unknown', 'num_instances', 'training_co2_cost']) assert.ok(!names.has(bookkeeping), bookkeeping);
  assert.ok(reported.some((r) => r.score === 'exact_match,split=valid' && r.value === 0));
  // Its matrix: 1 of 10 right, stderr 0.1, so 0.1 − 1.96 × 0.1 < 0: the interval shown is [0, 0.296], which the
  // intervals note has to account for (it said only 'the closed-form 95% interval').
  const md = renderReport(data, 'md');
  assert.match(md, /\| exact \| strip \| micro \| 0\.1 \| 0\.1 \| \\\[0, 0\.296\\\] \| 10 \|/);
  assert.match(md, /matrix cells use the closed-form 95% interval of each cell \(score ± 1\.96 × stderr, clipped to \\\[0, 1\\\] as the scores are fractions\)/);
});
