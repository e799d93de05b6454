/**
 * Reads one lm-eval run back from the store for as-recorded rescoring: documents with
 * their requests and responses, and the recorded per-sample values in samples-file
 * order (the order lm-eval aggregated and bootstrapped them in).
 */
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { duckSideConnection, forEachRow, limitDuckMemory, queryRows, scratchFolder, sqlString, streamRows } from '../../util/duckdb.ts';
import type { OpenStore } from '../../store/readStore.ts';
import { parseJsonObject } from '../../util/json.ts';
import { HeapBound } from '../../util/heapBound.ts';
import type { DocRecord } from './perItem.ts';

export interface ScoreItem {
  task: string;
  docId: string;
  filter: string;
  metric: string;
  value: number | null;
  valueJson: string;
  metricsList: string[] | null;
  /** The recorded filtered value of the first request, when it is one string (generation tasks). */
  filteredFirst: string | undefined;
}

/** One record of a task as `forEachRecord` streams it: a document under one filter, with its scores and its document. */
export interface TaskRecord {
  /** The document with its requests and responses; null when the store holds no request for it. */
  doc: DocRecord | null;
  /** Its scores under this filter, in metric order. */
  scores: ScoreItem[];
}

/**
 * A task's records of one run in the order lm-eval aggregated them (the samples file's line, then the
 * metric), streamed: only the record in hand lives in JavaScript (loading the run whole held its
 * documents and 1.2 million score objects: 1.3 GiB for 100,000 documents, out of heap at 900,000).
 * Two streams sorted alike, the scores and the documents' request and response rows, are merged here
 * row by row. DuckDB sorts within its memory limit and spills beyond it; an aggregate into lists
 * (one row a document) could not spill, and ran out of memory at 400 MB on 100,000 documents.
 * Each stream is sorted into a scratch Parquet file first, one sort at a time, and the files are read
 * back in order: two sorts held open side by side while the records were scored (DuckDB's memory
 * beside its limit, the rows of both in hand) peaked at 1.4 GiB on the 2.2 GiB file's store.
 */
