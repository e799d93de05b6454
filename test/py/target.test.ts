import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { codePointDigest } from './codePointDigest.ts';
import { formatG, pyFloat, pyFloatRepr, pyRound } from '../../src/py/float.ts';
import { parsePyInt } from '../../src/py/int.ts';
import { dumpsPy } from '../../src/py/json.ts';
import { casefold, pyLower, pySplit, pyStrip } from '../../src/py/str.ts';
import { ALNUM, DECIMALS, numericValue, PYTHON_TARGET } from '../../src/py/unicodedata.ts';
import { compileTemplate } from '../../src/prompt/jinja/index.ts';

// test/py/make_cpython_cases.py and test/golden/unicode_gen.py, run with CPython 3.11.7 (Unicode 14.0.0, jinja2 3.1.6).
type Outcome = number | string | null;
const cases = JSON.parse(readFileSync(new URL('./cpython_cases.json', import.meta.url), 'utf8')) as {
  python: string; unicode: string;
  round: [string, number, string][]; round_int: [number, number, number][]; float_repr: [string, string][];
  float: [string, string | null][]; int: [string, number, Outcome][]; format_g: [string, string][];
  strip_split: [string, string, string[]][]; strip_chars: [string, string, string][]; casefold_lower: [string, string, string][];
  json_dumps: [unknown, string, string][]; jinja_round: [string, string][];
};
const unicode = JSON.parse(readFileSync(new URL('../golden/unicode.json', import.meta.url), 'utf8')) as Record<string, string>;
/** A float as the generator wrote it (its repr). */
const float = (repr: string): number => (repr === 'nan' ? NaN : repr === 'inf' ? Infinity : repr === '-inf' ? -Infinity : Number(repr));

const digest = codePointDigest;

test('src/py declares the target its tables and cases come from: CPython 3.11, Unicode 14', () => {
  assert.deepEqual(PYTHON_TARGET, { python: '3.11', unicode: '14.0.0' });
  assert.equal(cases.python.split('.').slice(0, 2).join('.'), PYTHON_TARGET.python);
  assert.equal(cases.unicode, PYTHON_TARGET.unicode);
  assert.equal(unicode.unicode, PYTHON_TARGET.unicode);
});

test('isdecimal, isalnum, casefold and unicodedata.numeric of every code point match CPython 3.11', () => {
  assert.equal(digest((s) => (DECIMALS.has(s.codePointAt(0)!) ? '1' : '0')), unicode.isdecimal_sha256, 'isdecimal');
  assert.equal(digest((s) => (ALNUM.has(s.codePointAt(0)!) ? '1' : '0')), unicode.isalnum_sha256, 'isalnum');
  assert.equal(digest(casefold), unicode.casefold_sha256, 'casefold');
  assert.equal(digest((s) => { const v = numericValue(s); return v === null ? 'None' : pyFloatRepr(v); }), unicode.numeric_sha256, 'numeric');
});

test('round(x, n) of floats and ints, and Jinja2\'s round filter, match CPython', () => {
  assert.ok(cases.round.length > 800);
  for (const [x, n, want] of cases.round) assert.equal(pyFloatRepr(pyRound(float(x), n)), want, `round(${x}, ${n})`);
  for (const [x, n, want] of cases.round_int) assert.equal(n < 0 ? pyRound(x, n) : x, want, `round(${x}, ${n})`);
  assert.deepEqual(cases.jinja_round.slice(0, 2), [['{{ -4376550.0|round(-2) }}', '-4376600.0'], ['{{ 1250|round(-2) }}', '1200']]);
  for (const [source, want] of cases.jinja_round) assert.equal(compileTemplate(source).render({}), want, source);
});

test('repr(float), float(s), int(s, base) and format(x, ".5g") match CPython', () => {
  for (const [x, want] of cases.float_repr) assert.equal(pyFloatRepr(float(x)), want, `repr(${x})`);
  for (const [s, want] of cases.float) {
    const got = pyFloat(s);
    assert.equal(got === null ? null : pyFloatRepr(got), want, `float(${JSON.stringify(s)})`);
  }
  // Kawi digits (Unicode 15) are not digits to Python 3.11, whatever Node's ICU says.
  assert.equal(pyFloat('𑽑𑽒'), null);
  for (const [s, base, want] of cases.int) assert.equal(parsePyInt(s, base) ?? null, want, `int(${JSON.stringify(s)}, ${base})`);
  for (const [x, want] of cases.format_g) assert.equal(formatG(float(x), 5), want, `format(${x}, '.5g')`);
});

test('strip, split, casefold and lower match CPython', () => {
  for (const [s, stripped, split] of cases.strip_split) {
    assert.equal(pyStrip(s), stripped, `strip ${JSON.stringify(s)}`);
    assert.deepEqual(pySplit(s), split, `split ${JSON.stringify(s)}`);
  }
  for (const [s, chars, want] of cases.strip_chars) assert.equal(pyStrip(s, chars), want, `strip(${chars})`);
  for (const [s, folded, lower] of cases.casefold_lower) {
    assert.equal(casefold(s), folded, `casefold ${s}`);
    assert.equal(pyLower(s), lower, `lower ${s}`);
  }
});

test('json.dumps(ensure_ascii=False) matches CPython', () => {
  // dumpsPy is json.dumps(value, ensure_ascii=False), as lm-eval's templates call it.
  for (const [value, , unescaped] of cases.json_dumps) assert.equal(dumpsPy(value), unescaped, JSON.stringify(value));
});
