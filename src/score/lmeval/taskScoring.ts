/**
 * Every metric of a task computed from a document's responses, the way lm-eval's
 * `ConfigurableTask.process_results` (or the task's own ported `process_results`)
 * computes it, and each metric aggregated with lm-eval's aggregation and stderr rule.
 * This is what a fresh `lmaudit run` calls; the as-recorded rescorer calls the same
 * per-document functions.
 */
import { UnsupportedError } from '../../errors.ts';
import type { OutputType, TaskConfig } from '../../tasks/config.ts';
import { FUNCTIONS, functionKey } from '../../tasks/functions.ts';
import { FunctionRef } from '../../tasks/yaml.ts';
import {
  aggregate, bitsPerByte, weightedPerplexity, type AggregationName, type Stderr, type SumMode,
} from './aggregate.ts';
import { argmax, generateExactMatch, multipleChoice, type ExactMatchKwargs, type McMetric } from './metrics.ts';
import { aggregateLabels, isLabelAggregation } from './labelAggregates.ts';
import { PROCESS_RESULTS } from './taskCode.ts';

/** A per-document value: a number, or a pair: lm-eval's (loglikelihood, weight) for the rolling metrics, (gold, pred) for f1 and mcc. */
export type SampleValue = number | readonly [number, number];

export interface MetricSpec {
  metric: string;
  aggregation: string;
  /** Keyword arguments lm-eval passes the metric function (exact_match's ignore_case…). */
  kwargs: Record<string, unknown>;
}

export interface ScoringSpec {
  outputType: OutputType;
  metrics: MetricSpec[];
  /** The `!function` registry name of the task's ported process_results, e.g. 'truthfulqa.process_results_gen'. */
  processResults: string | null;
}

/** lm-eval's registered default aggregation per metric (lm_eval/api/metrics.py). */
export const DEFAULT_AGGREGATION: Readonly<Record<string, string>> = {
  acc: 'mean', acc_norm: 'mean', acc_bytes: 'mean', acc_mutual_info: 'mean', exact_match: 'mean',
  perplexity: 'perplexity', word_perplexity: 'weighted_perplexity', byte_perplexity: 'weighted_perplexity',
  bits_per_byte: 'bits_per_byte',
  // Registered with their own aggregations (api/metrics.py): corpus-level, not a mean of per-sample values.
  f1: 'f1', mcc: 'matthews_corrcoef', brier_score: 'brier_score', bleu: 'bleu', chrf: 'chrf', 'chrf++': 'chrf++', ter: 'ter',
};

/** §3.1: the metrics an output type gets when metric_list is absent. */
const DEFAULT_METRICS: Record<OutputType, string[]> = {
  loglikelihood: ['perplexity', 'acc'],
  loglikelihood_rolling: ['word_perplexity', 'byte_perplexity', 'bits_per_byte'],
  multiple_choice: ['acc', 'acc_norm'],
  generate_until: ['exact_match'],
};

const NOT_KWARGS = new Set(['metric', 'aggregation', 'higher_is_better', 'hf_evaluate']);

/** The scoring part of a task config; `roots` are the task folders (to name the process_results port). */
export function scoringSpec(config: TaskConfig, roots: readonly string[]): ScoringSpec {
  let processResults: string | null = null;
  if (config.process_results !== null) {
    const ref = config.process_results;
    const entry = ref instanceof FunctionRef ? FUNCTIONS[functionKey(ref, roots)] : undefined;
    if (entry?.kind !== 'process_results' || PROCESS_RESULTS[entry.name] === undefined) {
      throw new UnsupportedError(`task '${config.task}': process_results ${ref instanceof FunctionRef ? ref.name : '(inline Python)'} has no port in lmaudit, so its metrics cannot be computed`);
    }
    processResults = entry.name;
  }
  const list: readonly Record<string, unknown>[] = config.metric_list ?? DEFAULT_METRICS[config.output_type].map((metric) => ({ metric }));
  const metrics = list.map((m): MetricSpec => {
    const metric = String(m.metric);
    const kwargs: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(m)) if (!NOT_KWARGS.has(k)) kwargs[k] = v;
    const aggregation = typeof m.aggregation === 'string' ? m.aggregation : DEFAULT_AGGREGATION[metric] ?? 'mean';
    return { metric, aggregation, kwargs };
  });
  return { outputType: config.output_type, metrics, processResults };
}