export async function forEachRecord(
  store: OpenStore,
  runId: string,
  task: string,
  each: (record: TaskRecord) => void,
  { linesAPiece = DOCS_PIECE }: { linesAPiece?: number } = {},
): Promise<void> {
  const where = (alias: string) => `${alias}.run_id = ${sqlString(runId)} AND ${alias}.task = ${sqlString(task)}`;
  // Each record's line (its first), then its metric list and filtered value from the row at that line, by a
  // join: aggregating the texts (an ordered first(), or arg_min) held them all in DuckDB's hash table, which
  // could not spill and ran out of memory on the 2.2 GiB file's 909,854 documents.
  const lines = `SELECT doc_id, filter, min(line) AS line FROM ${store.table('filtered')} f WHERE ${where('f')} GROUP BY doc_id, filter`;
  const rec = `SELECT f.doc_id, f.filter, f.line, f.metrics_json, f.filtered_json
    FROM ${store.table('filtered')} f JOIN (${lines}) m ON m.doc_id = f.doc_id AND m.filter = f.filter AND m.line IS NOT DISTINCT FROM f.line
    WHERE ${where('f')}`;
  // One order for both: a (document, filter) pair is unique, so the tie-breaks make it total.
  const order = 'rec.line NULLS LAST, k.doc_id, k.filter';
  // Every (document, filter) the scores name, with its record's line and values, sorted, in a scratch file.
  const folder = scratchFolder(`as-recorded-${randomBytes(4).toString('hex')}`);
  const scratch = (name: string) => sqlString(join(folder, name));
  const keysFile = scratch('keys.parquet');
  // The scores sort with their line only (a record's metric list and filtered value, 12 copies of them a
  // document, made a sort of 4 GB on the 2.2 GiB file's store): those come once a record with the documents.
  // The line is the keys file's: joined with the lines' aggregate instead, the sort held that aggregate's hash table too.
  const sortedScores = `WITH rec AS (SELECT doc_id, filter, line FROM read_parquet(${keysFile}))
    SELECT k.doc_id, k.filter, k.metric, k.value, k.value_json
    FROM ${store.table('scores')} k LEFT JOIN rec ON rec.doc_id = k.doc_id AND rec.filter = k.filter
    WHERE ${where('k')} ORDER BY ${order}, k.metric`;
  const [{ limit, threads, flush }] = await queryRows<{ limit: string; threads: number; flush: string }>(
    `SELECT current_setting('memory_limit') AS limit, current_setting('threads') AS threads, current_setting('allocator_bulk_deallocation_flush_threshold') AS flush`);
  await limitDuckMemory(RECORD_STREAM_MEMORY);
  await queryRows(`SET allocator_bulk_deallocation_flush_threshold = ${sqlString(RECORD_STREAM_FLUSH)}`);
  // One thread: each of DuckDB's threads holds its own buffers beside the memory limit (the keys' sort peaked at
  // 645 MB on one, 872 on two), and the records' scoring, the most of the work, runs on this thread whatever the count.
  await queryRows(`SET threads = ${RECORD_STREAM_THREADS}`);
  const side = await duckSideConnection();
  try {
    await queryRows(`COPY (WITH rec AS (${rec}), k AS (SELECT DISTINCT doc_id, filter FROM ${store.table('scores')} s WHERE ${where('s')})
      SELECT k.doc_id, k.filter, rec.line, rec.metrics_json, rec.filtered_json FROM k LEFT JOIN rec ON rec.doc_id = k.doc_id AND rec.filter = k.filter
      ORDER BY ${order}) TO ${keysFile} (FORMAT parquet)`);
    const [bounds] = await queryRows<{ low: number | null; high: number | null }>(`SELECT min(line) AS low, max(line) AS high FROM read_parquet(${keysFile})`);
    // The documents in pieces of lines: each piece's keys are few, so the join with the instances holds
    // them and not the instances' texts (joined whole, the 2.2 GiB file's store ran DuckDB out of memory).
    const pieces: string[] = [];
    if (bounds!.low !== null) for (let at = bounds!.low; at <= bounds!.high!; at += linesAPiece) pieces.push(`line >= ${at} AND line < ${at + linesAPiece}`);
    pieces.push('line IS NULL');
    const docsOf = (piece: string) => `SELECT k.doc_id, k.filter, k.metrics_json, k.filtered_json, i.request_idx, i.request_type, i.target, i.choices_json, i.doc_json, i.arg_continuation, r."repeat", r.text, r.logprob, r.is_greedy
      FROM (SELECT * FROM read_parquet(${keysFile}) WHERE ${piece}) k
        LEFT JOIN ${store.table('instances')} i ON i.doc_id = k.doc_id AND ${where('i')}
        LEFT JOIN ${store.table('responses')} r ON r.doc_id = i.doc_id AND r.request_idx = i.request_idx AND ${where('r')}
      ORDER BY k.line, k.doc_id, k.filter, i.request_idx, r."repeat"`;
    await queryRows(`COPY (${sortedScores}) TO ${scratch('scores.parquet')} (FORMAT parquet, ${SCRATCH_PARQUET})`);
    for (const [i, piece] of pieces.entries()) await queryRows(`COPY (${docsOf(piece)}) TO ${scratch(`docs-${i}.parquet`)} (FORMAT parquet, ${SCRATCH_PARQUET})`);
    // Read back in the order written (the connection preserves insertion order): no sort is open while records are scored.
    async function* docs(): AsyncGenerator<DocRow> {
      for (let i = 0; i < pieces.length; i++) yield* streamRows<DocRow>(`SELECT * FROM read_parquet(${scratch(`docs-${i}.parquet`)})`, side);
    }
    const heap = new HeapBound(HEAP_SLACK);
    await mergeRecords(streamRows<ScoreRow>(`SELECT * FROM read_parquet(${scratch('scores.parquet')})`), docs(), task, (record) => {
      each(record);
      heap.check();
    });
  } finally {
    side.closeSync();
    rmSync(folder, { recursive: true, force: true });
    await limitDuckMemory(limit!);
    await queryRows(`SET allocator_bulk_deallocation_flush_threshold = ${sqlString(flush!)}`);
    await queryRows(`SET threads = ${Number(threads)}`);
  }
}

/**
 * How far the JavaScript heap may grow past what it keeps before a full collection is asked for
 * (HeapBound): left to V8, the heap swung between 125 and 465 MB on the 2.2 GiB file's store.
 */
const HEAP_SLACK = 96 << 20;

/**
 * The scratch files' rows a row group: a row group is what DuckDB reads at once, and a document's rows carry its
 * texts (a few KB). Stored uncompressed: they are written and read once, on the same disk as the spill.
 */
const SCRATCH_PARQUET = 'ROW_GROUP_SIZE 8192, COMPRESSION uncompressed';

