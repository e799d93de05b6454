import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtemp, open, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ChunkProcessor } from '../../../src/import/lmeval/samplesChunk.ts';
import { PIECE_BYTES, readSamplesFile } from '../../../src/import/lmeval/samplesFile.ts';
import { encodeRow, encodeScoreRun } from '../../../src/store/rowLines.ts';
import { encodeInstanceRows } from '../../../src/store/instanceLines.ts';
import { RowLinesTable } from '../../../src/store/rowLinesTable.ts';
import { stageTable } from '../../../src/store/tableStaging.ts';
import { queryRows } from '../../../src/util/duckdb.ts';

// samplesFile.ts reads a piece at a time; a Linux pipe holds 64 KiB (pipe(7)).
const PIPE_CAPACITY = 1 << 16;

test('a samples file is read as it streams: a record is joined before more than one piece, the pipe and a line of the file after it are written', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'lmaudit-stream-'));
  // A named pipe: the writer can only be ahead of the reader by what the reader has taken in and not yet joined.
  const fifo = join(dir, 'samples_stream_2025-01-01T00-00-00.000000.jsonl');
  assert.equal(spawnSync('mkfifo', [fifo]).status, 0);
  const lineOf = (i: number) =>
    `${JSON.stringify({ doc_id: i, resps: [[`answer ${i} ${'x'.repeat(2000)}`]], filtered_resps: [`answer ${i}`], filter: 'none', metrics: ['acc'], acc: i % 2 })}\n`;
  const records = 8000; // about 16 MiB: four pieces
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
  let joined = 0;
  let mostAhead = 0;
  try {
    const job = { file: fifo, task: 'stream', requestType: 'generate_until' as const, targetDelimiter: null, skipBad: false };
    await readSamplesFile({ path: fifo, name: 'samples_stream.jsonl', head: '{', explicit: true }, job, new ChunkProcessor(), null, (result) => {
      for (let i = 0; i < result.records; i++) {
        assert.equal(result.docId[i], String(joined));
        joined++;
        consumed += Buffer.byteLength(lineOf(result.line[i]! - 1));
      }
      mostAhead = Math.max(mostAhead, written - consumed);
    });
    await writer;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  assert.equal(joined, records);
  // Reading the whole file before joining its first record would put the writer 16 MiB ahead.
  assert.ok(mostAhead <= PIECE_BYTES + PIPE_CAPACITY + lineBytes, `the writer got ${mostAhead} bytes ahead of the records joined`);
});

test('rows written as lines come back value for value: text of every kind, JSON text, doubles with NaN, -0 and ±Infinity, nulls, and a line over DuckDB\'s default bound', async () => {
  const everyControl = Array.from({ length: 32 }, (_, i) => String.fromCharCode(i)).join('');
  // Text goes out as it is, or between U+0003 quotes (rowLines.ts textField): the quote itself inside, at either end, alone, doubled.
  const texts = ['', 'plain', everyControl, '\ufeffbom', 'a\u0001b\u0002c\n\r"\\', 'é 中文 😀 \u2028', 'lone \ud800 surrogate', 'x'.repeat(3_000_000),
    '\u0003', '\u0003\u0003', 'a\u0003b', '\u0003 leading', 'trailing \u0003', ' spaces around ', '"quoted"', 'null', '\\N', ',;\t|'];
  const table = new RowLinesTable('responses');
  const expected: Record<string, unknown>[] = [];
  texts.forEach((text, i) => {
    const row = {
      // The file's first field begins with a byte order mark, which a CSV reader would take for the file's.
      run_id: 'run-1', task: i === 0 ? '\ufeffa task' : 't', doc_id: i === 1 ? 'id \u0003"\n' : String(i), request_idx: i, repeat: 0, text,
      logprob: [Number.NaN, -0, Infinity, -Infinity, 5e-324, 1.5, -2.25e-7, null][i % 8]!,
      is_greedy: i % 3 === 0 ? null : i % 2 === 0, finish_reason: null, tokens_in: i, tokens_out: null, latency_ms: null, attempt: null, from_cache: null, error: null,
    };
    const line = encodeRow('responses', row, i);
    table.append(line, line.length, 1);
    // DuckDB stores UTF-8: a lone surrogate is stored as U+FFFD, as its appender stored it.
    expected.push({ ...row, text: text.replace('\ud800', '\ufffd') });
  });
  const staged = await stageTable('responses', table.finish('run-1'));
  const rows = await queryRows<Record<string, unknown>>(`SELECT * FROM ${staged.name}`);
  // deepStrictEqual compares numbers with Object.is: NaN equals NaN, -0 differs from 0.
  assert.deepEqual(rows, expected);
});

