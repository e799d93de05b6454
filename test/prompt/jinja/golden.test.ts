import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { BadInputError, UnsupportedError } from '../../../src/errors.ts';
import { compileTemplate, PyFloat } from '../../../src/prompt/jinja/index.ts';

interface GoldenCase {
  id: string;
  template: string;
  context: unknown;
  output?: string;
  error?: string;
  message?: string;
}

const golden = JSON.parse(readFileSync(new URL('../../golden/jinja_cases.json', import.meta.url), 'utf8')) as {
  jinja2: string;
  cases: GoldenCase[];
};

/** Contexts carry Python floats as {"$float": repr} (see test/golden/jinja_gen.py). */
function decode(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(decode);
  if (v !== null && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    if (typeof o['$float'] === 'string') {
      const r = o['$float'];
      return new PyFloat(r === 'nan' ? NaN : r === 'inf' ? Infinity : r === '-inf' ? -Infinity : Number(r));
    }
    return Object.fromEntries(Object.entries(o).map(([k, x]) => [k, decode(x)]));
  }
  return v;
}

/**
 * Cases Jinja2 renders that lmaudit refuses on purpose, with the reason. Every
 * other case must match byte for byte, or fail where Jinja2 fails.
 */
const REFUSED: Record<string, string> = {
  '{% macro m() %}x{% endmacro %}{{ m() }}': 'macros: unused by the task library',
};
/** Output Python can only give with an object's address in it (`<generator object … at 0x…>`): refused, never guessed. */
const ADDRESS = / at 0x[0-9a-f]+>/;

function run(c: GoldenCase): { output?: string; error?: unknown } {
  try {
    return { output: compileTemplate(c.template, { task: 'golden', field: c.id }).render(decode(c.context) as Record<string, unknown>) };
  } catch (error) {
    return { error };
  }
}

test(`golden renders match Jinja2 ${golden.jinja2} as lm-eval configures it`, () => {
  const failures: string[] = [];
  for (const c of golden.cases) {
    const got = run(c);
    const refusal = Object.hasOwn(REFUSED, c.template) ? REFUSED[c.template] : ADDRESS.test(c.output ?? '') ? 'Python prints a memory address' : undefined;
    if (refusal !== undefined) {
      if (!(got.error instanceof UnsupportedError)) failures.push(`${c.id}: expected a refusal (${refusal}), got ${got.output ?? String(got.error)}`);
      continue;
    }
    if (c.error === undefined) {
      if (got.output !== c.output) {
        failures.push(`${c.id}: ${JSON.stringify(c.template)}\n  want ${JSON.stringify(c.output)}\n  got  ${got.output !== undefined ? JSON.stringify(got.output) : String(got.error)}`);
      }
      continue;
    }
    if (!(got.error instanceof BadInputError)) {
      failures.push(`${c.id}: ${JSON.stringify(c.template)}\n  want ${c.error}: ${c.message}\n  got  ${got.output !== undefined ? JSON.stringify(got.output) : String(got.error)}`);
    } else if (c.error === 'UndefinedError' && !got.error.message.includes(c.message!)) {
      failures.push(`${c.id}: undefined message\n  want ${c.message}\n  got  ${got.error.message}`);
    }
  }
  assert.equal(failures.length, 0, `${failures.length} of ${golden.cases.length} cases differ:\n${failures.join('\n')}`);
});

const library = JSON.parse(gunzipSync(readFileSync(new URL('../../golden/jinja_library.json.gz', import.meta.url))).toString('utf8')) as {
  templates: { template: string; path: string; field: string; compiles: boolean; context?: unknown; output?: string; error?: string }[];
};

test('every template of the lm-eval task library compiles here exactly when Jinja2 compiles it', () => {
  assert.ok(library.templates.length > 1800);
  const failures: string[] = [];
  for (const t of library.templates) {
    let ok = true;
    let why = '';
    try {
      compileTemplate(t.template);
    } catch (e) {
      ok = false;
      why = (e as Error).message;
    }
    if (ok !== t.compiles) failures.push(`${t.path} ${t.field}: jinja2 ${t.compiles ? 'compiles' : 'rejects'}, we ${ok ? 'compile' : `reject (${why})`}\n  ${JSON.stringify(t.template).slice(0, 300)}`);
  }
  assert.equal(failures.length, 0, `${failures.length} of ${library.templates.length} differ:\n${failures.slice(0, 30).join('\n')}`);
});

// Documents synthesised from each template's AST by test/golden/jinja_infer.py; Jinja2's result is the golden value.
test('every library template renders like Jinja2 on a synthesised document', () => {
  const failures: string[] = [];
  let rendered = 0;
  for (const t of library.templates) {
    if (!t.compiles) continue;
    let got: { output?: string; error?: unknown };
    try {
      got = { output: compileTemplate(t.template).render(decode(t.context) as Record<string, unknown>) };
    } catch (error) {
      got = { error };
    }
    const where = `${t.path} ${t.field}: ${JSON.stringify(t.template).slice(0, 200)}`;
    if (t.error === undefined) {
      rendered++;
      if (got.output !== t.output) failures.push(`${where}\n  want ${JSON.stringify(t.output).slice(0, 300)}\n  got  ${got.output !== undefined ? JSON.stringify(got.output).slice(0, 300) : String(got.error)}`);
    } else if (!(got.error instanceof BadInputError)) {
      failures.push(`${where}\n  want ${t.error}\n  got  ${got.output !== undefined ? JSON.stringify(got.output).slice(0, 200) : String(got.error)}`);
    }
  }
  assert.ok(rendered > 1700, `only ${rendered} rendered`);
  assert.equal(failures.length, 0, `${failures.length} differ:\n${failures.slice(0, 25).join('\n')}`);
});
