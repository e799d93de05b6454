/**
 * Samples records → store rows. Instances and responses once per document (a
 * document repeats once per filter pipeline in 0.4.7+ files); scores and filtered
 * values once per record, exactly as recorded. Hashes: lm-eval's own when recorded,
 * else recomputed the way lm-eval computes them (§5.4), and said so in the notes.
 */
import { BadInputError } from '../../errors.ts';
import { sha256Hex } from '../../util/hash.ts';
import { numberOf, pyDumps, type PyNode } from '../../py/orderedJson.ts';
import { kindName, targetText, type SampleLine } from './sampleLine.ts';

// Row shapes of src/store/schema.ts TABLES, spelled out: the schema's RowOf<> widens to an
// index signature (col() returns the wide ColumnSpec), which would check nothing here.
export type InstanceRow = {
  run_id: string; task: string; doc_id: string; group: string | null; request_idx: number; request_type: string;
  arg_context: string | null; arg_continuation: string | null; gen_kwargs_json: string | null; doc_json: string | null;
  doc_hash: string; prompt_hash: string | null; target: string | null; choices_json: string | null; fewshot_doc_ids: string | null;
  response_text: string | null;
};
export type ResponseRow = {
  run_id: string; task: string; doc_id: string; request_idx: number; repeat: number; text: string | null;
  logprob: number | null; is_greedy: boolean | null; finish_reason: string | null; tokens_in: number | null;
  tokens_out: number | null; latency_ms: number | null; attempt: number | null; from_cache: boolean | null; error: string | null;
};
export type ScoreRow = { run_id: string; task: string; doc_id: string; filter: string; metric: string; value: number | null; value_json: string };
export type FilteredRow = { run_id: string; task: string; doc_id: string; filter: string; line: number; filtered_json: string | null; metrics_json: string | null };

export { EXTRA_FIELD_PREFIX } from '../../store/schema.ts';
import { EXTRA_FIELD_PREFIX } from '../../store/schema.ts';

export type RequestType = 'loglikelihood' | 'loglikelihood_rolling' | 'generate_until' | 'unknown';

export interface TaskRows {
  instances: InstanceRow[];
  responses: ResponseRow[];
  scores: ScoreRow[];
  filtered: FilteredRow[];
}

export interface TaskContext {
  runId: string;
  task: string;
  requestType: RequestType;
  /** multiple_choice tasks: strip this from each continuation to get the choice text. */
  targetDelimiter: string | null;
}

/** output_type → the request type its instances carry (§1). */
export function requestTypeOf(outputType: unknown): RequestType | null {
  if (outputType === 'multiple_choice' || outputType === 'loglikelihood') return 'loglikelihood';
  if (outputType === 'loglikelihood_rolling') return 'loglikelihood_rolling';
  if (outputType === 'generate_until' || outputType === 'greedy_until') return 'generate_until';
  return null;
}

/** When no config says: a (logprob, is_greedy) pair means loglikelihood, text means generation. */
export function inferRequestType(line: SampleLine): RequestType {
  const first = line.resps[0]?.[0];
  if (first === undefined) return 'unknown';
  if (first.k === 'arr') return 'loglikelihood';
  if (first.k === 'num') return 'loglikelihood_rolling';
  if (first.k === 'str') return line.requests[0]?.continuation !== null && line.requests[0]?.genKwargsJson === null ? 'loglikelihood_rolling' : 'generate_until';
  return 'unknown';
}

export function docHashOf(line: SampleLine, task: string): { hash: string; how: 'recorded' | 'recomputed' | 'id' } {
  if (line.docHash !== null) return { hash: line.docHash, how: 'recorded' };
  if (line.doc !== null) return { hash: sha256Hex(line.doc.indented(2)), how: 'recomputed' };
  return { hash: sha256Hex(`${task}\u001f${line.docId}`), how: 'id' };
}

/** A record's score rows: the columns they share, then one entry per row in each list. */
export interface RecordScores {
  shared: readonly [run_id: string, task: string, doc_id: string, filter: string];
  metrics: string[];
  values: (number | null)[];
  valueJsons: string[];
}

/**
 * Where a task's rows go as they are built: arrays (small legacy files) or the store's stagers.
 * A record's scores come as one run (the stager appends them as one packed row).
 */
export type TaskRowSink = { [T in Exclude<keyof TaskRows, 'scores'>]: (row: TaskRows[T][number]) => void } & {
  scores: (scores: RecordScores) => void;
};

