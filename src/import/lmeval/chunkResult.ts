/**
 * What crosses between the thread that reads a samples file and the threads that read its pieces
 * (piecePool.ts): a piece to read (ChunkJob) and what it gave (ChunkResult), made by samplesChunk.ts
 * and joined in file order by samplesLedger.ts.
 */
import type { SkippedRecord } from '../types.ts';
import type { RecordShape } from './recordParts.ts';
import type { RequestType } from './sampleRows.ts';

export interface ChunkJob {
  /** Whole lines of the file (the file's last piece may end without a newline). */
  bytes: Uint8Array;
  /** The 1-based number of the piece's first line, and how many lines the piece holds. */
  firstLine: number;
  lines: number;
  file: string;
  task: string;
  /** null: the request type is inferred from the first record (the task's config does not say). */
  requestType: RequestType | null;
  targetDelimiter: string | null;
  skipBad: boolean;
  /** Every record read by the reference reading, none from its text (canonicalRecord.test.ts holds the two to the same result). */
  referenceOnly?: boolean;
  /** Memory the rows may be written into (spareMemory.ts), handed back in the result's `spent` when not used. */
  spare?: ArrayBuffer[];
}

/** What a piece gave: per record (in order) as columns, and per piece what is kept in order of first appearance. */
export interface ChunkResult {
  requestType: RequestType | null;
  firstShape: RecordShape | null;
  records: number;
  /** Of those, the records read from their text (canonicalRecord.ts); the others by the reference reading. */
  canonicalRecords: number;
  line: Int32Array;
  docId: string[];
  filter: (string | null)[];
  /** Index into metricsKeys, or -1 when the record lists no metrics. */
  metricsKeyId: Int32Array;
  metricsKeys: string[];
  respsDigest: string[];
  /** 1 when the record has a doc_hash and a document; 2 when a document and no doc_hash; 0 otherwise. */
  docHashState: Uint8Array;
  docBad: string[];
  promptBad: string[];
  targetBad: string[];
  /** Every record's doc, prompt and target hashes run together (UTF-8), up to the first record lacking one (then hashesBroken). */
  hashes: Uint8Array;
  hashesBroken: boolean;
  extrasSeen: string[];
  filtersSeen: string[];
  metricsSeen: string[];
  /** Facts of a document's first record: its generation settings (index into genKeys: a JSON list of json.dumps texts), repeats, empty answers. */
  genKeyId: Int32Array;
  genKeys: string[];
  maxRepeats: Int32Array;
  emptyAnswers: Int32Array;
  /** Instance and response rows (UTF-8 lines) of the records that may be their document's first, and the byte where each record's end. */
  instances: Uint8Array;
  instancesEnd: Int32Array;
  instancesLongest: number;
  responses: Uint8Array;
  responsesEnd: Int32Array;
  responsesLongest: number;
  rowCounts: { instances: Int32Array; responses: Int32Array };
  /** 1 when the record's instance and response rows were made (or failed: rowErrors), 0 when its document was seen before. */
  rowsMade: Uint8Array;
  /** A record whose document rows could not be made: an error only if it is its document's first. */
  rowErrors: { record: number; detail: string; field: string | undefined }[];
  scores: Uint8Array;
  scoresLongest: number;
  filtered: Uint8Array;
  filteredLongest: number;
  skipped: SkippedRecord[];
  /** A record that stopped the piece (without --skip-bad): thrown once the records before it are joined. */
  error: { detail: string; line: number; field: string | undefined } | null;
  /** Memory handed back: the piece's bytes, once read, and spares the rows did not use. */
  spent: ArrayBuffer[];
}

/**
 * The memory of a result's typed columns and its spent memory, handed to the thread that joins it instead of
 * copied. Spent memory left out of this list was copied back, a piece's bytes and unused spares (several MiB a
 * piece) into fresh memory on the joining thread, which then handed the copies out as spares.
 */
export function resultTransfers(r: ChunkResult): ArrayBuffer[] {
  const arrays = [r.line, r.metricsKeyId, r.docHashState, r.rowsMade, r.genKeyId, r.maxRepeats, r.emptyAnswers, r.instancesEnd, r.responsesEnd, r.rowCounts.instances, r.rowCounts.responses, r.instances, r.responses, r.scores, r.filtered, r.hashes];
  // Distinct memory only (an empty piece's texts share one empty array).
  return [...new Set([...arrays.filter((a) => a.byteLength > 0).map((a) => a.buffer as ArrayBuffer), ...r.spent.filter((b) => b.byteLength > 0)])];
}
