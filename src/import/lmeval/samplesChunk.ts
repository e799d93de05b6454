/**
 * A piece of a samples file (whole lines) turned into what the import keeps of it: the
 * store rows as lines of text (store/rowLines.ts) and, per record, what the checks across
 * records need (its ids, metric list, check outcome, facts). Nothing here depends on the
 * records of other pieces, so pieces can be read on worker threads and their results
 * joined in file order (samplesLedger.ts): which record is its document's first, the
 * one-task rules and the checks across records are decided there.
 *
 * Lines are read as util/lines.ts reads them (a trailing CR and line 1's byte order mark
 * dropped, invalid UTF-8 refused or skipped, blank lines passed over). A line that is
 * exactly json.dumps output (how lm-eval writes) is read through a canonical view of its
 * text; any other line, and any line holding a control byte, by the exact reader.
 */
import { isAscii, isUtf8 } from 'node:buffer';
import { BadInputError } from '../../errors.ts';
import { CanonicalTokens, controlBytePositions } from '../../py/canonicalJson.ts';
import { parseOrdered, type PyNode } from '../../py/orderedJson.ts';
import { encodeRow, encodeScoreRun } from '../../store/rowLines.ts';
import { encodeInstanceRows } from '../../store/instanceLines.ts';
import { firstInvalidUtf8, invalidUtf8Message } from '../../util/utf8.ts';
import { metricsKeyOf, recordCheck } from './checks.ts';
import { kindName, toSampleLine, type SampleLine } from './sampleLine.ts';
import { documentRows, filteredRow, inferRequestType, scoreRun, type TaskContext } from './sampleRows.ts';
import { CanonicalMemo } from './canonicalMemo.ts';
import { readCanonicalRecord } from './canonicalRecord.ts';
import type { RecordParts } from './recordParts.ts';
import { EMPTY, listOfAny, ROWS_FIRST_BYTES, RowBytes } from './rowBytes.ts';
import type { ChunkJob, ChunkResult } from './chunkResult.ts';

/**
 * Reads pieces of samples files. It remembers, per file, the documents whose rows it has
 * made: a record of one of those is not its document's first, and its rows are not made again.
 */
export class ChunkProcessor {
  private readonly docsSeen = new Map<string, Set<string>>();
  /** One token table for every line read (its arrays are reused). */
  private readonly tokens = new CanonicalTokens();
  /**
   * One memo a task and request type for every piece: made again each piece, its first objects (a metric
   * list's) changed the field types V8 had compiled the reading for, and the reading was compiled again.
   */
  private readonly memos = new Map<string, CanonicalMemo>();

  process(job: ChunkJob): ChunkResult {
    return new ChunkReading(job, this.seenIn(job.file), job.lines, this.tokens, this).run();
  }

  /** Records already read as JSON values (a samples file written as one JSON array), each with its line. */
  processNodes(job: Omit<ChunkJob, 'bytes' | 'firstLine' | 'lines'>, items: readonly { node: PyNode; line: number }[]): ChunkResult {
    const reading = new ChunkReading({ ...job, bytes: new Uint8Array(0), firstLine: items[0]?.line ?? 1, lines: items.length }, this.seenIn(job.file), items.length, this.tokens, this);
    for (const { node, line } of items) if (!reading.node(node, line)) break;
    return reading.result();
  }

  memoFor(task: string, type: CanonicalMemo['requestType']): CanonicalMemo {
    const key = `${type}\u0000${task}`;
    let memo = this.memos.get(key);
    if (memo === undefined) this.memos.set(key, (memo = new CanonicalMemo(task, type)));
    return memo;
  }

  private seenIn(file: string): Set<string> {
    let seen = this.docsSeen.get(file);
    if (seen === undefined) this.docsSeen.set(file, (seen = new Set()));
    return seen;
  }
}

class ChunkReading {
  private readonly out: ChunkResult;
  private readonly ctx: TaskContext;
  private readonly metricsKeyIndex = new Map<string, number>();
  private readonly genKeyIndex = new Map<string, number>();
  private readonly extras = new Set<string>();
  private readonly filters = new Set<string>();
  private readonly metrics = new Set<string>();
  private lastMetricNames: readonly string[] = [];
  private memo: CanonicalMemo | null = null;
  private readonly tokens: CanonicalTokens;
  private readonly instances: RowBytes;
  private readonly responses: RowBytes;
  private readonly scores: RowBytes;
  private readonly filtered: RowBytes;
  private readonly hashes: RowBytes;
  /** Memory not yet written into: the job's spares, then what rows outgrew. */
  private readonly spare: ArrayBuffer[];

