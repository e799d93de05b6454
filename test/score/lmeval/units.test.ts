/**
 * Filters, Python-regex translation, metrics and aggregation against values computed
 * by reference/lmeval_reference.py (Python's re, random, Counter and numpy).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { compilePython } from '../../../src/py/re.ts';
import { findall } from '../../../src/py/reMatch.ts';
import { buildPipeline } from '../../../src/score/lmeval/filters.ts';
import { exactMatch, mcGold, multipleChoice, type McMetric } from '../../../src/score/lmeval/metrics.ts';
import {
  bootstrapStderr, groupAggregate, mean, meanStderr, median, nanmean, perplexity, pySum,
} from '../../../src/score/lmeval/aggregate.ts';
import { UnsupportedError, UnknownNameError } from '../../../src/errors.ts';

const NAN_SAFE = (text: string) => text.replace(/\bNaN\b/g, 'null');
const cases = JSON.parse(NAN_SAFE(readFileSync(new URL('./reference/cases.json', import.meta.url), 'utf8')));

test('Python regex findall and the regex filter match CPython on every case', () => {
  for (const c of cases.regex) {
    const p = compilePython(c.pattern);
    assert.deepEqual(findall(p, c.text), c.findall, `findall ${c.pattern} on ${JSON.stringify(c.text)}`);
    const filtered = buildPipeline({ name: 'x', filter: [{ function: 'regex', regex_pattern: c.pattern, group_select: c.group_select }, { function: 'take_first' }] })([c.text], null);
    assert.equal(filtered, c.filtered, `regex filter ${c.pattern}`);
  }
});

test('untranslatable Python patterns are refused, naming the pattern', () => {
  for (const pattern of ['(?x) a b', '(?i:abc)', '(?>a)', 'a++', '\\N{DIGIT ONE}', '[\\S]', '(?(1)a|b)']) {
    assert.throws(() => compilePython(pattern), (e: unknown) => e instanceof UnsupportedError && e.message.includes(JSON.stringify(pattern)), pattern);
  }
});

test('multi_choice_regex follows the primary / choice-text / letter fallbacks (§2.3 table)', () => {
  const pipeline = buildPipeline({
    name: 'x',
    filter: [{ function: 'multi_choice_regex', regex_pattern: '(\\([A-Z]\\))', group_select: -1, ignore_case: true, ignore_punctuation: true }, { function: 'take_first' }],
  });
  for (const c of cases.multi_choice_regex) {
    assert.equal(pipeline([c.resp], { choices: ['Paris', 'London', 'Berlin, Germany', 'Rome'] }), c.out, c.resp);
  }
});

test('majority_vote breaks ties toward the first seen; take_first_k; map; remove_whitespace; lowercase', () => {
  for (const c of cases.majority_vote) {
    assert.equal(buildPipeline({ name: 'm', filter: [{ function: 'majority_vote' }, { function: 'take_first' }] })(c.resps, null), c.winner);
  }
  assert.deepEqual(buildPipeline({ name: 'k', filter: [{ function: 'take_first_k', k: 2 }] })(['a', 'b', 'c'], null), ['a', 'b']);
  assert.deepEqual(buildPipeline({ name: 'm', filter: [{ function: 'map', mapping_dict: { yes: 1 }, default_value: -1 }] })(['yes', 'no'], null), [1, -1]);
  assert.deepEqual(buildPipeline({ name: 'w', filter: [{ function: 'remove_whitespace' }, { function: 'lowercase' }] })(['\u00a0 AbC \u2003\n'], null), ['abc']);
  assert.throws(() => buildPipeline({ name: 'c', filter: [{ function: 'custom' }] }), UnknownNameError);
});

test('exact_match applies its kwargs in lm-eval order, with numpy string quirks', () => {
  for (const c of cases.exact_match) {
    assert.equal(exactMatch(c.predictions, c.references, c.kwargs), c.value, JSON.stringify(c.predictions));
  }
});

test('multiple_choice acc / acc_norm (code points) / acc_bytes / exact_match, ties to the lowest index, NaN wins', () => {
  for (const c of cases.multiple_choice) {
    const lls = c.lls.map((x: number | null) => (x === null ? Number.NaN : x));
    for (const metric of ['acc', 'acc_norm', 'acc_bytes', 'exact_match'] as McMetric[]) {
      assert.equal(multipleChoice({ lls, isGreedy: c.is_greedy, choices: c.choices, gold: c.gold }, metric), c.values[metric], `${metric} ${JSON.stringify(c)}`);
    }
  }
  assert.equal(mcGold('1', null, 4), 1);
  assert.equal(mcGold('steam', ['ice', 'steam'], 2), 1);
  assert.equal(mcGold('fire', ['ice', 'steam'], 2), -100);
  assert.deepEqual(mcGold("['A', 'B']", ['A', 'B', 'C'], 3), [0, 1]);
  assert.equal(mcGold('always got the easier cases.', null, 2), null);
});

test('aggregation and stderr reproduce CPython/numpy digit for digit', () => {
  const a = cases.aggregation;
  assert.equal(perplexity(a.xs), a.perplexity);
  assert.equal(bootstrapStderr((s) => perplexity(s), a.xs as number[], 2000), a.bootstrap_perplexity_2000);
  assert.equal(bootstrapStderr((s) => median(s), a.xs as number[], 1000), a.bootstrap_median_1000);
  // 1500 iterations: the 500 remainder is dropped, as lm-eval does.
  assert.equal(bootstrapStderr((s) => mean(s), a.xs as number[], 1500), a.bootstrap_mean_1500);
  const arc = [...Array(1798).fill(1), ...Array(2376 - 1798).fill(0)];
  assert.equal(meanStderr(arc), a.arc_mean_stderr);
  assert.equal(meanStderr(arc), 0.008804009846865577);
  assert.equal(mean(a.floats), a.floats_mean);
  assert.equal(meanStderr(a.floats), a.floats_mean_stderr);
  assert.equal(median(a.floats), a.floats_median);
  const withNan = a.floats.map((v: number, i: number) => (i % 11 === 0 ? Number.NaN : v));
  assert.equal(nanmean(withNan), a.with_nan_nanmean);
  const g = groupAggregate(a.pooled.values.map((v: number, i: number) => ({ value: v, stderr: a.pooled.stderrs[i], n: a.pooled.sizes[i] })), true);
  assert.equal(g.value, a.pooled.value);
  assert.equal(g.stderr, a.pooled.stderr);
  // §4.2: 3.11's fold vs 3.12's compensated sum.
  assert.equal(pySum([0.1, 0.2, 0.3]) / 3, 0.20000000000000004);
  assert.equal(pySum([0.1, 0.2, 0.3], 'neumaier') / 3, 0.19999999999999998);
});
