import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { codePointDigest } from './codePointDigest.ts';
import { isPyPrintable, isPySpace, pyCapitalize, pyIsDigit, pyLower, pyStrRepr, pyUpper } from '../../src/py/str.ts';
import { formatF, pyFloat, pyFloatRepr, pyRound } from '../../src/py/float.ts';
import { parsePyInt } from '../../src/py/int.ts';

const facts = JSON.parse(readFileSync(new URL('../golden/unicode.json', import.meta.url), 'utf8')) as {
  upper_sha256: string;
  lower_sha256: string;
  capitalize_sha256: string;
  isprintable_sha256: string;
  isdigit_sha256: string;
  isspace: number[];
  samples: Record<string, { upper: string; lower: string; capitalize: string; repr: string }>;
};

const digest = codePointDigest;

// test/golden/unicode_gen.py: CPython 3.11 (Unicode 14) over every code point; Node 20 has a newer Unicode.
test('case mapping of every code point matches CPython 3.11', () => {
  assert.equal(digest(pyUpper), facts.upper_sha256, 'upper');
  assert.equal(digest(pyLower), facts.lower_sha256, 'lower');
  assert.equal(digest(pyCapitalize), facts.capitalize_sha256, 'capitalize');
});

test('isprintable (which drives repr escapes) and isspace match CPython 3.11', () => {
  assert.equal(digest((s) => (isPyPrintable(s.codePointAt(0)!) ? '1' : '0')), facts.isprintable_sha256);
  assert.equal(digest((s) => (pyIsDigit(s) ? '1' : '0')), facts.isdigit_sha256);
  assert.deepEqual(['12', '²', '١٢', '', '-1', '1.0', ' 1'].map(pyIsDigit), [true, true, true, false, false, false, false]);
  const spaces: number[] = [];
  for (let c = 0; c < 0x110000; c++) if (isPySpace(c)) spaces.push(c);
  assert.deepEqual(spaces, facts.isspace);
});

test('string samples: upper, lower, capitalize with context (final sigma), repr', () => {
  for (const [s, want] of Object.entries(facts.samples)) {
    assert.equal(pyUpper(s), want.upper, `upper ${s}`);
    assert.equal(pyLower(s), want.lower, `lower ${s}`);
    assert.equal(pyCapitalize(s), want.capitalize, `capitalize ${s}`);
    assert.equal(pyStrRepr(s), want.repr, `repr ${s}`);
  }
});

// Values from CPython 3.11.7 (repr(float(x)), int(s), float(s), round(x, n)).
test('float repr, int()/float() parsing and round() follow Python', () => {
  const reprs: [number, string][] = [[1, '1.0'], [1e16, '1e+16'], [1e15, '1000000000000000.0'], [1e-4, '0.0001'], [1e-5, '1e-05'],
    [0.1 + 0.2, '0.30000000000000004'], [-0, '-0.0'], [1.5e300, '1.5e+300'], [123456789.125, '123456789.125'], [2.5e-7, '2.5e-07']];
  for (const [x, s] of reprs) assert.equal(pyFloatRepr(x), s);
  assert.equal(parsePyInt(' 42 ', 10), 42);
  assert.equal(parsePyInt('1_000', 10), 1000);
  assert.equal(parsePyInt('1__0', 10), undefined);
  assert.equal(parsePyInt('٣٤', 10), 34);
  assert.equal(parsePyInt('3.7', 10), undefined);
  assert.equal(parsePyInt('0x1f', 16), 31);
  assert.equal(parsePyInt('0x1f', 0), 31);
  assert.equal(parsePyInt('-', 10), undefined);
  assert.equal(pyFloat(' 1e3 '), 1000);
  assert.equal(pyFloat('.5'), 0.5);
  assert.equal(pyFloat('5.'), 5);
  assert.equal(pyFloat('0x10'), null);
  assert.equal(pyFloat(''), null);
  assert.ok(Number.isNaN(pyFloat('NaN')!));
  assert.equal(pyFloat('-Infinity'), -Infinity);
  const rounds: [number, number, number][] = [[2.5, 0, 2], [3.5, 0, 4], [2.675, 2, 2.67], [0.125, 2, 0.12], [0.375, 2, 0.38], [1.25, 1, 1.2], [-2.5, 0, -2], [1234.5678, -2, 1200], [5e-324, 2, 0]];
  for (const [x, n, want] of rounds) assert.equal(pyRound(x, n), want, `round(${x}, ${n})`);
  // f"{x:.4f}" as Python 3.11 prints it (lm-eval's table): ties to even on the exact binary value, where toFixed rounds
  // 0.03125 (an accuracy of 1 in 32) up to 0.0313; -0.0 keeps its sign; nan and inf in Python's spelling.
  const fixed: [number, number, string][] = [[0.03125, 4, '0.0312'], [0.09375, 4, '0.0938'], [2.675, 2, '2.67'], [0.00005, 4, '0.0001'], [0.00015, 4, '0.0001'], [0.99995, 4, '1.0000'], [2.5, 0, '2'], [-0.00001, 4, '-0.0000'], [-0, 4, '-0.0000'], [312507.76123, 4, '312507.7612'], [NaN, 4, 'nan'], [-Infinity, 4, '-inf']];
  for (const [x, n, want] of fixed) assert.equal(formatF(x, n), want, `f"{${x}:.${n}f}"`);
});
