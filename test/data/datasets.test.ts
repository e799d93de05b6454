/**
 * Dataset loading: local JSONL/JSON/CSV/Parquet keep column order and Python's
 * int/float distinction; hub ids map to the shipped copies; doc_hash matches Python's
 * json.dumps(indent=2) (reference values computed with CPython, written here).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadFile, loadSplit, locateSplit } from '../../src/data/datasets.ts';
import { dumpsPy, parsePyJson } from '../../src/py/json.ts';
import { docHash } from '../../src/prompt/build.ts';
import { PyFloat } from '../../src/py/values.ts';
import { duck } from '../../src/util/duckdb.ts';

test('JSONL keeps floats as floats and key order; malformed rows name file and line', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'lmaudit-data-'));
  writeFileSync(join(dir, 'a.jsonl'), '{"b": 1.0, "a": 2, "c": [1e-05, "x"]}\n{"b": 2.5, "a": NaN, "c": []}\n');
  const docs = await loadFile(join(dir, 'a.jsonl'));
  assert.deepEqual(Object.keys(docs[0]!), ['b', 'a', 'c']);
  // NaN, which JSON lacks, is None as datasets 5's json builder gives it (test/golden/datasets_json.json).
  assert.equal(dumpsPy(docs), '[{"b": 1.0, "a": 2, "c": [1e-05, "x"]}, {"b": 2.5, "a": null, "c": []}]');
  writeFileSync(join(dir, 'bad.jsonl'), '{"a": 1}\n{"a": \n');
  await assert.rejects(loadFile(join(dir, 'bad.jsonl')), /bad\.jsonl, line 2: malformed JSON/);
});

test('CSV and Parquet through DuckDB: ints stay ints, doubles become floats', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'lmaudit-data-'));
  writeFileSync(join(dir, 'test.csv'), 'question,answer,score\n"Is it, really?",1,0.5\nNo,0,2.0\n');
  const csv = await loadFile(join(dir, 'test.csv'));
  assert.equal(dumpsPy(csv), '[{"question": "Is it, really?", "answer": 1, "score": 0.5}, {"question": "No", "answer": 0, "score": 2.0}]');
  const conn = await duck();
  await conn.run(`COPY (SELECT 'q' AS question, [1, 2] AS ids, {'text': ['a'], 'label': ['A']} AS choices, 1.0::DOUBLE AS w) TO '${join(dir, 'test.parquet')}' (FORMAT parquet)`);
  const pq = await loadFile(join(dir, 'test.parquet'));
  assert.equal(dumpsPy(pq), '[{"question": "q", "ids": [1, 2], "choices": {"text": ["a"], "label": ["A"]}, "w": 1.0}]');
  // A folder as dataset_path: <folder>/<split>.<ext>.
  assert.equal((await loadSplit({ path: dir, name: null, kwargs: null }, 'test')).length, 2);
});

test('hub ids resolve to the shipped copies (and legacy ids to their new names)', () => {
  const arc = locateSplit({ path: 'allenai/ai2_arc', name: 'ARC-Easy', kwargs: null }, 'test');
  assert.ok('file' in arc && arc.file.endsWith('fixtures/benchmarks/allenai/ai2_arc/ARC-Easy/test.jsonl'));
  const legacy = locateSplit({ path: 'truthful_qa', name: 'generation', kwargs: null }, 'validation');
  assert.ok('file' in legacy && legacy.file.endsWith('truthfulqa/truthful_qa/generation/validation.jsonl'));
  assert.deepEqual(locateSplit({ path: 'someone/else', name: null, kwargs: null }, 'test'), { hub: { id: 'someone/else', config: 'default', split: 'test' } });
});

test('doc_hash equals sha256 of Python json.dumps(doc, indent=2, ensure_ascii=False)', () => {
  // python3 -c 'import json,hashlib; print(hashlib.sha256(json.dumps(D, indent=2, ensure_ascii=False).encode()).hexdigest())'
  const doc = parsePyJson('{"q": "caf\\u00e9 \\"x\\"\\n", "n": 3, "f": 1.0, "l": [], "d": {}, "e": [1e-07, 1e+16, 0.5], "z": null, "t": true}') as Record<string, unknown>;
  assert.ok(doc.f instanceof PyFloat);
  assert.equal(dumpsPy(doc, 2), '{\n  "q": "café \\"x\\"\\n",\n  "n": 3,\n  "f": 1.0,\n  "l": [],\n  "d": {},\n  "e": [\n    1e-07,\n    1e+16,\n    0.5\n  ],\n  "z": null,\n  "t": true\n}');
  assert.equal(docHash(doc), '77658a72fac71d1df9e86f8e6c2291ee477e3f769a929aa41e4458b2b268b5e9');
  const plain = { question: 'q', choices: ['a', 'b'], answer: 1 };
  assert.equal(docHash(plain), docHash(parsePyJson(JSON.stringify(plain)) as Record<string, unknown>));
});