/** What lm-eval's process_results receives for one document. */
export interface DocumentScoringInput {
  doc: Record<string, unknown>;
  /**
   * loglikelihood / multiple_choice: one (loglikelihood, is_greedy) per request, request order;
   * loglikelihood_rolling: the one rolling loglikelihood; generate_until: the filtered response.
   */
  results: readonly (readonly [number, boolean])[] | readonly [number] | readonly [string];
  /** multiple_choice: doc_to_choice(doc) (the contexts, for multiple-input tasks such as winogrande). */
  choices?: readonly string[];
  /**
   * multiple_choice: doc_to_target(doc), or doc_to_text(doc) for multiple-input tasks (an index,
   * a choice text, or a list of either); generate_until: doc_to_target(doc) (a list for
   * multiple-target tasks); loglikelihood_rolling: doc_to_target(doc), the text that was scored.
   */
  target?: unknown;
}

const MC_METRICS = new Set<string>(['acc', 'acc_norm', 'acc_bytes', 'exact_match']);

/** Each metric's per-document value, as lm-eval's process_results returns it. */
export function scoreDocument(spec: ScoringSpec, input: DocumentScoringInput): Record<string, SampleValue> {
  if (spec.processResults !== null) {
    const port = PROCESS_RESULTS[spec.processResults]!;
    const results = input.results as readonly unknown[];
    return port(input.doc, typeof results[0] === 'string'
      ? { kind: 'generate_until', results: results as readonly string[] }
      : { kind: 'loglikelihood', results: results as readonly (readonly [number, boolean])[] });
  }
  const out: Record<string, SampleValue> = {};
  const unsupported = (m: string) => new UnsupportedError(`${spec.outputType} metric '${m}' is not one lmaudit computes`);
  switch (spec.outputType) {
    case 'loglikelihood': {
      const [ll, isGreedy] = (input.results as readonly (readonly [number, boolean])[])[0]!;
      for (const { metric } of spec.metrics) {
        if (metric === 'perplexity') out.perplexity = ll;
        else if (metric === 'acc') out.acc = isGreedy ? 1 : 0;
        else throw unsupported(metric);
      }
      return out;
    }
    case 'loglikelihood_rolling': {
      const ll = (input.results as readonly [number])[0];
      const target = String(input.target);
      const words = rollingWordCount(target);
      const bytes = Buffer.byteLength(target, 'utf8');
      for (const { metric } of spec.metrics) {
        if (metric === 'word_perplexity') out.word_perplexity = [ll, words];
        else if (metric === 'byte_perplexity') out.byte_perplexity = [ll, bytes];
        else if (metric === 'bits_per_byte') out.bits_per_byte = [ll, bytes];
        else throw unsupported(metric);
      }
      return out;
    }
    case 'multiple_choice': {
      const results = input.results as readonly (readonly [number, boolean])[];
      const choices = input.choices ?? [];
      const gold = mcGoldIndex(input.target, choices);
      for (const { metric } of spec.metrics) {
        if (metric === 'f1' || metric === 'mcc') {
          // process_results: (gold, pred), pred the argmax of the log-likelihoods; a list of golds stays a list,
          // which scikit-learn cannot read as labels.
          if (typeof gold !== 'number') throw new UnsupportedError(`${metric} of a document with several golds: lm-eval pairs the list with the prediction, which scikit-learn refuses`);
          out[metric] = [gold, argmax(results.map((r) => r[0]))];
          continue;
        }
        if (!MC_METRICS.has(metric)) throw unsupported(metric);
        out[metric] = multipleChoice({ lls: results.map((r) => r[0]), isGreedy: results.map((r) => r[1]), choices, gold }, metric as McMetric)!;
      }
      return out;
    }
    case 'generate_until': {
      const result = (input.results as readonly [string])[0];
      for (const { metric, kwargs } of spec.metrics) {
        if (metric !== 'exact_match') throw unsupported(metric);
        const target = input.target;
        // lm-eval: a list stays a list (multiple targets); otherwise type(result)(gold), i.e. str(gold).
        const gold = Array.isArray(target) ? target.map(String) : String(target);
        out.exact_match = generateExactMatch(result, gold, kwargs as ExactMatchKwargs);
      }
      return out;
    }
  }
}

