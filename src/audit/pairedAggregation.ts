/**
 * What the paired statistics' A and B are when the source does not aggregate a metric by its mean. Pairing takes the
 * mean of each side's per-item values; lm-eval's per-item `perplexity` value is the log-likelihood of the gold
 * continuation, and its `perplexity` aggregation reports exp(−mean) of them. lambada_openai of two gpt2-tiny runs
 * printed "perplexity,none  A -12.65  B -12.52  B − A +0.1283" beside reported perplexities of 312507.8 and
 * 274890.8: the numbers were mean log-likelihoods, and the positive difference a lower perplexity in B.
 */
import type { RunProvenance } from '../store/schema.ts';
import { metricSpec, valueOf } from './provenanceView.ts';

/** The aggregation the run names for `metric` of `task` (lm-eval's metric_list), when it names one. */
export function aggregationOf(run: RunProvenance, task: string, metric: string): string | undefined {
  const value = valueOf(run, task, 'repeats.aggregation');
  if (value === null || typeof value !== 'object') return undefined;
  const perMetric = (value as { per_metric?: unknown }).per_metric;
  if (perMetric === null || typeof perMetric !== 'object') return undefined;
  const named = (perMetric as Record<string, unknown>)[metric];
  return typeof named === 'string' ? named : undefined;
}

/** What A and B of a paired score are, where the source does not aggregate it by its mean. */
export interface AggregationNote {
  /** The per-item values, for a label: "mean log-likelihood". */
  values: string;
  /** The sentence for people. */
  sentence: string;
}

/**
 * What A and B are for a paired `score` ('metric,filter') that a run aggregates other than by the mean; null for a
 * mean (or an aggregation not recorded, or a rescoring cell, whose values are 0/1 means).
 */
export function pairedAggregationNote(score: string, a: { run: RunProvenance; task: string }, b: { run: RunProvenance; task: string }): AggregationNote | null {
  const metric = score.split(',')[0]!;
  const names = [...new Set([aggregationOf(a.run, a.task, metric), aggregationOf(b.run, b.task, metric)].filter((x): x is string => x !== undefined))];
  const other = names.filter((n) => n !== 'mean');
  if (other.length === 0) return null;
  if (other.length === 1 && names.length === 1 && other[0] === 'perplexity') {
    return {
      values: 'mean log-likelihood',
      sentence: 'A and B are the means of the per-item values, log-likelihoods of the gold continuation, not perplexities: lm-eval reports perplexity as exp(−mean) of them, so a positive B − A is a lower perplexity in B',
    };
  }
  return {
    values: 'mean of the per-item values',
    sentence: `A and B are the means of the per-item values, not the reported numbers: the source aggregates ${metric} with ${names.map((n) => `'${n}'`).join(' and ')}`,
  };
}

/** A paired score's name with what its A and B are, where they are not the source's aggregate: `perplexity,none (mean log-likelihood)`. */
export function pairedScoreLabel(p: { score: string; values?: string }): string {
  return p.values === undefined ? p.score : `${p.score} (${p.values})`;
}

/**
 * Whether the source says a lower `metric` is better for `task`: the metric_list entry's higher_is_better, or the
 * results file's own higher_is_better table (`higherIsBetter`, read by the caller), false in either.
 */
export function lowerIsBetter(run: RunProvenance, task: string, metric: string, fromResults?: unknown): boolean {
  return fromResults === false || metricSpec(run.tasks[task], metric)?.higher_is_better === false;
}
