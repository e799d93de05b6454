/**
 * One document's metric recomputed from its stored raw responses with the task's
 * own settings, or the reason it cannot be (then the recorded value stands, and the
 * report says so). Settings come from the provenance block the importer filled from
 * the results file's `configs` (metric_list kwargs, filter_list, output_type).
 */
import type { RunProvenance } from '../../store/schema.ts';
import { isPlainObject } from '../../util/json.ts';
import { buildPipeline, DEFAULT_PIPELINE, FilterIndexError, type FilterPipeline } from './filters.ts';
import { argmax, generateExactMatch, multipleChoice, parsePyList, type ExactMatchKwargs, type McMetric } from './metrics.ts';
import type { LabelPair } from './labelAggregates.ts';
import { PROCESS_RESULTS, TaskCodeError } from './taskCode.ts';
import { rollingWordCount } from './taskScoring.ts';
import { hasMc2Targets, readChoiceDoc } from './choiceReading.ts';
import { scoredByLmevalAtLeast } from './harnessRules.ts';

export interface TaskSettings {
  outputType: string | null;
  /** metric → its metric_list entry (aggregation + kwargs), when recorded. */
  metricList: Map<string, Record<string, unknown>> | null;
  filterList: FilterPipeline[] | null;
  customProcessResults: boolean;
  /**
   * The ported process_results this task's code is taken to be (registry name), chosen from the
   * dataset and output type the results file records (its Python source is not compared).
   */
  processResultsPort: string | null;
  /** winogrande's multiple-input gold: doc_to_text(doc), an index read from doc.answer. */
  winogrande: boolean;
  /** The target delimiter before each multiple-choice continuation, when recorded. */
  targetDelimiter: string | null;
  /** multi_choice_regex tries choice texts longest first (lm-eval 0.4.13 on; filters.ts PipelineOptions). Absent: true. */
  multiChoiceLongestFirst?: boolean;
}

/** False for a run of lm-eval up to 0.4.12 (its multi_choice_regex tried the choice texts in choice order). */
const multiChoiceLongestFirst = (run: RunProvenance): boolean => scoredByLmevalAtLeast(run, 0, 4, 13);

export interface DocRecord {
  docId: string;
  requestType: string;
  target: string | null;
  choices: string[] | null;
  doc: Record<string, unknown> | null;
  /** Per request (request_idx order): the repeats' text and log-probabilities. */
  requests: { continuation: string | null; texts: (string | null)[]; logprobs: (number | null)[]; greedy: (boolean | null)[] }[];
}

export type ItemResult =
  | { kind: 'value'; value: number; filtered?: unknown; multiTarget?: readonly string[]; tolerance?: ItemTolerance }
  /** loglikelihood_rolling's (loglikelihood, weight) pair, which weighted_perplexity and bits_per_byte aggregate. */
  | { kind: 'pair'; value: readonly [number, number] }
  /** multiple_choice's (gold, pred) for f1 and mcc, which scikit-learn aggregates (labelAggregates.ts). */
  | { kind: 'labels'; value: LabelPair }
  | { kind: 'as-recorded'; why: string };

/** How far a recomputed value may sit from the recorded one, and why (an operation whose last bit is platform-dependent). */
export interface ItemTolerance {
  abs: number;
  why: string;
}

const factValue = (f: { status: string; value?: unknown } | undefined) => (f && f.status !== 'unknown' ? f.value : undefined);

export function taskSettings(run: RunProvenance | null, task: string): TaskSettings {
  const t = run?.tasks[task];
  if (t === undefined) return { outputType: null, metricList: null, filterList: null, customProcessResults: false, processResultsPort: null, winogrande: false, targetDelimiter: null };
  const outputType = factValue(t.scoring.output_type?.configured);
  const used = factValue(t.scoring.output_type?.used);
  const metricList = factValue(t.scoring.metrics?.configured);
  const filterList = factValue(t.scoring.filters?.configured);
  const customProcessResults = t.scored_by_process_results;
  const datasetPath = String(factValue(t.task.dataset_path?.configured) ?? '');
  const datasetName = String(factValue(t.task.dataset_name?.configured) ?? '');
  const type = typeof outputType === 'string' ? outputType : null;
  const delimiter = factValue(t.chat_template?.target_delimiter?.used) ?? factValue(t.chat_template?.target_delimiter?.configured);
  return {
    outputType: typeof outputType === 'string' ? outputType : Array.isArray(used) && typeof used[0] === 'string' ? `request:${used[0]}` : null,
    metricList: Array.isArray(metricList)
      ? new Map(metricList.filter(isPlainObject).map((m) => [String(m.metric), m]))
      : null,
    filterList: Array.isArray(filterList) ? (filterList as FilterPipeline[]) : null,
    customProcessResults,
    processResultsPort: customProcessResults ? portFor(datasetPath, datasetName, type) : null,
    winogrande: /(^|\/)winogrande$/.test(datasetPath) && type === 'multiple_choice',
    targetDelimiter: typeof delimiter === 'string' ? delimiter : null,
    multiChoiceLongestFirst: multiChoiceLongestFirst(run!),
  };
}

