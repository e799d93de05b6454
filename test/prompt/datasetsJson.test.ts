/**
 * JSON Lines and CSV rows as `datasets` 5 gives them to lm-eval (test/golden/datasets_json.json, made by
 * test/golden/datasets_json_gen.py with load_dataset('json')): one table, columns in first-seen order with None for a
 * missing one, ints promoted to floats where a column also holds floats, conflicting types kept as written. Rows were
 * passed on as each line wrote them, so `{{x}}` printed 1 where lm-eval prints 1.0, and `{{z}}` failed where it
 * prints None. CSV columns are typed as pandas types them (DuckDB's sniffing kept "007" as text and read "yes"
 * as True).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadFile } from '../../src/data/datasets.ts';
import { PyFloat } from '../../src/py/values.ts';

const golden = JSON.parse(readFileSync(new URL('../golden/datasets_json.json', import.meta.url), 'utf8')) as {
  cases: { name: string; jsonl: string; rows: unknown[] }[];
  csv_cases: { name: string; csv: string; rows: unknown[] }[];
};

function spelled(v: unknown): unknown {
  if (v instanceof PyFloat) return { float: Number.isFinite(v.value) ? v.value : v.value > 0 ? 'inf' : v.value < 0 ? '-inf' : 'nan' };
  if (typeof v === 'number' || typeof v === 'bigint') return { int: String(v) };
  if (Array.isArray(v)) return v.map(spelled);
  if (v !== null && typeof v === 'object') return { keys: Object.keys(v), values: Object.values(v).map(spelled) };
  return v;
}

const dir = mkdtempSync(join(tmpdir(), 'lmaudit-json-'));
golden.cases.forEach((c, i) => {
  test(`JSON Lines as datasets reads it: ${c.name}`, async () => {
    const file = join(dir, `c${i}.jsonl`);
    writeFileSync(file, c.jsonl);
    assert.deepEqual((await loadFile(file)).map(spelled), c.rows);
  });
});

golden.csv_cases.forEach((c, i) => {
  test(`CSV as datasets (pandas) reads it: ${c.name}`, async () => {
    const file = join(dir, `c${i}.csv`);
    writeFileSync(file, c.csv);
    assert.deepEqual((await loadFile(file)).map(spelled), c.rows);
  });
});
