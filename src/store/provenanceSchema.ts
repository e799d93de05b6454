/**
 * The provenance half of the run-store schema (schema.ts holds the tables and the manifest): the
 * facts a source records about each setting, the disclosure items, a run's and a task's provenance
 * block, the recording, API exchanges and grid records, and the helpers importers build them with.
 * schema.ts re-exports all of it, so a store's schema is still imported from one place.
 */
import * as z from '../util/zod.ts';

/** Source kinds whose runs are agent evaluations (an item per task instance, a response per trial). */
export const AGENT_SOURCE_KINDS = ['swebench', 'terminal-bench', 'harbor'] as const;
export type AgentSourceKind = (typeof AGENT_SOURCE_KINDS)[number];

/**
 * Harnesses whose per-item records carry each metric's per-item value beside a printed aggregate
 * (HELM, lighteval, OpenCompass): as-recorded re-aggregates those values by the harness's own rule.
 */
export const RESULTS_SOURCE_KINDS = ['helm', 'lighteval', 'opencompass'] as const;
export type ResultsSourceKind = (typeof RESULTS_SOURCE_KINDS)[number];

/**
 * Agent runs store their trials in the ordinary tables, so that items join on instance id like any other run:
 * - instances: one row per task instance (request_idx 0, request_type AGENT_REQUEST_TYPE), doc_id = instance id;
 * - responses: one row per trial, `repeat` = attempt (0-based), `text` = the submitted patch when there is one,
 *   `finish_reason` = the trial's outcome (one of TRIAL_OUTCOMES), `error` = the exception or failure mode;
 * - scores: one row per trial with a reward, metric 'reward', filter `attempt:<repeat>` (a missing reward has no
 *   row, so "missing" stays distinguishable from 0); and one row per evaluated instance, metric 'pass_rate',
 *   filter 'none': the mean over its attempts with a missing reward as 0 (what paired statistics compare).
 */
export const AGENT_REQUEST_TYPE = 'agent_trial';
export const TRIAL_OUTCOMES = ['resolved', 'unresolved', 'error', 'timeout', 'empty_patch', 'not_submitted', 'not_evaluated'] as const;
export type TrialOutcome = (typeof TRIAL_OUTCOMES)[number];

/** The settings an agent run records (RunProvenance.agent); every field present, `unknown` when not recorded. */
export const AGENT_FIELDS = [
  'agent_name',
  'agent_version',
  'model_configured',
  'model_recorded',
  'sandbox_provider',
  'sandbox_resources',
  'network',
  'timeouts',
  'agent_limits',
  'retries',
  'attempts',
  'concurrency',
  'tasks_excluded',
  'task_selection',
  'dataset',
  'dataset_version',
  'split_size',
  'harness_version',
  'denominator_rule',
] as const;
export type AgentField = (typeof AGENT_FIELDS)[number];

/**
 * What a source says about one setting. `recorded`: the source wrote it down;
 * `inferred`: we derived it from the records (with how); `unknown`: nobody recorded it.
 */
export const Fact = z.discriminatedUnion('status', [
  z.object({ status: z.literal('recorded'), value: z.unknown(), from: z.optional(z.string()) }),
  z.object({ status: z.literal('inferred'), value: z.unknown(), how: z.string() }),
  z.object({ status: z.literal('unknown') }),
]);
export type Fact = z.infer<typeof Fact>;

/** Two values per setting: what was configured, and what actually reached the model. */
export const Setting = z.object({ configured: Fact, used: Fact });
export type Setting = z.infer<typeof Setting>;

/**
 * The disclosure items and the fields each must carry: DESIGN.md's twelve and a thirteenth,
 * `environment` (the hardware and libraries a run ran on: two reruns on different GPUs can
 * differ in their generations for that alone). Every field is present in every block;
 * `unknown` when the source did not record it. Count them with DISCLOSURE_ITEMS.length.
 */
export const DISCLOSURE_FIELDS = {
  harness: ['name', 'version', 'commit', 'dirty', 'runtime'],
  task: ['name', 'version', 'dataset_path', 'dataset_name', 'dataset_split', 'dataset_hash'],
  scoring: ['output_type', 'scoring_path', 'metrics', 'filters'],
  // target_delimiter: between prompt and answer; chat templates change it (lm-eval drops it unless gen_prefix needs it).
  chat_template: ['applied', 'text', 'sha256', 'fewshot_as_multiturn', 'target_delimiter'],
  system: ['instruction', 'description', 'message_sent'],
  fewshot: ['count', 'sampler', 'seed', 'split'],
  generation: ['settings', 'stop_sequences', 'max_tokens', 'backend_additions'],
  repeats: ['repeats', 'reducer', 'aggregation', 'group_weighting'],
  samples: ['limit', 'document_count', 'document_ids'],
  failures: ['errors', 'empty_answers', 'truncations', 'in_denominator'],
  model: ['backend', 'model_id', 'dtype', 'revision', 'args', 'batch_size', 'device'],
  /** gpu: 'N × model'; accelerator: the CUDA/ROCm stack; libraries: versions besides harness.runtime's. */
  environment: ['gpu', 'cpu', 'accelerator', 'os', 'libraries'],
  records: ['files'],
} as const;
export type DisclosureItem = keyof typeof DISCLOSURE_FIELDS;
export const DISCLOSURE_ITEMS = Object.keys(DISCLOSURE_FIELDS) as DisclosureItem[];