/**
 * The settings completed from the task's documents, for a run of a local copy (dataset_path `json`)
 * whose dataset path names nothing: a task scored by its own process_results whose documents have
 * truthful_qa's fields is taken to be truthfulqa's (mc2_targets: _mc2; correct/incorrect answers:
 * _gen). (Winogrande's partial evaluation is read from each document's requests: readChoiceDoc.)
 */
export function settingsFromDocs(settings: TaskSettings, doc: Record<string, unknown> | null): TaskSettings {
  if (doc === null) return settings;
  let port = settings.processResultsPort;
  if (port === null && settings.customProcessResults) {
    if (settings.outputType === 'multiple_choice' && hasMc2Targets(doc)) port = 'truthfulqa.process_results_mc2';
    else if (settings.outputType === 'generate_until' && Array.isArray(doc.correct_answers) && Array.isArray(doc.incorrect_answers)) port = 'truthfulqa.process_results_gen';
  }
  return { ...settings, processResultsPort: port };
}

/** lm-eval's truthfulqa tasks are the only shipped ones with process_results: truthful_qa generation → _gen, multiple_choice → _mc2. */
function portFor(datasetPath: string, datasetName: string, outputType: string | null): string | null {
  if (!/(^|\/)truthful_qa$/.test(datasetPath)) return null;
  if (datasetName === 'generation' && outputType === 'generate_until') return 'truthfulqa.process_results_gen';
  if (datasetName === 'multiple_choice' && outputType === 'multiple_choice') return 'truthfulqa.process_results_mc2';
  return null;
}

const MC_METRICS = new Set(['acc', 'acc_norm', 'acc_bytes', 'exact_match']);
const KWARG_SKIP = new Set(['metric', 'aggregation', 'higher_is_better', 'hf_evaluate']);

export function recomputeItem(settings: TaskSettings, doc: DocRecord, filter: string, metric: string): ItemResult {
  if (settings.processResultsPort !== null) return taskCode(settings, settings.processResultsPort, doc, filter, metric);
  if (settings.customProcessResults) {
    return { kind: 'as-recorded', why: "the task's own process_results (Python, recorded only as source text) has no port in lmaudit; not run here" };
  }
  const type = settings.outputType ?? (doc.requests.length > 1 && doc.requestType === 'loglikelihood' ? 'multiple_choice' : `request:${doc.requestType}`);
  if (type === 'generate_until' || type === 'greedy_until' || type === 'request:generate_until') return generation(settings, doc, filter, metric);
  // A loglikelihood task sends one request per document; several mean multiple choice (v0.3 write_out records say no more).
  if (type === 'multiple_choice' || ((type === 'loglikelihood' || type === 'request:loglikelihood') && doc.requests.length > 1)) return multipleChoiceItem(settings, doc, metric);
  if (type === 'loglikelihood' || type === 'request:loglikelihood') return loglikelihood(doc, metric);
  if (type === 'loglikelihood_rolling' || type === 'request:loglikelihood_rolling') return rolling(doc, metric);
  return { kind: 'as-recorded', why: `output type ${type}: ${metric} is not recomputed` };
}

function loglikelihood(doc: DocRecord, metric: string): ItemResult {
  const req = doc.requests[0];
  if (req === undefined) return { kind: 'as-recorded', why: 'no stored response' };
  if (metric === 'acc') {
    const g = req.greedy[0];
    return g === null || g === undefined ? { kind: 'as-recorded', why: 'is_greedy not recorded' } : { kind: 'value', value: g ? 1 : 0 };
  }
  if (metric === 'perplexity') {
    const ll = req.logprobs[0];
    return ll === null || ll === undefined ? { kind: 'as-recorded', why: 'log-probability not recorded' } : { kind: 'value', value: ll };
  }
  return { kind: 'as-recorded', why: `loglikelihood metric ${metric} is not recomputed` };
}

