/**
 * What a samples piece keeps of each record (samplesChunk.ts), whichever reading made it:
 * the reference one (sampleLine.ts → sampleRows.ts, checks.ts) or the one from slices of a
 * canonical line (canonicalRecord.ts).
 */
/** The shape of the first record, for the provenance's version inference. */
export interface RecordShape {
  arguments: string | null;
  hashes: boolean;
  filterKey: boolean;
}

/**
 * One record as the piece keeps it: its rows as lines of JSON and what the checks across
 * records need. Made by the reference reading (sampleLine.ts and sampleRows.ts, any record)
 * or, for a record that is exactly json.dumps output, from slices of its text (canonicalRecord.ts).
 */
export interface RecordParts {
  line: number;
  docId: string;
  filter: string | null;
  /** The metric list as JSON (OneTaskRecords compares it), or null when none is listed. */
  metricsKey: string | null;
  /** The filtered row's line, and the score rows' line, in pieces (jsonRows.ts). */
  filtered: string[];
  scores: string[];
  /** The document's instance and response lines in pieces, with their row counts: made only when the document may be first here (a BadInputError when they cannot be). */
  documentRows(): { instances: string[]; responses: string[]; instanceRows: number; responseRows: number };
  respsDigest: string;
  docHashState: 0 | 1 | 2;
  docBad: string | null;
  promptBad: string | null;
  targetBad: string | null;
  hashes: string | null;
  extras: readonly string[];
  metricNames: readonly string[];
  /** The generation settings of its requests, as a JSON list of json.dumps texts. */
  genKey: string;
  maxRepeats: number;
  emptyAnswers: number;
  shape: RecordShape;
}

