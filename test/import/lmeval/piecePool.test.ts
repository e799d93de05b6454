import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { importSources } from '../../../src/import/index.ts';
import { PIECE_BYTES } from '../../../src/import/lmeval/samplesFile.ts';
import { stageTable } from '../../../src/store/tableStaging.ts';
import { STORE_TABLES } from '../../../src/store/schema.ts';
import { queryRows } from '../../../src/util/duckdb.ts';
import { fixturePath } from '../../helpers/fixtures.ts';
import { slowOnly } from '../../helpers/slow.ts';

/** Every table's rows and the provenance of an import of `file`, its samples read on `threads` worker threads. */
async function imported(file: string, threads: number, skipBad: boolean) {
  process.env.LMAUDIT_SAMPLES_THREADS = String(threads);
  try {
    const { runs } = await importSources([file], { skipBad, fields: {} });
    const run = runs[0]!;
    const tables: Record<string, unknown[]> = {};
    for (const table of STORE_TABLES) tables[table] = await queryRows(`SELECT * FROM ${(await stageTable(table, run.tables[table]!)).name}`);
    return { tables, provenance: run.provenance, skipped: run.skipped };
  } finally {
    delete process.env.LMAUDIT_SAMPLES_THREADS;
  }
}

// A slow cross-check since the plain suite passed 5 minutes on a slower 2-core machine: .ci/run runs it.
test('a samples file read on worker threads imports exactly as on one thread: pieces joined in order, a document\'s first record across pieces, skipped lines in place', { skip: slowOnly }, async () => {
  // Real truthfulqa_gen records, made distinct, written as lm-eval writes (json.dumps): past four pieces, the
  // documents first under one filter and then again under another (their first records in other pieces).
  const records = readFileSync(fixturePath('lmeval/pr3032-truthfulqa-gen/samples_truthfulqa_gen_2025-05-31T14-30-51.983293.jsonl'), 'utf8').trim().split('\n');
  const docs = Math.ceil((2 * PIECE_BYTES) / records[0]!.length);
  const lines: string[] = [];
  for (const filter of ['none', 'other']) {
    for (let d = 0; d < docs; d++) lines.push(records[d % records.length]!.replace(/^\{"doc_id": \d+/, `{"doc_id": ${d}`).replace('"filter": "none"', `"filter": "${filter}"`));
  }
  // A line no reader can read, near the end: skipped (with --skip-bad) where it is, whichever thread read it.
  lines.splice(lines.length - 5, 0, '{"doc_id": 1, "resps": [[');
  const dir = mkdtempSync(join(tmpdir(), 'lmaudit-pool-'));
  const file = join(dir, 'samples_truthfulqa_gen_2025-05-31T14-30-51.983293.jsonl');
  writeFileSync(file, `${lines.join('\n')}\n`);

  const one = await imported(file, 0, true);
  const two = await imported(file, 2, true);
  assert.equal(one.tables.instances!.length, docs);
  assert.equal(one.tables.filtered!.length, 2 * docs);
  assert.deepEqual(one.skipped, [{ file, line: lines.length - 5, reason: 'malformed JSON at character 25: unexpected end of input' }]);
  assert.deepEqual(two, one);
  // Without --skip-bad the line stops the import, named, on either path.
  for (const threads of [0, 2]) {
    await assert.rejects(imported(file, threads, false), /line \d+: malformed JSON/);
  }
});
