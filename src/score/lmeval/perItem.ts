/**
 * One document's metric recomputed from its stored raw responses with the task's
 * own settings, or the reason it cannot be (then the recorded value stands, and the
 * report says so). Settings come from the provenance block the importer filled from
 * the results file's `configs` (metric_list kwargs, filter_list, output_type).
 */
import type { RunProvenance } from '../../store/schema.ts';
import { isPlainObject } from '../../util/json.ts';
import { buildPipeline, DEFAULT_PIPELINE, FilterIndexError, type FilterPipeline } from './filters.ts';
import { generateExactMatch, mcGold, multipleChoice, parsePyList, type ExactMatchKwargs, type McMetric } from './metrics.ts';

export interface TaskSettings {
  outputType: string | null;
  /** metric → its metric_list entry (aggregation + kwargs), when recorded. */
  metricList: Map<string, Record<string, unknown>> | null;
  filterList: FilterPipeline[] | null;
  customProcessResults: boolean;
}

export interface DocRecord {
  docId: string;
  requestType: string;
  target: string | null;
  choices: string[] | null;
  doc: Record<string, unknown> | null;
  /** Per request (request_idx order): the repeats' text and log-probabilities. */
  requests: { texts: (string | null)[]; logprobs: (number | null)[]; greedy: (boolean | null)[] }[];
}

export type ItemResult =
  | { kind: 'value'; value: number; filtered?: unknown; multiTarget?: readonly string[] }
  | { kind: 'as-recorded'; why: string };

const factValue = (f: { status: string; value?: unknown } | undefined) => (f && f.status !== 'unknown' ? f.value : undefined);

export function taskSettings(run: RunProvenance, task: string): TaskSettings {
  const t = run.tasks[task];
  if (t === undefined) return { outputType: null, metricList: null, filterList: null, customProcessResults: false };
  const outputType = factValue(t.scoring.output_type?.configured);
  const used = factValue(t.scoring.output_type?.used);
  const metricList = factValue(t.scoring.metrics?.configured);
  const filterList = factValue(t.scoring.filters?.configured);
  return {
    outputType: typeof outputType === 'string' ? outputType : Array.isArray(used) && typeof used[0] === 'string' ? `request:${used[0]}` : null,
    metricList: Array.isArray(metricList)
      ? new Map(metricList.filter(isPlainObject).map((m) => [String(m.metric), m]))
      : null,
    filterList: Array.isArray(filterList) ? (filterList as FilterPipeline[]) : null,
    customProcessResults: factValue(t.scoring.scoring_path?.configured) === 'process_results (task code)',
  };
}

const MC_METRICS = new Set(['acc', 'acc_norm', 'acc_bytes', 'exact_match']);
const KWARG_SKIP = new Set(['metric', 'aggregation', 'higher_is_better', 'hf_evaluate']);

export function recomputeItem(settings: TaskSettings, doc: DocRecord, filter: string, metric: string): ItemResult {
  if (settings.customProcessResults) {
    return { kind: 'as-recorded', why: "the task's own process_results (Python, recorded only as source text) computes this value; not run here" };
  }
  const type = settings.outputType ?? (doc.requests.length > 1 && doc.requestType === 'loglikelihood' ? 'multiple_choice' : `request:${doc.requestType}`);
  if (type === 'generate_until' || type === 'greedy_until' || type === 'request:generate_until') return generation(settings, doc, filter, metric);
  // A loglikelihood task sends one request per document; several mean multiple choice (v0.3 write_out records say no more).
  if (type === 'multiple_choice' || ((type === 'loglikelihood' || type === 'request:loglikelihood') && doc.requests.length > 1)) return multipleChoiceItem(doc, metric);
  if (type === 'loglikelihood' || type === 'request:loglikelihood') return loglikelihood(doc, metric);
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

function multipleChoiceItem(doc: DocRecord, metric: string): ItemResult {
  if (!MC_METRICS.has(metric)) return { kind: 'as-recorded', why: `multiple_choice metric ${metric} is not recomputed` };
  const lls = doc.requests.map((r) => r.logprobs[0]);
  if (lls.some((x) => x === null || x === undefined)) return { kind: 'as-recorded', why: 'a choice has no stored log-probability' };
  if (doc.target === null) return { kind: 'as-recorded', why: 'no target recorded' };
  const gold = mcGold(doc.target, doc.choices, lls.length);
  if (gold === null) {
    return {
      kind: 'as-recorded',
      why: `the gold index cannot be read from the target ${JSON.stringify(doc.target.slice(0, 60))} without the choice list (multiple-input tasks such as winogrande compute it in Python doc_to_text)`,
    };
  }
  const value = multipleChoice({ lls: lls as number[], isGreedy: doc.requests.map((r) => r.greedy[0] ?? null), choices: doc.choices, gold }, metric as McMetric);
  return value === null ? { kind: 'as-recorded', why: `${metric} needs ${metric === 'exact_match' ? 'is_greedy' : 'the choice texts'}, which were not recorded` } : { kind: 'value', value };
}

function generation(settings: TaskSettings, doc: DocRecord, filter: string, metric: string): ItemResult {
  const pipeline = settings.filterList === null ? (filter === 'none' ? DEFAULT_PIPELINE : null) : settings.filterList.find((p) => p.name === filter) ?? null;
  if (pipeline === null) return { kind: 'as-recorded', why: `filter '${filter}' is not in the task's recorded filter_list` };
  const texts = doc.requests[0]?.texts ?? [];
  if (texts.some((t) => t === null)) return { kind: 'as-recorded', why: 'a repeat has no stored text' };
  let filtered: unknown;
  try {
    filtered = buildPipeline(pipeline)(texts, doc.doc);
  } catch (error) {
    if (error instanceof FilterIndexError) return { kind: 'as-recorded', why: `lm-eval would have failed here (${error.message})` };
    throw error;
  }
  if (metric !== 'exact_match') {
    return { kind: 'as-recorded', why: `${metric} needs a library lmaudit does not reimplement (sacrebleu, rouge_score, HF evaluate); the per-item value is taken as recorded` };
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
