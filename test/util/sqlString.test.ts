/**
 * sqlString on texts DuckDB's parser would cut short: a NUL ends a query's text there, so an output or a gold holding
 * one made `rescore` fail with an internal error ("unterminated quoted string"). Spelt with chr(0), the literal is the
 * text itself, read back byte for byte; and a rescore of such records scores them (2 of 8 equal their golds, by hand).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { queryRows } from '../../src/util/duckdb.ts';
import { sqlString } from '../../src/util/sqlText.ts';
import { runCli } from '../helpers/cli.ts';

test('a text with NULs and quotes round-trips through sqlString', async () => {
  for (const text of ['plain', "it's", 'a\0b', '\0', "\0'\0", 'end\0', '']) {
    const [row] = await queryRows<{ x: string }>(`SELECT ${sqlString(text)} AS x`);
    assert.equal(row!.x, text, JSON.stringify(text));
  }
});

test('rescore scores outputs and golds that hold a NUL', () => {
  const dir = mkdtempSync(join(tmpdir(), 'lmaudit-nul-'));
  const file = join(dir, 'nul.jsonl');
  // Output i is "ans\0wer i", its gold "ans\0wer (i mod 2)": items 0 and 1 are right.
  writeFileSync(file, Array.from({ length: 8 }, (_, i) => JSON.stringify({ doc_id: String(i), task: 't', input: `Q${i}?`, output: `ans\0wer ${i}`, target: `ans\0wer ${i % 2}` })).join('\n') + '\n');
  const r = runCli(['rescore', file, '--extractors', 'exact', '--normalizers', 'strip', '--aggregations', 'micro', '--json']);
  assert.equal(r.status, 0, r.stderr);
  const cell = (JSON.parse(r.stdout) as { cells: { n: number; correct: number }[] }).cells[0]!;
  assert.deepEqual([cell.n, cell.correct], [8, 2]);
});
