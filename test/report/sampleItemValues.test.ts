/**
 * A report's sample items show a recorded value that is not a number as recorded. truthfulqa_gen as modified by
 * lm-eval PR #3032 (fixtures/lmeval/pr3032-truthfulqa-gen) records an extra field 'hallucination' per sample
 * ("truthful" on docs 0–2, python3 json of the samples file); the report printed it as 'field:hallucination,none=—',
 * a missing value.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadSource } from '../../src/audit/source.ts';
import { DEFAULT_PAIRED_OPTIONS } from '../../src/audit/pairedStats.ts';
import { buildReport } from '../../src/report/model.ts';
import { renderReport } from '../../src/report/render.ts';
import { fixturePath } from '../helpers/fixtures.ts';

test('report: an extra field recorded as a string is shown as recorded, not as a missing value', async () => {
  const source = await loadSource([fixturePath('lmeval/pr3032-truthfulqa-gen')], { skipBad: false, fields: {} });
  const data = await buildReport(source.store, null, null, { ...DEFAULT_PAIRED_OPTIONS, iterations: 100 });
  const items = data.samples[0]!.items;
  assert.deepEqual(items.map((i) => i.recorded_json['field:hallucination,none']), ['"truthful"', '"truthful"', '"truthful"']);
  assert.equal(items[0]!.scores['bleu_max,none'], 41.11336169005198);
  const md = renderReport(data, 'md');
  assert.match(md, /rougeL\\_diff,none=26\.67, field:hallucination,none="truthful" \|/);
  assert.doesNotMatch(md, /field:hallucination,none=—/);
  assert.match(renderReport(data, 'html'), /field:hallucination,none=&quot;truthful&quot;/);
});

// asdiv (fixtures/lmeval/pr2236-asdiv/asdiv) records each loglikelihood answer as lm-eval's resps pair, Python's
// str of the float and of the bool: docs 0–2 hold ['-9.536740890325746e-07', 'True'], ['-0.008627207018435001', 'True'],
// ['-7.390952760033542e-06', 'True']. The report printed JavaScript's rendering ('-9.536740890325746e-7',
// '-0.000007390952760033542') and dropped is_greedy.
test('report: a loglikelihood answer is shown as lm-eval recorded it, Python float repr and is_greedy', async () => {
  const source = await loadSource([fixturePath('lmeval/pr2236-asdiv/asdiv')], { skipBad: false, fields: {} });
  const data = await buildReport(source.store, null, null, { ...DEFAULT_PAIRED_OPTIONS, iterations: 100 });
  assert.deepEqual(data.samples[0]!.items.map((i) => i.output), ['(-9.536740890325746e-07, True)', '(-0.008627207018435001, True)', '(-7.390952760033542e-06, True)']);
});