/**
 * loglikelihood_rolling's process_results: (loglikelihood, count_words(doc_to_target(doc))) for word_perplexity,
 * (loglikelihood, len(doc_to_target(doc).encode("utf-8"))) for byte_perplexity and bits_per_byte. The text is the
 * recorded target (str(doc_to_target(doc))), else the request's own text (the same string: lm-eval scores it).
 */
function rolling(doc: DocRecord, metric: string): ItemResult {
  const ll = doc.requests[0]?.logprobs[0];
  if (ll === null || ll === undefined) return { kind: 'as-recorded', why: 'log-probability not recorded' };
  const text = doc.target ?? doc.requests[0]?.continuation ?? null;
  if (text === null) return { kind: 'as-recorded', why: 'neither the target nor the scored text is recorded' };
  if (metric === 'word_perplexity') return { kind: 'pair', value: [ll, rollingWordCount(text)] };
  if (metric === 'byte_perplexity' || metric === 'bits_per_byte') return { kind: 'pair', value: [ll, Buffer.byteLength(text, 'utf8')] };
  return { kind: 'as-recorded', why: `loglikelihood_rolling metric ${metric} is not one lm-eval's process_results returns` };
}

function multipleChoiceItem(settings: TaskSettings, doc: DocRecord, metric: string): ItemResult {
  const labels = metric === 'f1' || metric === 'mcc';
  if (!MC_METRICS.has(metric) && !labels) return { kind: 'as-recorded', why: `multiple_choice metric ${metric} is not recomputed` };
  const lls = doc.requests.map((r) => r.logprobs[0]);
  if (lls.some((x) => x === null || x === undefined)) return { kind: 'as-recorded', why: 'a choice has no stored log-probability' };
  const read = readChoiceDoc(
    settings,
    { target: doc.target, choices: doc.choices, continuations: doc.requests.map((r) => r.continuation), doc: doc.doc },
    lls.length,
  );
  if (read.kind === 'unreadable') return { kind: 'as-recorded', why: read.why };
  if (labels) {
    // lm-eval pairs a list of golds with the prediction as it is, which scikit-learn cannot read as labels.
    if (typeof read.gold !== 'number') return { kind: 'as-recorded', why: `${metric} of a document with several golds: lm-eval records (list of golds, pred), which is not a label pair` };
    return { kind: 'labels', value: [read.gold, argmax(lls as number[])] };
  }
  const value = multipleChoice({ lls: lls as number[], isGreedy: doc.requests.map((r) => r.greedy[0] ?? null), choices: read.choices, gold: read.gold }, metric as McMetric);
  return value === null ? { kind: 'as-recorded', why: `${metric} needs ${metric === 'exact_match' ? 'is_greedy' : 'the choice texts'}, which were not recorded` } : { kind: 'value', value };
}

function generation(settings: TaskSettings, doc: DocRecord, filter: string, metric: string): ItemResult {
  const pipeline = settings.filterList === null ? (filter === 'none' ? DEFAULT_PIPELINE : null) : settings.filterList.find((p) => p.name === filter) ?? null;
  if (pipeline === null) return { kind: 'as-recorded', why: `filter '${filter}' is not in the task's recorded filter_list` };
  const texts = doc.requests[0]?.texts ?? [];
  if (texts.some((t) => t === null)) return { kind: 'as-recorded', why: 'a repeat has no stored text' };
  let filtered: unknown;
  try {
    filtered = buildPipeline(pipeline, { multiChoiceLongestFirst: settings.multiChoiceLongestFirst })(texts, doc.doc);
  } catch (error) {
    if (error instanceof FilterIndexError) return { kind: 'as-recorded', why: `lm-eval would have failed here (${error.message})` };
    throw error;
  }
  if (metric !== 'exact_match') {
    return { kind: 'as-recorded', why: `${metric} of generated text comes from task code the record does not name (lmaudit recomputes exact_match, and truthfulqa's process_results when the results file's configs show that task); the per-item value is taken as recorded` };
  }
  if (typeof filtered !== 'string') return { kind: 'as-recorded', why: 'the filter pipeline leaves a list, not one string' };
  if (doc.target === null) return { kind: 'as-recorded', why: 'no target recorded' };
  const entry = settings.metricList?.get('exact_match') ?? {};
  const kwargs: ExactMatchKwargs = {};
  for (const [k, v] of Object.entries(entry)) if (!KWARG_SKIP.has(k)) (kwargs as Record<string, unknown>)[k] = v;
  const list = parsePyList(doc.target);
  if (list !== null && list.every((g) => typeof g === 'string')) {
    const golds = list as string[];
    return { kind: 'value', value: generateExactMatch(filtered, golds, kwargs), filtered, multiTarget: golds };
  }
  return { kind: 'value', value: generateExactMatch(filtered, doc.target, kwargs), filtered };
}

