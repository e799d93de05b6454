import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BadInputError, LmauditError } from '../../../src/errors.ts';
import { compileTemplate, PyFloat } from '../../../src/prompt/jinja/index.ts';

test('syntax errors are BadInputError naming task and field', () => {
  assert.throws(
    () => compileTemplate('{{ question ', { task: 'arc_easy', field: 'doc_to_text' }),
    (e: unknown) => e instanceof BadInputError && e.where.field === 'doc_to_text' && /arc_easy/.test(e.message) && /doc_to_text/.test(e.message),
  );
  assert.throws(() => compileTemplate('{{ x|no_such_filter }}', { task: 't', field: 'f' }), /No filter named 'no_such_filter'/);
});

test('an undefined variable is a BadInputError naming the variable', () => {
  const t = compileTemplate('Question: {{ questoin }}', { task: 'arc_easy', field: 'doc_to_text' });
  assert.throws(
    () => t.render({ question: 'q' }),
    (e: unknown) => e instanceof BadInputError && /'questoin' is undefined/.test(e.message) && /arc_easy/.test(e.message),
  );
  assert.throws(() => compileTemplate('{{ d.choices.txt }}').render({ d: { choices: {} } }), /'dict object' has no attribute 'txt'/);
});

test('PyFloat keeps the int/float distinction that JSON loses', () => {
  const t = compileTemplate('{{ a }} {{ b }} {{ c }} {{ [a, b, c] }} {{ a + 1 }} {{ b / 2 }}');
  assert.equal(t.render({ a: new PyFloat(1), b: 1, c: 1.5 }), '1.0 1 1.5 [1.0, 1, 1.5] 2.0 0.5');
});

test('a compiled template renders many documents and never mutates them', () => {
  const t = compileTemplate('{% set choices = choices + ["x"] %}{{ choices|length }}');
  const doc = { choices: ['a', 'b'] };
  assert.equal(t.render(doc), '3');
  assert.equal(t.render(doc), '3');
  assert.deepEqual(doc, { choices: ['a', 'b'] });
});

const HOSTILE = [
  "{{ ''.constructor.constructor('return process')() }}",
  "{{ ''.constructor.constructor('return process')().exit(7) }}",
  "{{ [].constructor.constructor('return this')() }}",
  "{{ range.constructor('return process')() }}",
  "{{ ''.__class__.__mro__ }}",
  "{{ ''.__class__.__mro__[1].__subclasses__() }}",
  '{{ cycler.__init__.__globals__ }}',
  "{{ cycler.__init__.__globals__.os.popen('id').read() }}",
  '{{ joiner.__init__.__globals__ }}',
  '{{ lipsum.__globals__ }}',
  '{{ namespace.__call__ }}',
  '{{ self.__init__.__globals__ }}',
  '{{ config.items() }}',
  '{{ request }}',
  "{{ ''.toString() }}",
  "{{ 'a'.valueOf }}",
  '{{ l.map }}',
  '{{ l.constructor }}',
  '{{ d.constructor }}',
  '{{ d.hasOwnProperty }}',
  '{{ d.__proto__ }}',
  "{{ d['__proto__'] }}",
  "{{ d['constructor']['constructor']('return process')() }}",
  '{% for x in range(3) %}{{ loop.constructor }}{% endfor %}',
  '{% set x = {} %}{% set x.polluted = 1 %}{{ x }}',
  '{% set ns = namespace() %}{% set ns.__proto__ = 1 %}{{ ns.__proto__ }}',
  "{{ ({'__proto__': {'polluted': 1}}).polluted }}",
  "{{ {'__proto__': {'polluted': 1}} }}",
  '{{ range(100000000)|length }}',
  "{{ 'a' * 1000000000 }}",
  '{% for i in range(10000000) %}{% for j in range(10000000) %}{% endfor %}{% endfor %}',
  '{{ ' + '('.repeat(20000) + '1' + ')'.repeat(20000) + ' }}',
];

test('hostile templates never reach JavaScript objects or the process', () => {
  const doc = { l: [1, 2], d: { k: 'v' } };
  // As it was before the renders: the test runner sets it when an earlier test (of this file or, in the suite, of
  // another file of its group) failed.
  const exitCode = process.exitCode;
  for (const source of HOSTILE) {
    let out = '';
    try {
      out = compileTemplate(source, { task: 'hostile', field: 'doc_to_text' }).render(doc);
    } catch (e) {
      assert.ok(e instanceof LmauditError, `${source}: threw ${(e as Error)?.constructor?.name}: ${(e as Error)?.message}`);
      continue;
    }
    // A render that succeeds may only print Python data, never a JS function or object.
    assert.doesNotMatch(out, /function|native code|\[object|process|globalThis/, source);
  }
  assert.equal(({} as Record<string, unknown>)['polluted'], undefined);
  assert.equal((Object.prototype as Record<string, unknown>)['polluted'], undefined);
  assert.equal(process.exitCode, exitCode);
});

test('a document key named __proto__ or constructor is plain data', () => {
  const doc = JSON.parse('{"__proto__": {"polluted": 1}, "constructor": "c"}') as Record<string, unknown>;
  assert.equal(compileTemplate('{{ __proto__ }}|{{ constructor }}').render(doc), "{'polluted': 1}|c");
  assert.equal((Object.prototype as Record<string, unknown>)['polluted'], undefined);
});

test('pythonStr prints document values as Python str() does', async () => {
  const { pythonStr } = await import('../../../src/prompt/jinja/index.ts');
  assert.equal(pythonStr(['a', "it's", 1, new PyFloat(2), null, true, { k: [1.5] }]), `['a', "it's", 1, 2.0, None, True, {'k': [1.5]}]`);
  assert.equal(pythonStr('text'), 'text');
  assert.equal(pythonStr(new PyFloat(1e-5)), '1e-05');
});

test('a Map context value keeps its key order (plain objects put integer-like keys first)', () => {
  const t = compileTemplate('{{ d }}');
  assert.equal(t.render({ d: new Map<string, unknown>([['b', 1], ['1', 2]]) }), "{'b': 1, '1': 2}");
  assert.equal(t.render({ d: { b: 1, '1': 2 } }), "{'1': 2, 'b': 1}");
});

test('integers beyond 2^53 (DuckDB BIGINT) print exactly; arithmetic on them is refused', () => {
  assert.equal(compileTemplate('{{ id }} {{ [id] }} {{ id == id }} {{ n }}').render({ id: 9223372036854775807n, n: 12n }), '9223372036854775807 [9223372036854775807] True 12');
  assert.throws(() => compileTemplate('{{ id + 1 }}').render({ id: 9223372036854775807n }), /beyond 2\^53/);
});