test('score runs packed into one line each come back row for row: names that need escaping, values read from their recorded number or given, null, NaN, -0, and a record without scores', async () => {
  const table = new RowLinesTable('scores');
  const runs: { shared: [string, string, string, string]; metrics: string[]; values: (number | null)[]; valueJsons: string[] }[] = [
    { shared: ['run-1', '\ufeffT\u0003', '0\n', ''], metrics: ['acc', 'we\u0002ird\u0001\u0003', '', '"quoted"', 'a "b"', '\\"', 'lone \ud800'], values: [Number.NaN, -0, null, 1, 2, 3, 4], valueJsons: ['NaN', '-0.0', '""', '1', '2', '3', '4'] },
    { shared: ['run-1', 't', '1', 'none'], metrics: [], values: [], valueJsons: [] },
    { shared: ['run-1', 't', '2', 'strict'], metrics: ['f1', 'em', 'x'], values: [Infinity, 1, 1], valueJsons: ['Infinity', '"True"', 'true'] },
    { shared: ['run-1', 't', '3', 'none'], metrics: ['f1', 'field:extra'], values: [5e-324, null], valueJsons: ['5e-324', '7'] },
    { shared: ['run-1', 't', '4', 'none'], metrics: ['acc'], values: [0.1], valueJsons: ['0.1000000000000000055511151231257827021181583404541015625'] },
  ];
  for (let d = 5; d < 2000; d++) runs.push({ shared: ['run-1', 't', String(d), 'none'], metrics: ['acc', 'f1'], values: [d % 2, d / 7], valueJsons: [String(d % 2), String(d / 7)] });
  for (const run of runs) {
    const line = encodeScoreRun(run);
    table.append(line, line.length, run.metrics.length);
  }
  const staged = await stageTable('scores', table.finish('run-1'));
  const rows = await queryRows<Record<string, unknown>>(`SELECT * FROM ${staged.name}`);
  const expected = runs.flatMap(({ shared: [run_id, task, doc_id, filter], metrics, values, valueJsons }) =>
    metrics.map((metric, i) => ({ run_id, task, doc_id, filter, metric: metric.replace('\ud800', '\ufffd'), value: values[i], value_json: valueJsons[i] })));
  assert.deepEqual(rows, expected);
});

test('a document\'s requests written as one instances line (shared prompt) or a line each come back row for row: continuations that need escaping, nulls, JSON-text settings, response text', async () => {
  const table = new RowLinesTable('instances');
  const everyControl = Array.from({ length: 32 }, (_, i) => String.fromCharCode(i)).join('');
  const doc = (i: number) => ({ run_id: 'run-1', task: '\ufeffT\u0003', doc_id: `d${i}\n`, group: null, request_type: 'loglikelihood', doc_json: `{"q": ${i}}`, doc_hash: 'h'.repeat(64), prompt_hash: null, target: 'A', choices_json: '["a", "b"]', fewshot_doc_ids: null });
  const row = (i: number, idx: number, extra: Record<string, unknown>) => ({ ...doc(i), request_idx: idx, arg_context: 'Q:\n"x" é 😀 \u0003', arg_continuation: null, gen_kwargs_json: null, response_text: null, ...extra });
  const continuations = ['', ' plain', everyControl, '"quoted"', '\u0002', 'lone \ud800', '\\N', ' 中文', 'null'];
  const documents: Record<string, unknown>[][] = [
    // One line: every request shares the document and the prompt.
    continuations.map((c, idx) => row(0, idx, { arg_continuation: c })),
    [row(1, 0, { arg_continuation: null, gen_kwargs_json: '{"until": ["\\n"]}', response_text: 'said "x"\n' }), row(1, 1, { arg_continuation: ' b', gen_kwargs_json: '"text"', response_text: '' })],
    // A line each: the prompts differ (winogrande), a generation's requests, a null prompt, request numbers with a gap.
    [row(2, 0, { arg_context: 'one' }), row(2, 1, { arg_context: 'two' })],
    [row(3, 0, { request_type: 'generate_until', response_text: 'a' }), row(3, 1, { request_type: 'generate_until', response_text: everyControl })],
    [row(4, 0, { arg_context: null }), row(4, 1, { arg_context: null })],
    [row(5, 0, {}), row(5, 2, {})],
    [row(6, 0, { arg_continuation: ' only' })],
  ];
  const shared: boolean[] = [];
  documents.forEach((rows, i) => {
    const lines = encodeInstanceRows(rows, i);
    // The document's JSON is written once a line.
    shared.push(lines.split(`{"q": ${i}}`).length - 1 === 1 && rows.length > 1);
    table.append(lines, lines.length, rows.length);
  });
  assert.deepEqual(shared, [true, true, false, false, false, false, false]);
  const staged = await stageTable('instances', table.finish('run-1'));
  const rows = await queryRows<Record<string, unknown>>(`SELECT * FROM ${staged.name}`);
  const stored = (v: unknown) => (typeof v === 'string' ? v.replace('\ud800', '\ufffd') : v);
  const expected = documents.flat().map((r) => Object.fromEntries(Object.keys(rows[0]!).map((k) => [k, stored(r[k as keyof typeof r])])));
  assert.deepEqual(rows, expected);
});
