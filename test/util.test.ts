import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parsePythonJson, toPythonJson } from '../src/util/json.ts';
import { BadInputError } from '../src/errors.ts';
import { pyStrip, pySplit, wordAt, wordBefore } from '../src/util/pytext.ts';

test('Python JSON: bare NaN and Infinity tokens parse, strings that spell them stay strings', () => {
  const value = parsePythonJson('{"mae,none": Infinity, "mae_stderr,none": NaN, "x": -Infinity, "s": "NaN Infinity", "n": [1, NaN]}') as Record<string, unknown>;
  assert.equal(value['mae,none'], Number.POSITIVE_INFINITY);
  assert.ok(Number.isNaN(value['mae_stderr,none'] as number));
  assert.equal(value.x, Number.NEGATIVE_INFINITY);
  assert.equal(value.s, 'NaN Infinity');
  assert.ok(Number.isNaN((value.n as number[])[1]!));
  assert.equal(toPythonJson(value), '{"mae,none":Infinity,"mae_stderr,none":NaN,"x":-Infinity,"s":"NaN Infinity","n":[1,NaN]}');
});

test('Python JSON: a syntax error names the file and the line it is on', () => {
  assert.throws(
    () => parsePythonJson('{\n  "a": 1,\n  "b": oops\n}', { file: 'r.json' }),
    (e: unknown) => e instanceof BadInputError && e.where.file === 'r.json' && e.where.line === 3,
  );
});

test("Python's whitespace set and Unicode word boundaries", () => {
  assert.equal(pyStrip('\u3000\x1c\x85 B\u00a0\n'), 'B');
  assert.equal(pyStrip('\ufeffB'), '\ufeffB'); // U+FEFF is not whitespace in Python (it is in JS \s)
  assert.deepEqual(pySplit(' a \u2028 b '), ['a', 'b']);
  assert.equal(wordBefore('éA', 1), true);
  assert.equal(wordAt('A٣', 1), true); // Arabic-Indic digit is \w in Python
  assert.equal(wordBefore('😀A', 2), false);
});
