import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { UnsupportedError } from '../../../src/errors.ts';
import { LiteralEvalError, literalEval } from '../../../src/py/literalEval.ts';
import { PyDict, PyFloat, PyTuple, type PyValue } from '../../../src/py/values.ts';

type Lit = { value?: unknown; error?: string };
const golden = JSON.parse(readFileSync(new URL('../../golden/jinja_cases.json', import.meta.url), 'utf8')) as {
  cases: { id: string; output?: string; literal?: Lit }[];
  literals: ({ text: string } & Lit)[];
};

/** The tagged JSON of test/golden/jinja_gen.py's enc_literal, for comparison with our values. */
function tagged(v: PyValue): unknown {
  if (v instanceof PyFloat) return { $float: v.value };
  if (v instanceof PyTuple) return { $tuple: v.items.map(tagged) };
  if (v instanceof PyDict) return { $dict: v.items().map(([k, x]) => [tagged(k), tagged(x)]) };
  if (Array.isArray(v)) return v.map(tagged);
  return v;
}
function expected(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(expected);
  if (v !== null && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    if ('$float' in o) return { $float: Number(o['$float']) };
    if ('$tuple' in o) return { $tuple: expected(o['$tuple']) };
    if ('$dict' in o) return { $dict: expected(o['$dict']) };
  }
  return v;
}

function check(text: string, want: Lit, label: string): void {
  let got: PyValue;
  try {
    got = literalEval(text);
  } catch (e) {
    if (e instanceof UnsupportedError) assert.fail(`${label}: refused ${JSON.stringify(text)}: ${e.message}`);
    assert.ok(e instanceof LiteralEvalError, `${label}: ${String(e)}`);
    assert.equal(e.kind, want.error, `${label}: ${JSON.stringify(text)} raised ${e.kind}, CPython ${want.error ?? 'returned a value'}`);
    return;
  }
  assert.equal(want.error, undefined, `${label}: ${JSON.stringify(text)} gave a value, CPython raised ${want.error}`);
  assert.deepEqual(tagged(got), expected(want.value), `${label}: ${JSON.stringify(text)}`);
}

test('ast.literal_eval edge cases match CPython 3.11', () => {
  for (const l of golden.literals) check(l.text, l, 'literal');
});

test('literal_eval of every bracketed golden render (doc_to_choice lists, reprs) matches CPython', () => {
  let n = 0;
  for (const c of golden.cases) {
    if (c.literal === undefined || c.output === undefined) continue;
    check(c.output, c.literal, c.id);
    n++;
  }
  assert.ok(n >= 40, `only ${n} cases`);
});

test('refused literal kinds say so', () => {
  for (const text of ['{1, 2}', "b'x'", '1j', 'set()']) assert.throws(() => literalEval(text), UnsupportedError, text);
});
