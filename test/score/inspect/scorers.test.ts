import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { answerScore, exactScore, f1Score, includesScore, matchScore, patternScore, type AnswerKind, type InspectScore, type MatchOptions } from '../../../src/score/inspect/scorers.ts';
import { choiceScore, choiceScoreWithoutFlags } from '../../../src/score/inspect/choice.ts';
import { formatG, pyFloat, pyFloatRepr, pyRound } from '../../../src/py/float.ts';
import { exactMean, npMean, npStd, npSum, pyMedian } from '../../../src/score/inspect/numeric.ts';
import { clusteredStderr, stderr, bootstrapStderr, bootstrapTolerance } from '../../../src/score/inspect/metrics.ts';
import { valueToFloat } from '../../../src/formats/inspectScore.ts';
import { reducerByName } from '../../../src/score/inspect/reducers.ts';
import { INSPECT_EXTRACTORS } from '../../../src/score/inspect/extractors.ts';
import { UnknownNameError } from '../../../src/errors.ts';

// Expected values: fixtures/inspect/scripts/reference_scorers.py (Python 3.11 + numpy 2.4).
const reference = JSON.parse(readFileSync(new URL('../../../fixtures/inspect/reference_cases.json', import.meta.url), 'utf8')) as {
  cases: { scorer: string; params: Record<string, unknown>; completion: string; targets: string[]; expected: InspectScore }[];
  numbers: {
    vectors: { values: number[]; np_sum: number; np_mean: number; stderr: number; statistics_mean: number; median: number; format_g: string[]; repr: string[]; round2: number[] }[];
    clustered: { values: number[]; clusters: string[]; stderr: number };
    pass_at: { total: number; correct: number; k: number; value: number; pass_k: number }[];
    py_float: Record<string, number | string | null>;
  };
};

function run(c: (typeof reference.cases)[number]): InspectScore {
  const p = c.params;
  switch (c.scorer) {
    case 'match':
      return matchScore(c.completion, c.targets, p as MatchOptions);
    case 'includes':
      return includesScore(c.completion, c.targets, (p.ignore_case as boolean | undefined) ?? true);
    case 'pattern':
      return patternScore(c.completion, c.targets, p.pattern as string, (p.ignore_case as boolean | undefined) ?? true, (p.match_all as boolean | undefined) ?? false);
    case 'answer':
      return answerScore(c.completion, c.targets, p.pattern as AnswerKind);
    case 'exact':
      return exactScore(c.completion, c.targets);
    case 'f1':
      return f1Score(c.completion, c.targets);
    case 'choice':
      return choiceScore(c.completion, c.targets, p.n as number, (p.multiple_correct as boolean | undefined) ?? false);
    default:
      throw new Error(c.scorer);
  }
}

test('each scorer case gives the Score Python gives (value, answer, explanation)', () => {
  assert.equal(reference.cases.length, 49);
  for (const c of reference.cases) {
    const ours = run(c);
    const expected = { ...c.expected };
    const got: Record<string, unknown> = { value: ours.value, explanation: ours.explanation };
    if ('answer' in expected) got.answer = ours.answer ?? null;
    else assert.equal(ours.answer ?? null, null);
    assert.deepEqual(got, { explanation: undefined, ...expected }, `${c.scorer} ${JSON.stringify(c.params)} ${JSON.stringify(c.completion)}`);
  }
});

test('Python number formatting: format(x, ".5g"), repr(float), round(x, 2)', () => {
  for (const v of reference.numbers.vectors) {
    assert.deepEqual(v.values.slice(0, 5).map((x) => formatG(x, 5)), v.format_g);
    assert.deepEqual(v.values.slice(0, 5).map(pyFloatRepr), v.repr);
    assert.deepEqual(v.values.slice(0, 5).map((x) => pyRound(x, 2)), v.round2);
  }
  assert.deepEqual([0.125, 0.375, 2.675, 1.005].map((x) => pyRound(x, 2)), [0.12, 0.38, 2.67, 1]);
  for (const [text, expected] of Object.entries(reference.numbers.py_float)) {
    const ours = pyFloat(text);
    assert.deepEqual(ours === null || Number.isFinite(ours) ? ours : pyFloatRepr(ours), expected, `float(${JSON.stringify(text)})`);
  }
});

test("NumPy's pairwise sums, np.std(ddof=1)/sqrt(n) and statistics.mean match bit for bit", () => {
  for (const v of reference.numbers.vectors) {
    const n = v.values.length;
    assert.equal(npSum(v.values), v.np_sum, `np.sum n=${n}`);
    assert.equal(npMean(v.values), v.np_mean, `np.mean n=${n}`);
    assert.equal(npStd(v.values, 1) / Math.sqrt(n), v.stderr, `stderr n=${n}`);
    assert.equal(exactMean(v.values), v.statistics_mean, `statistics.mean n=${n}`);
    assert.equal(pyMedian(v.values), v.median, `median n=${n}`);
    const scores = v.values.map((x, i) => ({ sampleId: i, value: x, metadata: null }));
    assert.equal(stderr(scores), v.stderr);
  }
  const c = reference.numbers.clustered;
  const scores = c.values.map((x, i) => ({ sampleId: i, value: x, metadata: { q: c.clusters[i] } }));
  assert.equal(clusteredStderr('q')(scores), c.stderr);
});