  /** `most`: the most records the piece can hold (one per line), the size of its typed columns. */
  constructor(
    private readonly job: ChunkJob,
    private readonly seen: Set<string>,
    most: number,
    tokens: CanonicalTokens,
    private readonly processor: ChunkProcessor,
  ) {
    this.tokens = tokens;
    this.spare = [...(job.spare ?? [])];
    this.instances = new RowBytes(this);
    this.responses = new RowBytes(this);
    this.scores = new RowBytes(this);
    this.filtered = new RowBytes(this);
    this.hashes = new RowBytes(this);
    // Rows leave run_id out (rowLines.ts): the run's id is known once all its files are read.
    this.ctx = { runId: '', task: job.task, requestType: job.requestType ?? 'unknown', targetDelimiter: job.targetDelimiter };
    this.out = {
      requestType: job.requestType, firstShape: null, records: 0, canonicalRecords: 0,
      line: new Int32Array(most), docId: listOfAny(), filter: listOfAny(), metricsKeyId: new Int32Array(most), metricsKeys: listOfAny(), respsDigest: listOfAny(),
      docHashState: new Uint8Array(most), docBad: listOfAny(), promptBad: listOfAny(), targetBad: listOfAny(), hashes: EMPTY, hashesBroken: false,
      extrasSeen: [], filtersSeen: [], metricsSeen: [],
      genKeyId: new Int32Array(most), genKeys: listOfAny(), maxRepeats: new Int32Array(most), emptyAnswers: new Int32Array(most),
      instances: EMPTY, instancesEnd: new Int32Array(most), instancesLongest: 0, responses: EMPTY, responsesEnd: new Int32Array(most), responsesLongest: 0,
      rowCounts: { instances: new Int32Array(most), responses: new Int32Array(most) }, rowsMade: new Uint8Array(most),
      rowErrors: listOfAny(), scores: EMPTY, scoresLongest: 0, filtered: EMPTY, filteredLongest: 0, skipped: listOfAny(), error: null, spent: [],
    };
  }