/**
 * Rows of one task's samples, record by record (records of a large file are never held
 * together). Instances and responses come from a document's first record only.
 */
export class TaskRowBuilder {
  private readonly seenDocs = new Set<string>();
  constructor(
    private readonly ctx: TaskContext,
    private readonly sink: TaskRowSink,
  ) {}

  /** Adds a record's rows; true when it is its document's first record (its instances and responses were added). */
  add(line: SampleLine): boolean {
    const { ctx, sink } = this;
    sink.filtered(filteredRow(ctx, line));
    sink.scores(scoreRun(ctx, line));
    if (this.seenDocs.has(line.docId)) return false;
    this.seenDocs.add(line.docId);
    const { instances, responses } = documentRows(ctx, line);
    for (const row of instances) sink.instances(row);
    for (const row of responses) sink.responses(row);
    return true;
  }
}

/** The record's filtered response and metric list, as recorded. */
export function filteredRow(ctx: TaskContext, line: SampleLine): FilteredRow {
  return {
    run_id: ctx.runId,
    task: ctx.task,
    doc_id: line.docId,
    filter: line.filter ?? 'none',
    line: line.line,
    filtered_json: line.filteredJson,
    metrics_json: line.metricsList === null ? null : JSON.stringify(line.metricsList),
  };
}

/** The record's per-sample values: each metric as recorded, then the fields that are not metrics. */
export function scoreRun(ctx: TaskContext, line: SampleLine): RecordScores {
  const scores: RecordScores = { shared: [ctx.runId, ctx.task, line.docId, line.filter ?? 'none'], metrics: [], values: [], valueJsons: [] };
  for (const [metric, node] of line.metricValues) {
    scores.metrics.push(metric);
    scores.values.push(scoreValue(node));
    scores.valueJsons.push(pyDumps(node));
  }
  // Not metrics (e.g. a task's own label field): the schema has no column for them, so they are kept in
  // scores under `field:<name>` with value null, which no aggregation reads as a metric (see the notes).
  for (const [key, node] of line.extras) {
    scores.metrics.push(`${EXTRA_FIELD_PREFIX}${key}`);
    scores.values.push(null);
    scores.valueJsons.push(pyDumps(node));
  }
  return scores;
}

/** Every row of a task's records, as arrays. */
export function buildTaskRows(ctx: TaskContext, lines: readonly SampleLine[]): TaskRows {
  const rows: TaskRows = { instances: [], responses: [], scores: [], filtered: [] };
  const builder = new TaskRowBuilder(ctx, {
    instances: (row) => rows.instances.push(row),
    responses: (row) => rows.responses.push(row),
    scores: ({ shared: [run_id, task, doc_id, filter], metrics, values, valueJsons }) => {
      metrics.forEach((metric, i) => rows.scores.push({ run_id, task, doc_id, filter, metric, value: values[i]!, value_json: valueJsons[i]! }));
    },
    filtered: (row) => rows.filtered.push(row),
  });
  for (const line of lines) builder.add(line);
  return rows;
}

/** A document's requests and responses, from its first record. A response the request type cannot hold is an error naming the record. */
export function documentRows(ctx: TaskContext, line: SampleLine): { instances: InstanceRow[]; responses: ResponseRow[] } {
  const docHash = docHashOf(line, ctx.task).hash;
  const firstContext = line.requests[0]?.context ?? null;
  const promptHash = line.promptHash ?? (firstContext === null ? null : sha256Hex(firstContext));
  const target = targetText(line);
  const count = Math.max(line.resps.length, line.requests.length);
  const choices = choicesOf(ctx, line, count);
  const docJson = line.doc === null ? null : line.doc.json;
  const instances: InstanceRow[] = [];
  const responses: ResponseRow[] = [];
  for (let i = 0; i < count; i++) {
    const args = line.requests[i];
    const first = responses.length;
    (line.resps[i] ?? []).forEach((resp, repeat) => responses.push(responseRow(ctx, line, i, repeat, resp)));
    instances.push({
      run_id: ctx.runId,
      task: ctx.task,
      doc_id: line.docId,
      group: null,
      request_idx: i,
      request_type: ctx.requestType,
      arg_context: args?.context ?? null,
      arg_continuation: args?.continuation ?? null,
      gen_kwargs_json: args?.genKwargsJson ?? null,
      doc_json: docJson,
      doc_hash: docHash,
      prompt_hash: promptHash,
      target,
      choices_json: choices,
      fewshot_doc_ids: null,
      response_text: responses[first]?.text ?? null,
    });
  }
  return { instances, responses };
}

