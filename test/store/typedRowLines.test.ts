/**
 * Rows of any columns written as lines of text and read back by DuckDB (rowLinesTable.ts TypedRowLines): the rescores
 * of `rescore --out` and the viewer's readings. Each value must come back exactly as given.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TypedRowLines } from '../../src/store/rowLinesTable.ts';
import { openRescoreWriterAt } from '../../src/store/writeStore.ts';
import type { ColumnSpec } from '../../src/store/schema.ts';
import { StoreError } from '../../src/errors.ts';
import { queryRows, sqlString } from '../../src/util/duckdb.ts';

const everyControl = Array.from({ length: 32 }, (_, i) => String.fromCharCode(i)).join('');
// Text goes out as it is, or between U+0003 quotes (rowLines.ts textField): the quote itself inside, at either end, alone, doubled.
const TEXTS = ['', 'plain', everyControl, '\ufeffbom', 'a\u0001b\u0002c\n\r"\\', 'é 中文 😀 \u2028', '\u0003', '\u0003\u0003', 'a\u0003b', ' spaces ', '"q"', 'null', '\\N', 'NaN', 'x'.repeat(3_000_000)];
const DOUBLES = [Number.NaN, -0, 0, Infinity, -Infinity, 5e-324, 1.5, -2.25e-7, 0.1, 1e308, null];

test('typed row lines come back value for value: text of every kind (empty, control characters, the quote character, 3 MB), doubles with NaN, -0, ±Infinity and the smallest subnormal, integers, booleans, nulls', async () => {
  const columns: ColumnSpec[] = [
    { name: 'text', type: 'VARCHAR', nullable: true, doc: '' },
    { name: 'x', type: 'DOUBLE', nullable: true, doc: '' },
    { name: 'n', type: 'BIGINT', nullable: true, doc: '' },
    { name: 'b', type: 'BOOLEAN', nullable: true, doc: '' },
  ];
  const lines = new TypedRowLines('test', columns);
  const expected: Record<string, unknown>[] = [];
  // More rows than one megabyte of lines holds, so that the lines are written in several pieces.
  for (let i = 0; i < 40_000; i++) {
    const row = { text: i < TEXTS.length ? TEXTS[i]! : i % 7 === 0 ? null : `row ${i}\t${i % 3 === 0 ? '' : 'é'}`, x: DOUBLES[i % DOUBLES.length]!, n: i % 5 === 0 ? null : i * (i % 2 === 0 ? 1 : -1) * 1_000_003, b: i % 3 === 0 ? null : i % 2 === 0 };
    lines.add([row.text, row.x, row.n, row.b]);
    expected.push(row);
  }
  try {
    const rows = await queryRows<Record<string, unknown>>(lines.select());
    // deepStrictEqual compares numbers with Object.is: NaN equals NaN, -0 differs from 0.
    assert.equal(rows.length, expected.length);
    rows.forEach((row, i) => assert.deepEqual({ ...row, n: row.n === null ? null : Number(row.n) }, expected[i], `row ${i}`));
  } finally {
    lines.abort();
  }
});

test('rescore --out\'s writer: rows checked as they come (a wrong type names its row and column), written to Parquet with the rescoring\'s provenance, the scratch lines removed; an existing file is refused', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'lmaudit-rescores-'));
  try {
    const target = join(dir, 'out', 'rescores.parquet');
    const writer = await openRescoreWriterAt(target);
    const expected = TEXTS.slice(0, -1).flatMap((text, i) => ['exact', 'contains'].map((extractor, k) => ({
      run_id: `run ${i % 2}`, task: 't\u0003', doc_id: `d${i}`, extractor, normalizer: 'strip', extracted: k === 0 ? text : null, value: DOUBLES[(i + k) % DOUBLES.length]!,
    })));
    for (const row of expected) writer.add(row);
    assert.throws(() => writer.add({ ...expected[0]!, value: '1' }), (e: unknown) => e instanceof StoreError && /rescores row 28: column 'value' expects DOUBLE/.test(e.message));
    // A refused row is not written: the next row is row 28 again.
    assert.throws(() => writer.add({ ...expected[0]!, doc_id: null }), (e: unknown) => e instanceof StoreError && /rescores row 28: column 'doc_id' must not be null/.test(e.message));
    assert.equal(await writer.finish('{"created_by": "test"}'), target);
    const rows = await queryRows<Record<string, unknown>>(`SELECT * FROM read_parquet(${sqlString(target)})`);
    assert.deepEqual(rows, expected);
    const [meta] = await queryRows<{ value: string }>(`SELECT decode(value) AS value FROM parquet_kv_metadata(${sqlString(target)}) WHERE decode(key) = 'lmaudit_rescore'`);
    assert.equal(meta!.value, '{"created_by": "test"}');
    // Nothing left beside the file (the staged copy was renamed into place).
    assert.deepEqual(readdirSync(join(dir, 'out')), ['rescores.parquet']);
    await assert.rejects(openRescoreWriterAt(target), /already exists/);
    // An aborted writer leaves no file.
    const other = join(dir, 'other.parquet');
    const aborted = await openRescoreWriterAt(other);
    aborted.add(expected[0]!);
    await aborted.abort();
    assert.equal(existsSync(other), false);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