/** Records' lines a piece of the documents' stream (100,000 a piece peaked 0.2 GB higher on the 2.2 GiB file's store). */
const DOCS_PIECE = 25_000;

/**
 * DuckDB's share of the bound while the records are sorted and stream (the connection's 1 GB, with the rows in
 * hand, peaked at 1.03 GiB; 450 MB on two threads, with each sort's own memory beside it, at 1.16 GiB
 * on the 2.2 GiB file's store, where 250 MB on one thread peaked at 858 MiB).
 */
const RECORD_STREAM_MEMORY = '250MB';
const RECORD_STREAM_THREADS = 1;

/**
 * What DuckDB frees at once, past which its allocator (jemalloc) hands the freed memory back to the system while the
 * records are sorted and stream. At DuckDB's default (512 MB) the memory of each finished sort and join was kept for
 * reuse, outside the memory limit: on the 2.2 GiB file's store the scores' sort held 890-950 MiB and the documents'
 * joins grew from 420 to 820 MiB over their pieces with DuckDB's own count back at 0 after each; at 16 MB the whole
 * stream stayed under 720 MiB (bench/rescore_lmeval.mjs's row for that store gives the peak).
 */
const RECORD_STREAM_FLUSH = '16MB';

interface ScoreRow { doc_id: string; filter: string; metric: string; value: number | null; value_json: string }
interface DocRow {
  doc_id: string; filter: string; metrics_json: string | null; filtered_json: string | null;
  request_idx: number | null; request_type: string; target: string | null; choices_json: string | null; doc_json: string | null; arg_continuation: string | null;
  repeat: number | null; text: string | null; logprob: number | null; is_greedy: boolean | null;
}

/** Joins the two sorted streams: each run of score rows of one (document, filter) with that pair's rows of the other. */
async function mergeRecords(scores: AsyncGenerator<ScoreRow>, docs: AsyncGenerator<DocRow>, task: string, each: (record: TaskRecord) => void): Promise<void> {
  let nextDoc = await docs.next();
  let nextScore = await scores.next();
  while (!nextScore.done) {
    const first = nextScore.value;
    if (nextDoc.done || nextDoc.value.doc_id !== first.doc_id || nextDoc.value.filter !== first.filter) {
      throw new Error(`as-recorded streams out of step at ${task} doc ${first.doc_id} filter ${first.filter}`);
    }
    const metricsList = parseJson(nextDoc.value.metrics_json) as string[] | null;
    const filtered = parseJson(nextDoc.value.filtered_json);
    const head = Array.isArray(filtered) ? filtered[0] : undefined;
    const filteredFirst = typeof head === 'string' ? head : undefined;
    let doc: DocRecord | null = null;
    while (!nextDoc.done && nextDoc.value.doc_id === first.doc_id && nextDoc.value.filter === first.filter) {
      const d = nextDoc.value;
      if (d.request_idx !== null) {
        doc ??= { docId: d.doc_id, requestType: d.request_type, target: d.target, choices: parseJson(d.choices_json) as string[] | null, doc: parseJsonObject(d.doc_json), requests: [] };
        const req = (doc.requests[d.request_idx] ??= { continuation: d.arg_continuation, texts: [], logprobs: [], greedy: [] });
        if (d.repeat !== null) {
          req.texts[d.repeat] = d.text;
          req.logprobs[d.repeat] = d.logprob;
          req.greedy[d.repeat] = d.is_greedy;
        }
      }
      nextDoc = await docs.next();
    }
    const items: ScoreItem[] = [];
    while (!nextScore.done && nextScore.value.doc_id === first.doc_id && nextScore.value.filter === first.filter) {
      const s = nextScore.value;
      items.push({ task, docId: s.doc_id, filter: s.filter, metric: s.metric, value: s.value, valueJson: s.value_json, metricsList, filteredFirst });
      nextScore = await scores.next();
    }
    each({ doc, scores: items });
  }
  await docs.return(undefined);
}

/** The tasks of one run that have scores, in name order. */
export async function scoredTasks(store: OpenStore, runId: string): Promise<string[]> {
  const tasks: string[] = [];
  await forEachRow<{ task: string }>(`SELECT DISTINCT task FROM ${store.table('scores')} WHERE run_id = ${sqlString(runId)} ORDER BY task`, (r) => tasks.push(r.task));
  return tasks;
}

function parseJson(text: string | null): unknown {
  if (text === null) return null;
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