test('reducers: pass_at_k, pass_k_k, at_least_k, mode, max, median; NaN is skipped', () => {
  for (const p of reference.numbers.pass_at) {
    const values = [...Array(p.correct).fill('C'), ...Array(p.total - p.correct).fill('I')];
    assert.equal(reducerByName(`pass_at_${p.k}`)(values), p.value, `pass_at ${JSON.stringify(p)}`);
    assert.equal(reducerByName(`pass_k_${p.k}`)(values), p.pass_k, `pass_k ${JSON.stringify(p)}`);
  }
  assert.equal(reducerByName('at_least_2')(['C', 'I', 'C']), 1);
  assert.equal(reducerByName('at_least_3')(['C', 'I', 'C']), 0);
  assert.equal(reducerByName('mode')(['I', 'C', 'C', 'I']), 'I', 'ties go to the first seen');
  assert.equal(reducerByName('mode')([1, true, 'C']), 1, '1 and True are one key');
  assert.equal(reducerByName('max')(['I', 'P', 'C', 'C']), 'C');
  assert.equal(reducerByName('median')([0, 1, 1, 0.5]), 0.75);
  assert.equal(reducerByName('mean')(['C', Number.NaN, 'I']), 0.5);
  assert.ok(Number.isNaN(reducerByName('mean')([Number.NaN, Number.NaN]) as number));
  assert.deepEqual(reducerByName('mean')([{ a: 'C', b: 0 }, { a: 'I', b: Number.NaN }]), { a: 0.5, b: 0 });
  assert.throws(() => reducerByName('majority'), UnknownNameError);
});

test('value_to_float follows Inspect: C/P/I/N, yes/no, numeric strings, else 0', () => {
  assert.deepEqual(['C', 'P', 'I', 'N', 'yes', 'FALSE', ' 2 ', '1e3', 'c', 'nan', 'inf', true, 0.25].map((v) => valueToFloat(v)), [1, 0.5, 0, 0, 1, 0, 2, 1000, 0, 0, 0, 1, 0.25]);
});

test('bootstrap_stderr is seeded and lands within Monte Carlo error of the analytic standard error', () => {
  const scores = Array.from({ length: 200 }, (_, i) => ({ sampleId: i, value: i % 3 === 0 ? 1 : 0, metadata: null }));
  const boot = bootstrapStderr()(scores);
  assert.equal(boot, bootstrapStderr()(scores), 'repeatable');
  const analytic = npStd(scores.map((s) => s.value as number), 0) / Math.sqrt(scores.length);
  assert.ok(Math.abs(boot - analytic) <= bootstrapTolerance(analytic), `${boot} vs ${analytic}`);
});

test("choice: Inspect's own rescoring marks a correct answer wrong; the re-derived parse does not", () => {
  assert.equal(choiceScore('ANSWER: B', ['B'], 4).value, 'C');
  assert.equal(choiceScoreWithoutFlags('ANSWER: B', ['B']).value, 'I');
});

test('the extractors plug into the matrix seam, factories called with "" for defaults', () => {
  const identity = { name: 'none', description: '', normalize: (s: string) => s };
  const item = { docId: '1', text: 'ANSWER: C', gold: 'C', choices: ['a', 'b', 'c', 'd'] };
  assert.deepEqual(INSPECT_EXTRACTORS['inspect-choice']!('').read(item, identity), { extracted: 'C', value: 1 });
  assert.deepEqual(INSPECT_EXTRACTORS['inspect-answer']!('letter').read(item, identity), { extracted: 'C', value: 1 });
  assert.deepEqual(INSPECT_EXTRACTORS['inspect-match']!('').read({ ...item, text: 'it is c' }, identity), { extracted: 'it is c', value: 1 });
  assert.deepEqual(INSPECT_EXTRACTORS['inspect-match']!('any,numeric').read({ ...item, text: 'x is 1,000 and y is 2', gold: '1000' }, identity), { extracted: '1000', value: 1 });
  assert.deepEqual(INSPECT_EXTRACTORS['inspect-f1']!('').read({ ...item, text: 'd b', gold: '["b c", "x"]' }, identity), { extracted: 'd b', value: 0.5 });
  assert.throws(() => INSPECT_EXTRACTORS['inspect-answer']!(''), /letter, word, line/);
});

test("Inspect's Unicode number fallback gives what inspect_ai's own _unicode.py gives", async () => {
  // fixtures/inspect/unicode_numbers.json: fixtures/inspect/scripts/reference_unicode_numbers.py run on inspect_ai's _unicode.py.
  const { unicodeNumberToFloat } = await import('../../../src/score/inspect/unicodeNumber.ts');
  const { parseFiniteNumber } = await import('../../../src/score/inspect/unicodeNumber.ts');
  const cases = JSON.parse(readFileSync(new URL('../../../fixtures/inspect/unicode_numbers.json', import.meta.url), 'utf8')) as { input: string; unicode_number_to_float: number | string | null; parse_number: number | null }[];
  assert.equal(cases.length, 53);
  for (const c of cases) {
    const ours = unicodeNumberToFloat(c.input);
    assert.deepEqual(ours === null || Number.isFinite(ours) ? ours : pyFloatRepr(ours), c.unicode_number_to_float, `unicode_number_to_float(${JSON.stringify(c.input)})`);
    assert.equal(parseFiniteNumber(c.input), c.parse_number, `_parse_number(${JSON.stringify(c.input)})`);
  }
});