/** Items that hold per task (the others hold for the whole run). */
export const PER_TASK_ITEMS = [
  'task',
  'scoring',
  'chat_template',
  'system',
  'fewshot',
  'generation',
  'repeats',
  'samples',
  'failures',
] as const satisfies readonly DisclosureItem[];
export const PER_RUN_ITEMS = ['harness', 'model', 'environment', 'records'] as const satisfies readonly DisclosureItem[];
export type PerTaskItem = (typeof PER_TASK_ITEMS)[number];
export type PerRunItem = (typeof PER_RUN_ITEMS)[number];

const SettingsGroup = z.record(z.string(), Setting);

const TaskProvenanceFields = z.object({
  task: SettingsGroup,
  scoring: SettingsGroup,
  chat_template: SettingsGroup,
  system: SettingsGroup,
  fewshot: SettingsGroup,
  generation: SettingsGroup,
  repeats: SettingsGroup,
  samples: SettingsGroup,
  failures: SettingsGroup,
  /**
   * Whether the task's own code (lm-eval's `process_results`) scored its items rather than the harness's
   * metrics over filtered responses: as-recorded rescoring can then recompute them only through a port of
   * that code. `scoring.scoring_path` says the same in words, for the reader.
   */
  scored_by_process_results: z.boolean(),
});

/** How stores written before `scored_by_process_results` existed said it: the scoring_path's display text. */
const LEGACY_PROCESS_RESULTS_PATH = 'process_results (task code)';

/** An old task block gets the field from its scoring_path (a store is migrated when read). */
function migrateTaskProvenance(input: unknown): unknown {
  if (input === null || typeof input !== 'object' || 'scored_by_process_results' in input) return input;
  const scoring = (input as { scoring?: Record<string, { configured?: { status?: unknown; value?: unknown } }> }).scoring;
  const path = scoring?.['scoring_path']?.configured;
  return { ...input, scored_by_process_results: path?.status === 'recorded' && path.value === LEGACY_PROCESS_RESULTS_PATH };
}

export const TaskProvenance = z.pipe(z.transform(migrateTaskProvenance), TaskProvenanceFields);
export type TaskProvenance = z.infer<typeof TaskProvenanceFields>;

export const SourceFile = z.object({ path: z.string(), sha256: z.string(), role: z.string() });
export type SourceFile = z.infer<typeof SourceFile>;

/** A consistency problem the importer found inside the records themselves. */
export const RecordNote = z.object({
  task: z.nullable(z.string()),
  kind: z.string(),
  message: z.string(),
  evidence: z._default(z.array(z.string()), []),
});
export type RecordNote = z.infer<typeof RecordNote>;

export const RunProvenance = z.object({
  run_id: z.string(),
  label: z.string(),
  source_kind: z.enum(['lmaudit', 'lm-eval', 'inspect', 'generic', 'eee', ...AGENT_SOURCE_KINDS, ...RESULTS_SOURCE_KINDS]),
  source_format: z.string(),
  harness: SettingsGroup,
  model: SettingsGroup,
  /** Absent from stores written before the item existed: read as every field unknown. */
  environment: z._default(SettingsGroup, {}),
  records: SettingsGroup,
  tasks: z.record(z.string(), TaskProvenance),
  /** The source's own aggregate numbers, verbatim: {task: {"metric,filter": value}}. */
  reported: z.record(z.string(), z.record(z.string(), z.unknown())),
  notes: z.array(RecordNote),
  /** Agent runs only (AGENT_FIELDS): the scaffold, sandbox, limits and denominator facts. Absent for other runs. */
  agent: z.optional(SettingsGroup),
});
export type RunProvenance = z.infer<typeof RunProvenance>;

/**
 * A store `lmaudit run` is writing (or was writing when it stopped). While `unfinished`,
 * its responses are the durable parts in `parts` (responses.parquet is not yet theirs);
 * `finish` consolidates them and marks the store `finished` in one atomic write of
 * provenance.json. Absent in stores an importer wrote (they are written whole).
 */
export const Recording = z.object({
  status: z.enum(['unfinished', 'finished']),
  /** Responses the finished run holds: requests × repeats. */
  expected_responses: z.number(),
  /** Folder (inside the store) of the response parts. */
  parts: z.string(),
  /** The configuration a resume must match, setting by setting. */
  config: z.record(z.string(), z.unknown()),
});
export type Recording = z.infer<typeof Recording>;

/**
 * The HTTP exchanges an API backend kept (every failed attempt, every success after a retry, and
 * a seeded sample of the rest: model_args record_exchanges): the request body as sent (API keys
 * travel in headers, which are never kept) and the raw response text. Written by the run
 * recorder as durable JSONL parts in EXCHANGES_FOLDER inside the store, one part per batch that
 * kept any; they stay after the run finishes (they are evidence, not a table to rescore).
 */
