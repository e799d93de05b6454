/**
 * Task YAML reads as lm-eval 0.4.13 reads it (PyYAML's CSafeLoader): test/golden/pyyaml.json holds the values PyYAML
 * gives (test/golden/pyyaml_gen.py). js-yaml's YAML 1.1 schema read `y`/`n` as booleans and `02:00` as 120, refused a
 * repeated key, and refused quoted scalars and flow collections continued on lines indented less than their node,
 * which 34 task files of lm-eval's own library have (bbh/cot_fewshot, acpbench, evalita_llm, tinyBenchmarks…).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { parseYamlText } from '../../src/tasks/yaml.ts';
import { PyFloat } from '../../src/py/values.ts';

const golden = JSON.parse(readFileSync(new URL('../golden/pyyaml.json', import.meta.url), 'utf8')) as {
  cases: { name: string; text: string; value: unknown }[];
};

/** The generator's spelling: ints and floats apart, non-finite floats as Python's repr. */
function spelled(v: unknown): unknown {
  if (v instanceof PyFloat) return { float: Number.isFinite(v.value) ? v.value : Number.isNaN(v.value) ? 'nan' : v.value > 0 ? 'inf' : '-inf' };
  if (typeof v === 'number') return { int: String(v) };
  if (typeof v === 'bigint') return { int: String(v) };
  if (Array.isArray(v)) return v.map(spelled);
  if (v !== null && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, spelled(x)]));
  return v;
}

for (const c of golden.cases) {
  test(`YAML as PyYAML reads it: ${c.name}`, () => {
    assert.notEqual(c.value, null, 'every case here is one PyYAML reads');
    assert.deepEqual(spelled(parseYamlText(c.text, 'case.yaml')), c.value);
  });
}

test('a line under-indented outside any flow node is still refused with its line', () => {
  assert.throws(
    () => parseYamlText('a:\n  - b\n - c\n', 'bad.yaml'),
    (e: unknown) => e instanceof Error && /bad\.yaml/.test(e.message) && /line 3/.test(e.message),
  );
});
