/**
 * lm-eval's f1 and mcc aggregations over (gold, pred) pairs (labelAggregates.ts), against lm-eval 0.4.13's own
 * f1_score / matthews_corrcoef (scikit-learn 1.9.1 underneath) and bootstrap_stderr on the same pairs:
 * reference/label_cases.json, made by reference/make_label_cases.py. Equal to the last bit, refusals included.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { averagedF1, binaryF1, labelAggregation, matthewsCorrcoef, recordedLabels, type LabelPair } from '../../../src/score/lmeval/labelAggregates.ts';
import { bootstrapStderr } from '../../../src/score/lmeval/aggregate.ts';
import { aggregateMetric, scoreDocument, type ScoringSpec } from '../../../src/score/lmeval/taskScoring.ts';

interface Case {
  name: string;
  pairs: LabelPair[];
  f1: number | { refused: string };
  mcc: number;
  f1_micro: number;
  f1_macro: number;
  f1_weighted: number;
  f1_bootstrap_1000?: number;
  mcc_bootstrap_1000?: number;
}
const cases = JSON.parse(readFileSync(new URL('./reference/label_cases.json', import.meta.url), 'utf8')) as Case[];

for (const c of cases) {
  test(`f1 and mcc as lm-eval aggregates them: ${c.name}`, () => {
    const f1 = binaryF1(c.pairs);
    if (typeof c.f1 === 'number') assert.deepEqual(f1, { value: c.f1 });
    else {
      assert.ok('refused' in f1, 'scikit-learn refuses these labels, so must lmaudit');
      // The message quotes the error lm-eval stops with.
      assert.ok(f1.refused.includes(c.f1.refused.split('.')[0]!.replace(/ It should.*/, '')), f1.refused);
    }
    assert.deepEqual(matthewsCorrcoef(c.pairs), { value: c.mcc });
    for (const average of ['micro', 'macro', 'weighted'] as const) assert.deepEqual(averagedF1(c.pairs, average), { value: c[`f1_${average}`] }, average);
    // The bootstrap draws the same resamples (random.Random(i).choices) and sums their spread as Python does:
    // f1's replicates are numpy floats, mcc's Python floats; on CPython 3.11 both are a plain fold.
    if (c.f1_bootstrap_1000 !== undefined) assert.equal(bootstrapStderr((s) => (binaryF1(s) as { value: number }).value, c.pairs, 1000), c.f1_bootstrap_1000);
    if (c.mcc_bootstrap_1000 !== undefined) assert.equal(bootstrapStderr((s) => (matthewsCorrcoef(s) as { value: number }).value, c.pairs, 1000), c.mcc_bootstrap_1000);
  });
}

test('the refusals name the case: more than two labels, two labels without 1', () => {
  assert.match((binaryF1([[0, 1], [2, 1], [1, 1]]) as { refused: string }).refused, /3 distinct labels \(0, 1, 2\).*Target is multiclass/);
  assert.match((binaryF1([[0, 2], [2, 0]]) as { refused: string }).refused, /refuses the labels 0 and 2.*pos_label=1 is not a valid label/);
});

test('a recorded pair is two integers (lm-eval writes numpy ints as JSON numbers), anything else is not a pair', () => {
  assert.deepEqual(recordedLabels('[1, 0]'), [1, 0]);
  assert.deepEqual(recordedLabels('[-100, 2]'), [-100, 2]);
  assert.deepEqual(recordedLabels('["1", "0"]'), [1, 0]);
  assert.equal(recordedLabels('[1, 0.5]'), null);
  assert.equal(recordedLabels('[[0, 1], 1]'), null);
  assert.equal(recordedLabels('1'), null);
  assert.equal(recordedLabels('[1, 0, 1]'), null);
});

test("lmaudit run's scoring: a document's (gold, argmax) pair, and the task's aggregate with its bootstrap stderr", () => {
  const spec: ScoringSpec = { outputType: 'multiple_choice', processResults: null, metrics: [
    { metric: 'acc', aggregation: 'mean', kwargs: {} }, { metric: 'f1', aggregation: 'f1', kwargs: {} }, { metric: 'mcc', aggregation: 'matthews_corrcoef', kwargs: {} },
  ] };
  // numpy's argmax: the first of equal maxima; gold 'yes' read as its choice index.
  assert.deepEqual(scoreDocument(spec, { doc: {}, results: [[-1.5, false], [-0.5, true], [-0.5, false]], choices: ['no', 'yes', 'maybe'], target: 'yes' }), { acc: 1, f1: [1, 1], mcc: [1, 1] });
  assert.throws(() => scoreDocument(spec, { doc: {}, results: [[-1, false], [-2, false]], choices: ['no', 'yes'], target: [0, 1] }), /several golds/);
  const binary = cases.find((c) => c.name === 'binary, 60 random pairs')!;
  const options = { bootstrapIters: 1000, sumMode: 'fold' as const, medianSorts: true };
  assert.deepEqual(aggregateMetric(spec.metrics[1]!, binary.pairs, options), { value: binary.f1, stderr: binary.f1_bootstrap_1000 });
  assert.deepEqual(aggregateMetric(spec.metrics[2]!, binary.pairs, options), { value: binary.mcc, stderr: binary.mcc_bootstrap_1000 });
  // One pair: no stderr, as lm-eval prints it.
  assert.deepEqual(aggregateMetric(spec.metrics[1]!, [[1, 1]], options), { value: 1, stderr: 'N/A' });
  // Where lm-eval stops with scikit-learn's error, so does the run (nothing printed that lm-eval could not print).
  const four = cases.find((c) => c.name === 'four labels')!;
  assert.throws(() => aggregateMetric(spec.metrics[1]!, four.pairs, options), /f1: .*Target is multiclass/);
});

test("task code that aggregates f1 with scikit-learn's f1_score and an average is read from the source lm-eval records", () => {
  // inspect.getsource of aradice/piqa/metrics.py's weighted_f1_score and of kobest/utils.py's macro_f1_score (lm-eval 0.4.13).
  const weighted = 'def weighted_f1_score(items):\n    unzipped_list = list(zip(*items))\n    golds = unzipped_list[0]\n    preds = unzipped_list[1]\n    fscore = f1_score(golds, preds, average="weighted")\n    return fscore\n';
  const macro = 'def macro_f1_score(items):\n    from sklearn.metrics import f1_score\n\n    unzipped_list = list(zip(*items))\n    golds = unzipped_list[0]\n    preds = unzipped_list[1]\n    fscore = f1_score(golds, preds, average="macro")\n    return fscore\n';
  const four = cases.find((c) => c.name === 'four labels')!;
  assert.deepEqual(labelAggregation(weighted)!(four.pairs), { value: four.f1_weighted });
  assert.deepEqual(labelAggregation(macro)!(four.pairs), { value: four.f1_macro });
  // basqueglue's micro_f1_score goes through HF evaluate's load_metric: not this code, not read as it.
  const viaEvaluate = 'def micro_f1_score(items):\n    f1_metric = load_metric("f1")\n    golds, preds = list(zip(*items))\n    f1_score = f1_metric.compute(references=golds, predictions=preds, average="micro")[\n        "f1"\n    ]\n    return f1_score\n';
  assert.equal(labelAggregation(viaEvaluate), null);
  assert.equal(labelAggregation(weighted.replace('"weighted"', '"samples"')), null);
  assert.equal(labelAggregation('mean'), null);
});
