import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtemp, open, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { forEachSampleLine } from '../../../src/import/lmeval/sampleLine.ts';
import { openRowRunStager } from '../../../src/store/rowRunStager.ts';
import { PART_ROWS } from '../../../src/store/partedTable.ts';
import { stageTable } from '../../../src/store/writeStore.ts';
import { queryRows } from '../../../src/util/duckdb.ts';

// readLines reads a file 1 MiB at a time (src/util/lines.ts CHUNK); a Linux pipe holds 64 KiB (pipe(7)).
const READ_CHUNK = 1 << 20;
const PIPE_CAPACITY = 1 << 16;

test('a samples file is read as it streams: a record is handed on before more than one read chunk, the pipe and one line of the file after it have been written', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'lmaudit-stream-'));
  // A named pipe: the writer can only be ahead of the reader by what the reader has taken in and not yet handed on.
  const fifo = join(dir, 'samples_stream_2025-01-01T00-00-00.000000.jsonl');
  assert.equal(spawnSync('mkfifo', [fifo]).status, 0);
  const lineOf = (i: number) =>
    `${JSON.stringify({ doc_id: i, resps: [[`answer ${i} ${'x'.repeat(2000)}`]], filtered_resps: [`answer ${i}`], filter: 'none', metrics: ['acc'], acc: i % 2 })}\n`;
  const records = 4000; // about 8 MiB: eight read chunks
  const lineBytes = Buffer.byteLength(lineOf(records - 1));
  let written = 0;
  const writer = (async () => {
    const handle = await open(fifo, 'w');
    for (let i = 0; i < records; i++) {
      const text = lineOf(i);
      await handle.write(text);
      written += Buffer.byteLength(text);
    }
    await handle.close();
  })();
  let consumed = 0;
  let handed = 0;
  let mostAhead = 0;
  try {
    await forEachSampleLine({ path: fifo, name: 'samples_stream.jsonl', head: '{', explicit: true }, { skipBad: false, fields: {} }, [], (line) => {
      assert.equal(line.docId, String(handed));
      handed++;
      consumed += Buffer.byteLength(lineOf(line.line - 1));
      mostAhead = Math.max(mostAhead, written - consumed);
    });
    await writer;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  assert.equal(handed, records);
  // Reading the whole file before handing on its first record would put the writer 8 MiB ahead.
  assert.ok(mostAhead <= READ_CHUNK + PIPE_CAPACITY + lineBytes, `the writer got ${mostAhead} bytes ahead of the records handed on`);
});

test('score runs packed into one row each come back row for row, across parts: separators inside names, every control character taken, NaN, -0, ±Infinity, null and empty text', async () => {
  const stager = await openRowRunStager('scores', ['run_id', 'task', 'doc_id', 'filter']);
  const everyControl = Array.from({ length: 31 }, (_, i) => String.fromCharCode(i + 1)).join('');
  const runs: { shared: [string, string, string, string]; metrics: string[]; values: (number | null)[]; valueJsons: string[] }[] = [
    { shared: ['r', 't', '0', 'none'], metrics: ['acc', 'we\u001fird', ''], values: [Number.NaN, -0, null], valueJsons: ['NaN', '-0.0', '""'] },
    { shared: ['r', 't', '1', 'none'], metrics: [], values: [], valueJsons: [] },
    { shared: ['r', 't', '2', 'strict'], metrics: [everyControl, `x${everyControl}`], values: [Infinity, -Infinity], valueJsons: ['Infinity', '-Infinity'] },
    { shared: ['r', 't', '3', 'none'], metrics: ['f1'], values: [5e-324], valueJsons: ['5e-324'] },
  ];
  // Then enough runs to fill two parts and start a third, each part written as the next fills.
  for (let d = 4; d < 4 + 2 * PART_ROWS + 1; d++) runs.push({ shared: ['r', 't', String(d), 'none'], metrics: ['acc', 'f1'], values: [d % 2, d / 7], valueJsons: [String(d % 2), String(d / 7)] });
  for (const run of runs) {
    stager.add(run.shared, [run.metrics, run.values, run.valueJsons]);
    if (stager.parted.due) await stager.parted.rotate();
  }
  const staged = await stageTable('scores', await stager.parted.finish());
  const rows = await queryRows<Record<string, unknown>>(`SELECT * FROM ${staged.withRowNumber} ORDER BY file_row_number`);
  const expected = runs.flatMap(({ shared: [run_id, task, doc_id, filter], metrics, values, valueJsons }) =>
    metrics.map((metric, i) => ({ run_id, task, doc_id, filter, metric, value: values[i], value_json: valueJsons[i] })));
  assert.deepEqual(rows.map((r) => r.file_row_number), expected.map((_, i) => i));
  // deepStrictEqual compares numbers with Object.is: NaN equals NaN, -0 differs from 0.
  assert.deepEqual(rows.map(({ file_row_number: _, ...rest }) => rest), expected);
});