/** count_words: len(re.split(r"\s+", text)) — Python's Unicode \s, empty end pieces counted. */
export function rollingWordCount(text: string): number {
  return text.split(PY_SPACE_RUN).length;
}
const PY_SPACE_RUN = /[\t\n\u000b\u000c\r\u001c-\u001f \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+/;

/** §3.5: an index ≥ the number of choices, or a text that is not a choice, becomes -100 (scores 0). */
function mcGoldIndex(target: unknown, choices: readonly string[]): number | number[] {
  const one = (g: unknown): number => {
    if (typeof g === 'number') return g < choices.length ? g : -100;
    if (typeof g === 'string') return choices.includes(g) ? choices.indexOf(g) : -100;
    throw new UnsupportedError(`multiple_choice gold ${JSON.stringify(g)} is neither an index nor a choice text`);
  };
  if (!Array.isArray(target)) return one(target);
  // A list of golds: lm-eval compares each with len(choices), so only indices are valid.
  return target.map((g) => {
    if (typeof g !== 'number') throw new UnsupportedError(`multiple_choice gold list ${JSON.stringify(target)} holds a non-index (lm-eval raises TypeError)`);
    return g < choices.length ? g : -100;
  });
}

/**
 * The summation lm-eval's `sum()` performs over a metric's per-document values: CPython ≥3.12
 * compensates (Neumaier) only over Python floats; numpy float64 values (generate_until's
 * exact_match, everything truthfulqa's process_results returns) fold plainly on every version.
 */
export function lmevalSumMode(spec: ScoringSpec, metric: string, python: { major: number; minor: number }): SumMode {
  const numpyValues = spec.processResults !== null || (spec.outputType === 'generate_until' && metric === 'exact_match');
  return python.major === 3 && python.minor >= 12 && !numpyValues ? 'neumaier' : 'fold';
}

export interface AggregationOptions {
  /** simple_evaluate's bootstrap_iters (lm-eval's CLI always uses 100000); 0 or null: stderr 'N/A'. */
  bootstrapIters: number | null;
  /** 'fold' reproduces CPython ≤3.11's sum(); 'neumaier' CPython ≥3.12 over Python floats. */
  sumMode: SumMode;
  /** median sorts from lm-eval 0.4.12 on. */
  medianSorts: boolean;
}

/**
 * One metric's aggregate over the documents (in evaluation order) and its stderr: mean →
 * Bessel stderr/√n; median, perplexity, nanmean → bootstrap (chunked MT19937, seeds 0,1,…);
 * weighted_perplexity and bits_per_byte → 'N/A' (lm-eval has no stderr for them); one item → 'N/A'.
 */
export function aggregateMetric(metric: MetricSpec, values: readonly SampleValue[], o: AggregationOptions): { value: number; stderr: Stderr } {
  const name = metric.aggregation;
  if (name === 'weighted_perplexity' || name === 'bits_per_byte') {
    const pairs = values.map((v) => {
      if (typeof v === 'number') throw new UnsupportedError(`${metric.metric}: ${name} aggregates (loglikelihood, weight) pairs`);
      return v;
    });
    return { value: name === 'bits_per_byte' ? bitsPerByte(pairs, o.sumMode) : weightedPerplexity(pairs, o.sumMode), stderr: 'N/A' };
  }
  if (isLabelAggregation(name)) {
    const pairs = values.map((v) => {
      if (typeof v === 'number') throw new UnsupportedError(`${metric.metric}: ${name} aggregates (gold, pred) pairs, got a number`);
      return v;
    });
    const result = aggregateLabels(name, pairs, o.bootstrapIters, o.sumMode);
    if ('refused' in result) throw new UnsupportedError(`${metric.metric}: ${result.refused}`);
    return result;
  }
  if (!['mean', 'median', 'perplexity', 'nanmean'].includes(name)) {
    throw new UnsupportedError(`aggregation '${name}' (metric ${metric.metric}) is not one lmaudit computes`);
  }
  const numbers = values.map((v) => {
    if (typeof v !== 'number') throw new UnsupportedError(`${metric.metric}: ${name} aggregates numbers, got a pair`);
    return v;
  });
  return aggregate(name as AggregationName, numbers, { mode: o.sumMode, bootstrapIters: o.bootstrapIters, medianSorts: o.medianSorts, metric: metric.metric });
}
