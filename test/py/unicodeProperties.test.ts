import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { codePointDigest as digest } from './codePointDigest.ts';
import { category, categorySet, IDENTIFIER_CONTINUE, IDENTIFIER_START } from '../../src/py/unicodedata.ts';
import { REGEX_NUMBER, REGEX_PACKAGE, REGEX_PUNCTUATION, REGEX_SYMBOL } from '../../src/py/regexPackageClasses.ts';
import { pyIsLower, pyIsUpper, PY_PUNCTUATION, pyTitle } from '../../src/py/str.ts';
import { pyReEscape } from '../../src/py/re.ts';
import { LiteralEvalError, literalEval } from '../../src/py/literalEval.ts';
import { compileTemplate } from '../../src/prompt/jinja/index.ts';
import { NORMALIZERS } from '../../src/score/normalizers.ts';
import { answerIndex } from '../../src/score/inspect/choice.ts';
import { slowOnly } from '../helpers/slow.ts';

// The Unicode properties the ports used to read from JavaScript's \p{…} (Node's ICU), held to what
// CPython 3.11.7 (Unicode 14.0.0) and the regex package give: test/golden/unicode_gen.py writes the
// per-code-point digests, test/py/make_cpython_cases.py the cases.
const unicode = JSON.parse(readFileSync(new URL('../golden/unicode.json', import.meta.url), 'utf8')) as Record<string, string>;
type Pair = [string, string];
const cases = JSON.parse(readFileSync(new URL('./cpython_cases.json', import.meta.url), 'utf8')) as {
  literal_eval_outcome: Pair[]; re_escape: Pair[]; jinja_wordcount: Pair[]; title: Pair[];
  islower_isupper: [string, boolean, boolean][]; punctuation_removed: Pair[]; squad_normalized: Pair[];
  answer_index: [string, number | null][]; string_punctuation: string;
};
const bit = (set: { has(cp: number): boolean }) => (s: string) => (set.has(s.codePointAt(0)!) ? '1' : '0');

test('unicodedata.category of every code point matches CPython 3.11', () => {
  assert.equal(digest((s) => category(s.codePointAt(0)!)), unicode.category_sha256);
  // Kawi (Unicode 15) is unassigned to Python 3.11, a digit to Node.
  assert.equal(category(0x11f50), 'Cn');
  assert.equal(category(0x2e5d), 'Pd');
  assert.ok(categorySet('P').has(0x2e5d) && !categorySet('P').has(0x2e5e) && categorySet('Lu', 'Nd').has(0x41));
});

// A slow cross-check since the plain suite passed 5 minutes on a slower 2-core machine: .ci/run runs it.
test('isidentifier (start, continue), islower, isupper and title() after every code point match CPython 3.11', { skip: slowOnly }, () => {
  assert.equal(digest(bit(IDENTIFIER_START)), unicode.identifier_start_sha256, 'start');
  assert.equal(digest(bit(IDENTIFIER_CONTINUE)), unicode.identifier_continue_sha256, 'continue');
  // title() of c + 'A' keeps the 'A' upper exactly when c is uncased: the cased table, per code point.
  assert.equal(digest((s) => pyTitle(`${s}A`)), unicode.title_pair_sha256, 'title');
  assert.equal(digest((s) => (pyIsLower(s) ? '1' : '0')), unicode.islower_sha256, 'islower');
  assert.equal(digest((s) => (pyIsUpper(s) ? '1' : '0')), unicode.isupper_sha256, 'isupper');
});

test("the regex package's \\p{N}, \\p{P}, \\p{S} (sacrebleu's tokenizer) match it over every code point", () => {
  assert.equal(REGEX_PACKAGE.version, unicode.regex_version);
  assert.equal(digest(bit(REGEX_NUMBER)), unicode.regex_N_sha256, 'N');
  assert.equal(digest(bit(REGEX_PUNCTUATION)), unicode.regex_P_sha256, 'P');
  assert.equal(digest(bit(REGEX_SYMBOL)), unicode.regex_S_sha256, 'S');
});

test('re.escape, title, islower/isupper and Jinja2 wordcount match CPython', () => {
  for (const [s, want] of cases.re_escape) assert.equal(pyReEscape(s), want, `re.escape(${JSON.stringify(s)})`);
  for (const [s, want] of cases.title) assert.equal(pyTitle(s), want, `title ${s}`);
  for (const [s, lower, upper] of cases.islower_isupper) {
    assert.equal(pyIsLower(s), lower, `${s}.islower()`);
    assert.equal(pyIsUpper(s), upper, `${s}.isupper()`);
    assert.equal(compileTemplate('{{ s is lower }} {{ s is upper }}').render({ s }), `${lower ? 'True' : 'False'} ${upper ? 'True' : 'False'}`);
  }
  for (const [s, want] of cases.jinja_wordcount) assert.equal(compileTemplate('{{ s|wordcount }}').render({ s }), want, `wordcount ${s}`);
  assert.equal(cases.string_punctuation, PY_PUNCTUATION);
});

test("literal_eval's refusals, punctuation removal, SQuAD normalisation and answer_index match CPython", () => {
  for (const [s, want] of cases.literal_eval_outcome) {
    let got = 'value';
    try {
      literalEval(s);
    } catch (e) {
      assert.ok(e instanceof LiteralEvalError, String(e));
      got = e.kind;
    }
    assert.equal(got, want, `literal_eval(${JSON.stringify(s)})`);
  }
  const punctuation = new RegExp(`[${categorySet('P').classBody()}]`, 'gu');
  for (const [s, want] of cases.punctuation_removed) assert.equal(s.replace(punctuation, ''), want, `punctuation of ${s}`);
  for (const [s, want] of cases.squad_normalized) assert.equal(NORMALIZERS.squad.normalize(s), want, `normalize_answer(${s})`);
  for (const [c, want] of cases.answer_index) assert.equal(answerIndex(c), want, `answer_index(${JSON.stringify(c)})`);
});