export const EXCHANGES_FOLDER = 'exchanges';
export const ApiExchange = z.object({
  /** Order in which the backend kept it. */
  seq: z.number(),
  /** Position of the request in the batch handed to the backend (the runner maps it to the instances). */
  item: z.number(),
  /** Window of a rolling request; 0 otherwise. */
  window: z.number(),
  endpoint: z.string(),
  attempt: z.number(),
  status: z.nullable(z.number()),
  latency_ms: z.number(),
  /** Why the attempt failed (null: it succeeded). */
  error: z.nullable(z.string()),
  request: z.unknown(),
  response: z.nullable(z.string()),
  at: z.string(),
});
export type ApiExchange = z.infer<typeof ApiExchange>;
export const ExchangeRecord = z.extend(ApiExchange, {
  run_id: z.string(),
  task: z.string(),
  doc_id: z.string(),
  request_idx: z.number(),
  /** Every repeat the one request answered. */
  repeats: z.array(z.number()),
});
export type ExchangeRecord = z.infer<typeof ExchangeRecord>;

/**
 * A configuration grid `lmaudit run --grid` ran into one store: the axes and their values, which
 * run is which cell, and the requests the cells asked (`total`), of which `sent` went to the model
 * and `shared` were answered with the response to the identical request of an earlier cell (those
 * responses also say `from_cache`). Absent in stores of one run or imported runs.
 */
export const GridRecord = z.object({
  axes: z.array(z.object({ name: z.string(), values: z.array(z.string()) })),
  cells: z.array(z.object({ run_id: z.string(), settings: z.record(z.string(), z.string()) })),
  requests: z.object({ total: z.number(), sent: z.number(), shared: z.number() }),
  /**
   * Each `--resume` that continued an interrupted grid: the cells it reused as they were (no model
   * call), the unfinished cell it continued (null: none) with the responses that cell already held.
   * With resumes, `requests` is counted from the stored responses (from_cache: shared).
   */
  resumes: z.optional(z.array(z.object({ reused: z.array(z.number()), continued: z.nullable(z.number()), held: z.number() }))),
});
export type GridRecord = z.infer<typeof GridRecord>;

/**
 * An unfinished grid's plan, `<store>.grid-cells/grid.json`: the settings it was started with (a
 * resume must give the same), its cells, those finished, and the resumes so far.
 */
export const GridPlan = z.object({
  settings: z.record(z.string(), z.string()),
  axes: GridRecord.shape.axes,
  cells: z.array(z.record(z.string(), z.string())),
  finished: z.array(z.number()),
  resumes: z.array(z.object({ reused: z.array(z.number()), continued: z.nullable(z.number()), held: z.number() })),
});
export type GridPlan = z.infer<typeof GridPlan>;


export const UNKNOWN: Fact = { status: 'unknown' };

export function recorded(value: unknown, from?: string): Fact {
  if (value === undefined) return UNKNOWN;
  return from === undefined ? { status: 'recorded', value } : { status: 'recorded', value, from };
}

export function inferred(value: unknown, how: string): Fact {
  return { status: 'inferred', value, how };
}

/** A setting whose configured and used values are the same fact. */
export function same(fact: Fact): Setting {
  return { configured: fact, used: fact };
}

function unknownGroup(fields: readonly string[]): Record<string, Setting> {
  return Object.fromEntries(fields.map((f) => [f, { configured: UNKNOWN, used: UNKNOWN }]));
}

/** A task block with every field present and unknown; importers fill in what they know. */
export function emptyTaskProvenance(): TaskProvenance {
  const groups = Object.fromEntries(PER_TASK_ITEMS.map((item) => [item, unknownGroup(DISCLOSURE_FIELDS[item])]));
  return { ...groups, scored_by_process_results: false } as TaskProvenance;
}

export function emptyRunProvenance(
  init: Pick<RunProvenance, 'run_id' | 'label' | 'source_kind' | 'source_format'>,
): RunProvenance {
  return {
    ...init,
    harness: unknownGroup(DISCLOSURE_FIELDS.harness),
    model: unknownGroup(DISCLOSURE_FIELDS.model),
    environment: unknownGroup(DISCLOSURE_FIELDS.environment),
    records: unknownGroup(DISCLOSURE_FIELDS.records),
    tasks: {},
    reported: {},
    notes: [],
  };
}

/** An agent settings block with every field present and unknown. */
export function emptyAgentProvenance(): Record<string, Setting> {
  return unknownGroup(AGENT_FIELDS);
}

/** Sets one field of a group, refusing names the schema does not list (a typo would silently add a field). */
export function setField<I extends DisclosureItem>(
  group: Record<string, Setting>,
  item: I,
  field: (typeof DISCLOSURE_FIELDS)[I][number],
  setting: Setting,
): void {
  if (!(DISCLOSURE_FIELDS[item] as readonly string[]).includes(field)) {
    throw new Error(`provenance: '${field}' is not a field of disclosure item '${item}'`);
  }
  group[field] = setting;
}
