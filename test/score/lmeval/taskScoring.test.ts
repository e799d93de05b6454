/**
 * The runner's entry points: every shipped task's metrics from its YAML (scoringSpec), one
 * document's values from its responses (scoreDocument), and lm-eval's aggregation + stderr
 * (aggregateMetric). Expected values are lm-eval's recorded ones or hand calculations.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { TaskIndex } from '../../../src/tasks/index.ts';
import { aggregateMetric, lmevalSumMode, scoreDocument, scoringSpec, type SampleValue } from '../../../src/score/lmeval/taskScoring.ts';
import { docToChoice, docToText } from '../../../src/data/ports/winogrande.ts';
import { everyTask } from '../../helpers/everyTask.ts';

const index = TaskIndex.withShipped();
const specOf = (name: string) => scoringSpec(index.resolve([name]).tasks[0]!, index.roots);
const o = { bootstrapIters: 100000, sumMode: 'fold' as const, medianSorts: true };

test('every shipped task has a scoring spec: metrics, aggregations and the ported process_results', () => {
  const shipped = everyTask(index);
  assert.ok(shipped.length > 60);
  for (const t of shipped) scoringSpec(t, index.roots);
  const gen = specOf('truthfulqa_gen');
  assert.equal(gen.processResults, 'truthfulqa.process_results_gen');
  assert.deepEqual(gen.metrics.map((m) => `${m.metric}:${m.aggregation}`), ['bleu', 'rouge1', 'rouge2', 'rougeL'].flatMap((n) => ['max', 'acc', 'diff'].map((k) => `${n}_${k}:mean`)));
  assert.equal(specOf('truthfulqa_mc2').processResults, 'truthfulqa.process_results_mc2');
  assert.deepEqual(specOf('lambada_openai').metrics.map((m) => [m.metric, m.aggregation]), [['perplexity', 'perplexity'], ['acc', 'mean']]);
  const gsm = specOf('gsm8k').metrics[0]!;
  assert.equal(gsm.kwargs.ignore_case, true);
});

test('truthfulqa_gen: the recorded 12 values of document 0 from its response (lm-eval PR #3032)', () => {
  const line = readFileSync(new URL('../../../fixtures/lmeval/pr3032-truthfulqa-gen/samples_truthfulqa_gen_2025-05-31T14-30-51.983293.jsonl', import.meta.url), 'utf8').split('\n')[0]!;
  const s = JSON.parse(line) as Record<string, unknown> & { doc: Record<string, unknown>; filtered_resps: string[] };
  const values = scoreDocument(specOf('truthfulqa_gen'), { doc: s.doc, results: [s.filtered_resps[0]!] });
  for (const [metric, value] of Object.entries(values)) assert.equal(value, s[metric], metric);
  assert.equal(Object.keys(values).length, 12);
});

test("winogrande (partial evaluation): the options are contexts, the gold is doc_to_text; acc = argmax is gold", () => {
  const doc = { sentence: 'Sarah was a much better surgeon than Maria so _ always got the easier cases.', option1: 'Sarah', option2: 'Maria', answer: '2' };
  const spec = specOf('winogrande');
  // lm-eval's bigrefactor samples for this document: lls [-27.3898, -26.1997] → acc 1.0.
  const input = { doc, choices: docToChoice(doc), target: docToText(doc) };
  assert.deepEqual(scoreDocument(spec, { ...input, results: [[-27.389801025390625, false], [-26.199748992919922, false]] }), { acc: 1 });
  assert.deepEqual(scoreDocument(spec, { ...input, results: [[-15.5546875, false], [-15.78125, false]] }), { acc: 0 });
});

test('multiple_choice and loglikelihood defaults; aggregation mean with the Bessel stderr; perplexity bootstrapped', () => {
  const arc = specOf('arc_easy');
  const choices = ['a', 'bbbb', 'cc'];
  // acc: argmax(lls) = 0; acc_norm: argmax(ll/len) = [-2, -0.75, -1.25] → 1, the gold.
  assert.deepEqual(scoreDocument(arc, { doc: {}, results: [[-2, false], [-3, false], [-2.5, false]], choices, target: 1 }), { acc: 0, acc_norm: 1 });
  // A text gold is looked up in the choices; a missing one is -100 and scores 0.
  assert.deepEqual(scoreDocument(arc, { doc: {}, results: [[-2, false], [-3, false], [-2.5, false]], choices, target: 'zz' }), { acc: 0, acc_norm: 0 });
  const lambada = specOf('lambada_openai');
  assert.deepEqual(scoreDocument(lambada, { doc: {}, results: [[-1.25, true]] }), { perplexity: -1.25, acc: 1 });
  const acc = aggregateMetric(lambada.metrics[1]!, [1, 0, 1, 1], o);
  // mean 0.75; sample stddev √(0.25/3·… ) = √((3·0.0625+0.5625)/3) = 0.5; /√4 = 0.25.
  assert.deepEqual(acc, { value: 0.75, stderr: 0.25 });
  const ppl = aggregateMetric(lambada.metrics[0]!, [-1, -2, -3] satisfies SampleValue[], { ...o, bootstrapIters: 1000 });
  // math.exp(2.0) in CPython.
  assert.equal(ppl.value, 7.38905609893065);
  assert.equal(typeof ppl.stderr, 'number');
  assert.deepEqual(aggregateMetric(lambada.metrics[1]!, [1], o), { value: 1, stderr: 'N/A' });
  assert.deepEqual(aggregateMetric(lambada.metrics[1]!, [1, 0], { ...o, bootstrapIters: 0 }), { value: 0.5, stderr: 'N/A' });
});

test('gsm8k exact_match with its kwargs; unported metrics and aggregations are refused by name', () => {
  const gsm = specOf('gsm8k');
  const target = 'Natalia sold 48/2 = <<48/2=24>>24 clips in May.\n#### 1,234';
  assert.deepEqual(scoreDocument(gsm, { doc: {}, results: ['The answer is 1234.'], target }), { exact_match: 0 });
  assert.deepEqual(scoreDocument(gsm, { doc: {}, results: ['Blah.\n#### $1,234.'], target }), { exact_match: 1 });
  assert.throws(() => scoreDocument({ ...gsm, metrics: [{ metric: 'bleu', aggregation: 'bleu', kwargs: {} }] }, { doc: {}, results: ['x'], target: 'y' }), /generate_until metric 'bleu' is not one lmaudit computes/);
  assert.throws(() => aggregateMetric({ metric: 'brier_score', aggregation: 'brier_score', kwargs: {} }, [1, 0], o), /aggregation 'brier_score' \(metric brier_score\)/);
  // f1 aggregates (gold, pred) pairs (labelAggregates.test.ts): plain numbers are refused, not averaged.
  assert.throws(() => aggregateMetric({ metric: 'f1', aggregation: 'f1', kwargs: {} }, [1, 0], o), /f1: f1 aggregates \(gold, pred\) pairs, got a number/);
});

test('a loglikelihood_rolling task without metric_list gets lm-eval\'s three defaults and their aggregations', async () => {
  const { mkdtempSync, writeFileSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const { join } = await import('node:path');
  const dir = mkdtempSync(join(tmpdir(), 'lmaudit-rolling-'));
  writeFileSync(join(dir, 'rolling.yaml'), 'task: my_rolling\ndataset_path: x\noutput_type: loglikelihood_rolling\ntest_split: test\ndoc_to_text: ""\ndoc_to_target: "{{page}}"\n');
  const local = new TaskIndex([dir]);
  const spec = scoringSpec(local.resolve(['my_rolling']).tasks[0]!, local.roots);
  assert.deepEqual(spec.metrics.map((m) => [m.metric, m.aggregation]), [['word_perplexity', 'weighted_perplexity'], ['byte_perplexity', 'weighted_perplexity'], ['bits_per_byte', 'bits_per_byte']]);
  // " a b " is four words for re.split(r"\s+") (empty ends count); "é" is two bytes.
  assert.deepEqual(scoreDocument(spec, { doc: {}, results: [-7.5], target: ' a b é' }), { word_perplexity: [-7.5, 4], byte_perplexity: [-7.5, 7], bits_per_byte: [-7.5, 7] });
});

test('lmevalSumMode: Neumaier only for Python floats on CPython ≥3.12', () => {
  const py312 = { major: 3, minor: 12 };
  assert.equal(lmevalSumMode(specOf('lambada_openai'), 'perplexity', py312), 'neumaier');
  assert.equal(lmevalSumMode(specOf('lambada_openai'), 'perplexity', { major: 3, minor: 11 }), 'fold');
  assert.equal(lmevalSumMode(specOf('gsm8k'), 'exact_match', py312), 'fold');
  assert.equal(lmevalSumMode(specOf('truthfulqa_gen'), 'bleu_max', py312), 'fold');
});
