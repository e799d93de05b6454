import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parsePythonJson, toPythonJson } from '../src/util/json.ts';
import { BadInputError } from '../src/errors.ts';
import { pySplit, pyStrip } from '../src/py/str.ts';
import { wordAt, wordBefore } from '../src/py/unicodedata.ts';

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

test("one JSON reader behind both Python views: json.loads' strictness, dict keys and json.dumps' strings (values from CPython 3.11)", async () => {
  const { parsePyJson, dumpsPy } = await import('../src/py/json.ts');
  const { parseOrdered, pyDumps, toValue } = await import('../src/py/orderedJson.ts');
  const { PyFloat } = await import('../src/py/values.ts');
  // json.loads('"a\tb"') raises "Invalid control character": a raw tab inside a string is not JSON.
  for (const parse of [parsePyJson, parseOrdered]) {
    assert.throws(() => parse('{\n"a": "x\ty"}', { file: 'd.jsonl', line: 7 }), (e: unknown) => e instanceof BadInputError && e.where.line === 8 && /control character/.test(e.message));
    assert.throws(() => parse('['.repeat(600) + ']'.repeat(600)), /nesting deeper than 512/);
  }
  // json.loads('{"__proto__": {"x": 1}, "1": 2, "a": 1.50}') is a dict with three keys; 1.50 is the float 1.5.
  const text = '{"__proto__": {"x": 1}, "1": 2, "a": 1.50}';
  for (const value of [parsePyJson(text), toValue(parseOrdered(text))] as Record<string, unknown>[]) {
    assert.equal(Object.getPrototypeOf(value), Object.prototype);
    assert.deepEqual(Object.keys(value).sort(), ['1', '__proto__', 'a']);
    assert.deepEqual(value.__proto__, { x: 1 });
  }
  assert.ok((parsePyJson(text) as { a: unknown }).a instanceof PyFloat);
  assert.equal(dumpsPy(parsePyJson('{"b": [1.0, 2, NaN]}')), '{"b": [1.0, 2, NaN]}');
  // json.dumps('\ud800x', ensure_ascii=False) writes the lone surrogate raw; JSON.stringify would escape it.
  assert.equal(dumpsPy('\ud800x'), '"\ud800x"');
  assert.equal(pyDumps(parseOrdered('"\\ud800x"')), '"\ud800x"');
  assert.equal(dumpsPy('tab\there "q" \\ \u001f'), '"tab\\there \\"q\\" \\\\ \\u001f"');
});