function choicesOf(ctx: TaskContext, line: SampleLine, count: number): string | null {
  if (ctx.targetDelimiter === null || count < 2 || line.requests.length !== count) return null;
  const continuations = line.requests.map((r) => r.continuation);
  if (continuations.some((c) => c === null)) return null;
  // Multiple-input tasks (winogrande) vary the context, not the continuation: no choice list to read.
  if (new Set(continuations).size === 1) return null;
  const d = ctx.targetDelimiter;
  return JSON.stringify(continuations.map((c) => (c!.startsWith(d) ? c!.slice(d.length) : c!)));
}

function responseRow(ctx: TaskContext, line: SampleLine, idx: number, repeat: number, resp: PyNode): ResponseRow {
  const row: ResponseRow = {
    run_id: ctx.runId, task: ctx.task, doc_id: line.docId, request_idx: idx, repeat,
    text: null, logprob: null, is_greedy: null, finish_reason: null, tokens_in: null, tokens_out: null,
    latency_ms: null, attempt: null, from_cache: null, error: null,
  };
  const where = { file: line.file, line: line.line, field: 'resps' };
  const bad = (expected: string) =>
    new BadInputError(`request ${idx} repeat ${repeat}: expected ${expected}, got ${kindName(resp)}`, where);
  if (ctx.requestType === 'loglikelihood' || (ctx.requestType === 'unknown' && resp.k === 'arr')) {
    if (resp.k === 'arr') {
      if (resp.items.length !== 2) throw bad('a [logprob, is_greedy] pair');
      row.logprob = logprobOf(resp.items[0]!, where, idx, repeat);
      row.is_greedy = greedyOf(resp.items[1]!, where, idx, repeat);
    } else {
      // v0.3 write_out files record the log-probability alone; is_greedy stays unknown.
      row.logprob = logprobOf(resp, where, idx, repeat);
    }
  } else if (ctx.requestType === 'loglikelihood_rolling') {
    const node = resp.k === 'arr' && resp.items.length >= 1 ? resp.items[0]! : resp;
    row.logprob = logprobOf(node, where, idx, repeat);
  } else {
    if (resp.k !== 'str') throw bad('the generated text');
    row.text = resp.v;
  }
  return row;
}

// lm-eval ≥0.4.3 stringifies every leaf of resps (sanitize_list): "-9.5e-07", "True".
function logprobOf(node: PyNode, where: { file: string; line: number; field: string }, idx: number, repeat: number): number {
  if (node.k === 'num') return numberOf(node.raw);
  if (node.k === 'str') {
    const n = pyFloat(node.v);
    if (n !== null) return n;
  }
  throw new BadInputError(`request ${idx} repeat ${repeat}: log-probability is ${node.k === 'str' ? JSON.stringify(node.v) : kindName(node)}, not a number`, where);
}

function greedyOf(node: PyNode, where: { file: string; line: number; field: string }, idx: number, repeat: number): boolean {
  if (node.k === 'bool') return node.v;
  if (node.k === 'str' && (node.v === 'True' || node.v === 'False')) return node.v === 'True';
  throw new BadInputError(`request ${idx} repeat ${repeat}: is_greedy is ${node.k === 'str' ? JSON.stringify(node.v) : kindName(node)}, not a boolean`, where);
}

/** Python's float(str) for the spellings str(float) produces (incl. nan, inf). */
export function pyFloat(text: string): number | null {
  const t = text.trim();
  if (/^[+-]?(nan)$/i.test(t)) return Number.NaN;
  if (/^[+-]?(inf|infinity)$/i.test(t)) return t.startsWith('-') ? -Infinity : Infinity;
  if (!/^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i.test(t)) return null;
  return Number(t);
}

/**
 * The numeric reading of a recorded metric value: numbers as they are, booleans and
 * v0.3's string-encoded "True"/"False"/"0.5" as numbers; pairs and other text → null
 * (value_json keeps the exact recording either way).
 */
export function scoreValue(node: PyNode): number | null {
  if (node.k === 'num') return numberOf(node.raw);
  if (node.k === 'bool') return node.v ? 1 : 0;
  if (node.k === 'str') {
    if (node.v === 'True') return 1;
    if (node.v === 'False') return 0;
    return pyFloat(node.v);
  }
  return null;
}
