/**
 * The run-store schema: the one place that says what a store holds. Every writer
 * and reader validates against it (rows by their column specs, the provenance
 * block by its zod schema). Bump SCHEMA_VERSION on any incompatible change.
 *
 * A store is a directory: provenance.json, instances.parquet, responses.parquet,
 * scores.parquet, filtered.parquet and rescores/<id>.parquet. A store may hold
 * several runs (importing an lm-eval folder with three results files gives three);
 * every table carries run_id. A run of an API backend also keeps the HTTP exchanges it
 * recorded in exchanges/ (EXCHANGES_FOLDER, ExchangeRecord).
 *
 * This file holds the tables and the manifest; the provenance block's schema is in
 * provenanceSchema.ts, re-exported here so every reader and writer imports the schema from here.
 */
import { StoreError } from '../errors.ts';
import * as z from '../util/zod.ts';
import { GridRecord, Recording, RunProvenance } from './provenanceSchema.ts';

export const SCHEMA_VERSION = 2;
/**
 * Versions a reader opens. A version 1 store (before instances.response_text) is read as
 * written: its items are found by joining instances to responses, as then.
 */
export const READABLE_SCHEMA_VERSIONS = [1, 2] as const;
export type SchemaVersion = (typeof READABLE_SCHEMA_VERSIONS)[number];

export type ColumnType = 'VARCHAR' | 'BIGINT' | 'DOUBLE' | 'BOOLEAN';

export interface ColumnSpec {
  readonly name: string;
  readonly type: ColumnType;
  readonly nullable: boolean;
  /** What the column means, for readers of the Parquet files. */
  readonly doc: string;
  /** The schema version that added the column (absent: the first). */
  readonly since?: SchemaVersion;
}

/**
 * Row `index` of `table`'s value for `column`, checked against the column's spec: null when absent (a
 * StoreError in a column that is not nullable), else the value, of the type the column holds. A BIGINT
 * must be a safe integer: past 2^53 a number has already lost digits.
 */
export function checkedValue(table: string, index: number, column: ColumnSpec, value: unknown): string | number | boolean | null {
  if (value === null || value === undefined) {
    if (!column.nullable) throw new StoreError(`${table} row ${index}: column '${column.name}' must not be null`);
    return null;
  }
  const ok =
    column.type === 'VARCHAR' ? typeof value === 'string'
    : column.type === 'BIGINT' ? typeof value === 'number' && Number.isSafeInteger(value)
    : column.type === 'DOUBLE' ? typeof value === 'number'
    : typeof value === 'boolean';
  if (!ok) throw new StoreError(`${table} row ${index}: column '${column.name}' expects ${column.type}, got ${typeof value} ${JSON.stringify(value)?.slice(0, 60)}`);
  return value as string | number | boolean;
}

/** Keeps the literal name, type and nullability so that row types can be derived from the specs. */
function col<N extends string, T extends ColumnType, B extends boolean>(
  name: N,
  type: T,
  nullable: B,
  doc: string,
  since?: SchemaVersion,
): { readonly name: N; readonly type: T; readonly nullable: B; readonly doc: string; readonly since?: SchemaVersion } {
  return since === undefined ? { name, type, nullable, doc } : { name, type, nullable, doc, since };
}