  run(): ChunkResult {
    const { bytes, firstLine } = this.job;
    const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length);
    // A piece all ASCII (most are) is read and its rows written as one byte a character, without UTF-8's work.
    const ascii = isAscii(buffer);
    const valid = ascii || isUtf8(buffer);
    let line = firstLine;
    let start = 0;
    // Control bytes other than the newline that ends the line (and a CR just before it) send the line to the exact reader.
    let controls = 0;
    let lastControl = -1;
    const finishLine = (end: number): boolean => {
      let stop = end;
      if (stop > start && buffer[stop - 1] === 13) stop--;
      const clean = controls === 0 || (controls === 1 && lastControl === stop);
      const from = line === 1 && buffer[start] === 0xef && buffer[start + 1] === 0xbb && buffer[start + 2] === 0xbf ? start + 3 : start;
      const go = this.line(buffer, from, stop, line, clean, valid, ascii);
      line++;
      start = end + 1;
      controls = 0;
      return go;
    };
    for (const p of controlBytePositions(buffer, 0, buffer.length)) {
      if (buffer[p] === 10) {
        if (!finishLine(p)) return this.result();
      } else {
        controls++;
        lastControl = p;
      }
    }
    if (start < buffer.length) finishLine(buffer.length);
    return this.result();
  }

  /** One line; false when it stops the piece. */
  private line(buffer: Buffer, start: number, end: number, line: number, clean: boolean, valid: boolean, ascii: boolean): boolean {
    const { file } = this.job;
    if (!valid) {
      const bad = firstInvalidUtf8(buffer.subarray(start, end));
      if (bad !== null) return this.refuse(invalidUtf8Message(buffer.subarray(start, end), bad), line, undefined, false);
    }
    const text = buffer.toString(ascii ? 'latin1' : 'utf8', start, end);
    if (text.trim() === '') return true;
    // A line exactly as json.dumps writes it, of the shape lm-eval writes, is read from its text; any other by the exact reader.
    const memo = clean && this.job.referenceOnly !== true ? this.canonicalMemo() : null;
    if (memo !== null && this.tokens.read(text)) {
      const parts = readCanonicalRecord(this.tokens, file, line, this.ctx, memo);
      if (parts !== null) {
        this.out.canonicalRecords++;
        // A canonical record's row text is its line's text, the memo's, and strings decoded from the line: ASCII when the
        // line is, as json.dumps (ensure_ascii=False, lm-eval's) escapes no character past U+007F, and a line that does is
        // not canonical (canonicalJson.ts).
        this.addParts(parts, ascii && memo.ascii);
        return true;
      }
    }
    let node: PyNode;
    try {
      node = parseOrdered(text, { file, line });
    } catch (error) {
      if (!(error instanceof BadInputError)) throw error;
      return this.refuse(error.detail, line, undefined, false);
    }
    return this.node(node, line);
  }

  /** A record the exact reader read; false when it stops the piece. */
  node(node: PyNode, line: number): boolean {
    const { file } = this.job;
    return this.sample(() => {
      if (node.k !== 'obj') throw new BadInputError(`expected a JSON object, got ${kindName(node)}`, { file, line });
      return toSampleLine(node, file, line);
    }, line);
  }

  private sample(read: () => SampleLine, line: number): boolean {
    let sample: SampleLine;
    try {
      sample = read();
    } catch (error) {
      if (!(error instanceof BadInputError)) throw error;
      return this.refuse(error.detail, line, error.where.field, true);
    }
    this.record(sample);
    return true;
  }

  /**
   * A line that cannot be read: skipped with --skip-bad (a record that breaks the format with
   * its field named, as the skipped list shows it), else the piece stops there.
   */
  private refuse(detail: string, line: number, field: string | undefined, isRecord: boolean): boolean {
    if (this.job.skipBad) {
      this.out.skipped.push(isRecord ? { file: this.job.file, line, field, reason: detail } : { file: this.job.file, line, reason: detail });
      return true;
    }
    this.out.error = { detail, line, field };
    return false;
  }

  /** What canonical records of this piece share, once the request type is one canonicalRecord.ts reads; else null. */
  private canonicalMemo(): CanonicalMemo | null {
    const type = this.out.requestType;
    if (type !== 'generate_until' && type !== 'loglikelihood') return null;
    return (this.memo ??= this.processor.memoFor(this.job.task, type));
  }

  /** A record of the reference reading. */
  private record(l: SampleLine): void {
    const out = this.out;
    if (out.requestType === null) {
      out.requestType = inferRequestType(l);
      this.ctx.requestType = out.requestType;
    }
    const index = out.records;
    const ctx = this.ctx;
    const check = recordCheck(l);
    const gen: string[] = [];
    for (const r of l.requests) if (r.genKwargsJson !== null) gen.push(r.genKwargsJson);
    let maxRepeats = 0;
    let empty = 0;
    for (const reps of l.resps) {
      maxRepeats = Math.max(maxRepeats, reps.length);
      if (ctx.requestType === 'generate_until') empty += reps.filter((r) => r.k === 'str' && r.v === '').length;
    }
    this.addParts({
      line: l.line,
      docId: l.docId,
      filter: l.filter,
      metricsKey: metricsKeyOf(l),
      filtered: [encodeRow('filtered', filteredRow(ctx, l), index)],
      scores: [encodeScoreRun(scoreRun(ctx, l))],
      documentRows: () => {
        const rows = documentRows(ctx, l);
        return {
          instances: [encodeInstanceRows(rows.instances, index)],
          responses: rows.responses.map((row) => encodeRow('responses', row, index)),
          instanceRows: rows.instances.length,
          responseRows: rows.responses.length,
        };
      },
      respsDigest: check.respsDigest,
      docHashState: check.docChecked ? 1 : check.unhashed ? 2 : 0,
      docBad: check.docBad,
      promptBad: check.promptBad,
      targetBad: check.targetBad,
      hashes: check.hashes,
      extras: l.extras.map(([k]) => k),
      metricNames: l.metricValues.map(([m]) => m),
      genKey: JSON.stringify(gen),
      maxRepeats,
      emptyAnswers: empty,
      shape: { arguments: l.requests[0]?.shape ?? null, hashes: l.docHash !== null, filterKey: l.filter !== null },
    });
  }

  /** `ascii`: every row text is ASCII, so it is written one byte a character. */
  private addParts(p: RecordParts, ascii = false): void {
    const out = this.out;
    const i = out.records++;
    if (i === 0) out.firstShape = p.shape;
    out.line[i] = p.line;
    out.docId.push(p.docId);
    out.filter.push(p.filter);
    out.metricsKeyId[i] = p.metricsKey === null ? -1 : intern(p.metricsKey, this.metricsKeyIndex, out.metricsKeys);
    out.filteredLongest = Math.max(out.filteredLongest, this.filtered.add(p.filtered, ascii));
    out.scoresLongest = Math.max(out.scoresLongest, this.scores.add(p.scores, ascii));
    if (!this.seen.has(p.docId)) {
      this.seen.add(p.docId);
      out.rowsMade[i] = 1;
      try {
        const rows = p.documentRows();
        out.instancesLongest = Math.max(out.instancesLongest, this.instances.add(rows.instances, ascii));
        out.responsesLongest = Math.max(out.responsesLongest, this.responses.add(rows.responses, ascii));
        out.rowCounts.instances[i] = rows.instanceRows;
        out.rowCounts.responses[i] = rows.responseRows;
      } catch (error) {
        if (!(error instanceof BadInputError)) throw error;
        out.rowErrors.push({ record: i, detail: error.detail, field: error.where.field });
      }
    }
    out.instancesEnd[i] = this.instances.length;
    out.responsesEnd[i] = this.responses.length;
    out.respsDigest.push(p.respsDigest);
    out.docHashState[i] = p.docHashState;
    if (p.docBad !== null) out.docBad.push(p.docBad);
    if (p.promptBad !== null) out.promptBad.push(p.promptBad);
    if (p.targetBad !== null) out.targetBad.push(p.targetBad);
    if (p.hashes === null) out.hashesBroken = true;
    else if (!out.hashesBroken) this.hashes.add([p.hashes], ascii);
    for (const k of p.extras) this.extras.add(k);
    this.filters.add(p.filter ?? 'none');
    // A canonical record's metric names are its memo's list, the same array record after record.
    if (p.metricNames !== this.lastMetricNames) {
      for (const m of p.metricNames) this.metrics.add(m);
      this.lastMetricNames = p.metricNames;
    }
    out.genKeyId[i] = intern(p.genKey, this.genKeyIndex, out.genKeys);
    out.maxRepeats[i] = p.maxRepeats;
    out.emptyAnswers[i] = p.emptyAnswers;
  }

  /** A buffer of at least `bytes` for rows: a spare, else new (memory the kernel maps as it is first written). */
  memory(bytes: number): Buffer {
    const i = this.spare.findIndex((b) => b.byteLength >= bytes);
    if (i >= 0) return Buffer.from(this.spare.splice(i, 1)[0]!);
    return Buffer.allocUnsafeSlow(Math.max(bytes, ROWS_FIRST_BYTES));
  }

  /**
   * The piece's result: a new object, the typed columns cut to the records read. Writing the cut columns
   * back into `out` instead changed its fields' kinds once the first piece ended, and V8 compiled the
   * reading of the records again.
   */
  result(): ChunkResult {
    const out = this.out;
    const n = out.records;
    for (const t of [this.instances, this.responses, this.scores, this.filtered, this.hashes]) this.spare.push(...t.outgrown);
    const { bytes } = this.job;
    // The piece's own memory (not a view of Node's shared pool) is read and can be written again.
    if (bytes.byteOffset === 0 && bytes.buffer.byteLength >= 1 << 16) this.spare.push(bytes.buffer as ArrayBuffer);
    return {
      ...out,
      line: out.line.slice(0, n),
      metricsKeyId: out.metricsKeyId.slice(0, n),
      docHashState: out.docHashState.slice(0, n),
      rowsMade: out.rowsMade.slice(0, n),
      genKeyId: out.genKeyId.slice(0, n),
      maxRepeats: out.maxRepeats.slice(0, n),
      emptyAnswers: out.emptyAnswers.slice(0, n),
      instancesEnd: out.instancesEnd.slice(0, n),
      responsesEnd: out.responsesEnd.slice(0, n),
      rowCounts: { instances: out.rowCounts.instances.slice(0, n), responses: out.rowCounts.responses.slice(0, n) },
      instances: this.instances.bytes(),
      responses: this.responses.bytes(),
      scores: this.scores.bytes(),
      filtered: this.filtered.bytes(),
      hashes: this.hashes.bytes(),
      spent: this.spare,
      extrasSeen: [...this.extras],
      filtersSeen: [...this.filters],
      metricsSeen: [...this.metrics],
    };
  }
}

function intern(key: string, index: Map<string, number>, table: string[]): number {
  let id = index.get(key);
  if (id === undefined) {
    id = table.length;
    table.push(key);
    index.set(key, id);
  }
  return id;
}

