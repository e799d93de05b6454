/**
 * Issue 15 §4, peak memory under 1 GiB whatever the file size: DuckDB's Parquet writer holds a
 * whole row group of a table in memory (outside its memory limit) before it compresses it. At
 * DuckDB's default of 122,880 rows a group of lm-eval instances (each with its document and
 * prompt, a few KB) was some 400 MB, and importing the bench's 248 MiB samples file peaked at
 * 1.10 GiB, all of it at the write; groups of 16,384 rows peaked at 0.92 GiB (`npm run bench`).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeStore } from '../../src/store/writeStore.ts';
import { queryRows, sqlString } from '../../src/util/duckdb.ts';
import { SCHEMA_VERSION, emptyRunProvenance, type StoreManifest } from '../../src/store/schema.ts';

const manifest: StoreManifest = {
  schema_version: SCHEMA_VERSION,
  created_by: 'test',
  runs: [emptyRunProvenance({ run_id: 'r1', label: 'x', source_kind: 'generic', source_format: 'jsonl' })],
};

test('every table is written in row groups of at most 16,384 rows (the Parquet writer holds one group in memory)', async () => {
  const dir = join(await mkdtemp(join(tmpdir(), 'lmaudit-')), 'store');
  const rows = 40_000;
  const sql = `SELECT 'r1' AS run_id, 't' AS task, CAST(i AS VARCHAR) AS doc_id, 'none' AS filter, 'acc' AS metric, 1.0 AS value, '1.0' AS value_json FROM range(${rows}) t(i)`;
  await writeStore(dir, manifest, { scores: { sql } });
  const groups = await queryRows<{ n: number }>(`SELECT row_group_num_rows AS n FROM parquet_metadata(${sqlString(join(dir, 'scores.parquet'))}) GROUP BY row_group_id, row_group_num_rows ORDER BY row_group_id`);
  assert.equal(groups.reduce((s, g) => s + g.n, 0), rows);
  assert.ok(groups.every((g) => g.n <= 16_384), `row groups of ${groups.map((g) => g.n).join(', ')} rows`);
});