export const TABLES = {
  /** One row per request sent (or that the source says was sent). */
  instances: [
    col('run_id', 'VARCHAR', false, 'run this row belongs to'),
    col('task', 'VARCHAR', false, 'task name as the source named it'),
    col('doc_id', 'VARCHAR', false, "document id as the source recorded it (lm-eval's integer as text)"),
    col('group', 'VARCHAR', true, 'subject/subtask used by macro aggregation; null = the task'),
    col('request_idx', 'BIGINT', false, 'position of the request within the document (choice index)'),
    col('request_type', 'VARCHAR', false, 'loglikelihood | loglikelihood_rolling | generate_until | unknown'),
    col('arg_context', 'VARCHAR', true, 'the context (prompt) bytes'),
    col('arg_continuation', 'VARCHAR', true, 'the continuation scored (loglikelihood requests)'),
    col('gen_kwargs_json', 'VARCHAR', true, 'generation settings sent with the request, as JSON'),
    col('doc_json', 'VARCHAR', true, 'the document as JSON (as the source stored it)'),
    col('doc_hash', 'VARCHAR', false, "stable hash of the document: lm-eval's doc_hash when recorded, else sha256 of doc_json or id"),
    col('prompt_hash', 'VARCHAR', true, 'sha256 of the first request context'),
    col('target', 'VARCHAR', true, 'gold answer as text (lm-eval: str(doc_to_target))'),
    col('choices_json', 'VARCHAR', true, 'answer choices as a JSON array of strings, when known'),
    col('fewshot_doc_ids', 'VARCHAR', true, 'ids of the few-shot documents as a JSON array, when known'),
    // Not in DESIGN.md's list (schema_version 2): with it, rescoring reads an item (the request,
    // its gold and the answer given) from one file; joining the two tables on the document id
    // took over a third of a million-item rescoring. The importer that writes a request's
    // responses writes this too (a test checks every importer against responses).
    col('response_text', 'VARCHAR', true, 'text of the first response (repeat 0) to this request, as in responses.text; null when none', 2),
  ],
  /** One row per response received. */
  responses: [
    col('run_id', 'VARCHAR', false, 'run'),
    col('task', 'VARCHAR', false, 'task'),
    col('doc_id', 'VARCHAR', false, 'document id'),
    col('request_idx', 'BIGINT', false, 'request within the document'),
    col('repeat', 'BIGINT', false, 'repeat index (0-based)'),
    col('text', 'VARCHAR', true, 'raw generated text (generate_until)'),
    col('logprob', 'DOUBLE', true, 'summed log-probability of the continuation (loglikelihood)'),
    col('is_greedy', 'BOOLEAN', true, 'whether the continuation is the greedy one'),
    col('finish_reason', 'VARCHAR', true, 'why generation stopped, when recorded'),
    col('tokens_in', 'BIGINT', true, 'prompt tokens'),
    col('tokens_out', 'BIGINT', true, 'generated tokens'),
    col('latency_ms', 'DOUBLE', true, 'request latency'),
    col('attempt', 'BIGINT', true, 'attempt number that succeeded'),
    col('from_cache', 'BOOLEAN', true, 'served from a response cache'),
    col('error', 'VARCHAR', true, 'error text when the request failed'),
  ],
  /** One row per (document, filter, metric) as the source recorded it. */
  scores: [
    col('run_id', 'VARCHAR', false, 'run'),
    col('task', 'VARCHAR', false, 'task'),
    col('doc_id', 'VARCHAR', false, 'document id'),
    col('filter', 'VARCHAR', false, "filter pipeline name ('none' when the source has one reading)"),
    col('metric', 'VARCHAR', false, 'metric name'),
    col('value', 'DOUBLE', true, 'numeric value (NaN and ±Infinity kept); null when not a number'),
    col('value_json', 'VARCHAR', false, 'the value exactly as recorded, as JSON (pairs, strings, null)'),
  ],
  /**
   * One row per (document, filter) as the source recorded it: the filtered response
   * the metrics were computed from. Not in DESIGN.md's first table list; added because
   * reproducing "as recorded" needs the source's own filtered value to name the item
   * where we disagree.
   */
  filtered: [
    col('run_id', 'VARCHAR', false, 'run'),
    col('task', 'VARCHAR', false, 'task'),
    col('doc_id', 'VARCHAR', false, 'document id'),
    col('filter', 'VARCHAR', false, 'filter pipeline name'),
    col('line', 'BIGINT', false, 'line (or array index) in the source file, 1-based'),
    col('filtered_json', 'VARCHAR', true, 'filtered_resps exactly as recorded, as JSON'),
    col('metrics_json', 'VARCHAR', true, "the record's metric list, when recorded"),
  ],
  /** One row per (document, rescoring cell): appended by `rescore --out`, never rewriting the above. */
  rescores: [
    col('run_id', 'VARCHAR', false, 'run'),
    col('task', 'VARCHAR', false, 'task'),
    col('doc_id', 'VARCHAR', false, 'document id'),
    col('extractor', 'VARCHAR', false, 'extractor name'),
    col('normalizer', 'VARCHAR', false, 'normaliser name'),
    col('extracted', 'VARCHAR', true, 'the span the extractor read as the answer'),
    col('value', 'DOUBLE', true, 'per-item score'),
  ],
} as const satisfies Record<string, readonly ColumnSpec[]>;

export type TableName = keyof typeof TABLES;
/** A `scores.metric` starting with this holds a per-sample record field the importer kept, not a metric (`field:<name>`). */
export const EXTRA_FIELD_PREFIX = 'field:';

export const STORE_TABLES = ['instances', 'responses', 'scores', 'filtered'] as const satisfies readonly TableName[];

type TsOf<T extends ColumnType> = T extends 'VARCHAR' ? string : T extends 'BOOLEAN' ? boolean : number;
type RowOf<Cols extends readonly ColumnSpec[]> = {
  [C in Cols[number] as C['name']]: C['nullable'] extends true ? TsOf<C['type']> | null : TsOf<C['type']>;
};
export type InstanceRow = RowOf<typeof TABLES.instances>;
export type ResponseRow = RowOf<typeof TABLES.responses>;
export type ScoreRow = RowOf<typeof TABLES.scores>;
export type FilteredRow = RowOf<typeof TABLES.filtered>;
export type RescoreRow = RowOf<typeof TABLES.rescores>;
export interface TableRows {
  instances: InstanceRow[];
  responses: ResponseRow[];
  scores: ScoreRow[];
  filtered: FilteredRow[];
}

// The provenance block's schema lives beside this file; the manifest joins the two.
export * from './provenanceSchema.ts';

export const StoreManifest = z.object({
  schema_version: z.literal(READABLE_SCHEMA_VERSIONS),
  created_by: z.string(),
  runs: z.array(RunProvenance),
  recording: z.optional(Recording),
  grid: z.optional(GridRecord),
});
export type StoreManifest = z.infer<typeof StoreManifest>;