/**
 * Python's math.exp/math.log (and numpy's exp) come from the platform's libm, whose error bound
 * is a little over 0.5 ulp: near a rounding midpoint it may round either way, while lmaudit
 * rounds correctly (src/util/pyMath.ts). One exp is 1 ulp off at most.
 */
const PORT_TOLERANCE: Record<string, (metric: string) => ItemTolerance | undefined> = {
  // BLEU ≤ 100 is bp (an exp) times exp of the mean of four logs: each libm call ≤ 1 ulp off, a score ≤ 4 ulp
  // of 100 (4·2^-46), a difference of two scores twice that.
  'truthfulqa.process_results_gen': (metric) => (metric === 'bleu_max' || metric === 'bleu_diff'
    ? { abs: (metric === 'bleu_diff' ? 8 : 4) * 2 ** -46, why: "BLEU = bp·exp(Σ log pₙ / 4) goes through math.exp/math.log, whose last bit depends on the platform's libm (error bound just over 0.5 ulp); lmaudit rounds correctly, so a result next to a rounding midpoint can differ in the last bits" }
    : undefined),
  // mc2 ∈ [0, 1]: one exp per choice (≤ 1 ulp each) through a sum and a division: ≤ 16 ulp(1) for up to ~13 choices.
  'truthfulqa.process_results_mc2': () => ({ abs: 16 * 2 ** -52, why: "numpy's exp of each choice's log-likelihood (libm, or numpy's own SIMD kernel on x86) may differ by 1 ulp from the correctly rounded one" }),
};

/** Per-document values of a ported process_results, computed once per (document, filter) for all its metrics. */
const taskCodeCache = new WeakMap<DocRecord, Map<string, Record<string, number> | string>>();

function taskCode(settings: TaskSettings, port: string, doc: DocRecord, filter: string, metric: string): ItemResult {
  let byFilter = taskCodeCache.get(doc);
  if (byFilter === undefined) taskCodeCache.set(doc, (byFilter = new Map()));
  let values = byFilter.get(filter);
  if (values === undefined) {
    values = runPort(settings, port, doc, filter);
    byFilter.set(filter, values);
  }
  if (typeof values === 'string') return { kind: 'as-recorded', why: values };
  const value = values[metric];
  if (value === undefined) return { kind: 'as-recorded', why: `${port} returns no ${metric}` };
  const tolerance = PORT_TOLERANCE[port]?.(metric);
  return tolerance === undefined ? { kind: 'value', value } : { kind: 'value', value, tolerance };
}

function runPort(settings: TaskSettings, port: string, doc: DocRecord, filter: string): Record<string, number> | string {
  if (doc.doc === null) return 'the document itself is not stored; the task code reads its fields';
  const fn = PROCESS_RESULTS[port]!;
  try {
    if (settings.outputType === 'generate_until') {
      const pipeline = settings.filterList === null ? (filter === 'none' ? DEFAULT_PIPELINE : null) : settings.filterList.find((p) => p.name === filter) ?? null;
      if (pipeline === null) return `filter '${filter}' is not in the task's recorded filter_list`;
      const texts = doc.requests[0]?.texts ?? [];
      if (texts.length === 0 || texts.some((t) => t === null)) return 'a repeat has no stored text';
      const filtered = buildPipeline(pipeline, { multiChoiceLongestFirst: settings.multiChoiceLongestFirst })(texts, doc.doc);
      if (typeof filtered !== 'string') return 'the filter pipeline leaves a list, not one string';
      return fn(doc.doc, { kind: 'generate_until', results: [filtered] });
    }
    const lls = doc.requests.map((r) => r.logprobs[0]);
    if (lls.length === 0 || lls.some((x) => x === null || x === undefined)) return 'a request has no stored log-probability';
    return fn(doc.doc, { kind: 'loglikelihood', results: doc.requests.map((r) => [r.logprobs[0]!, r.greedy[0] ?? false] as const) });
  } catch (error) {
    if (error instanceof TaskCodeError || error instanceof FilterIndexError) return `lm-eval would have failed here (${error.message})`;
    throw error;
  }
}
