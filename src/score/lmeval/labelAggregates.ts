import { bootstrapStderr, type Stderr, type SumMode } from './aggregate.ts';
import { npSum } from '../../util/numpySum.ts';

/**
 * lm-eval's aggregations over per-sample (gold, pred) label pairs: multiple_choice's f1 and mcc metrics
 * (api/task.py process_results writes `(gold, pred)`, pred = argmax of the choices' log-likelihoods), which
 * api/metrics.py's f1_score and matthews_corrcoef hand to scikit-learn. Written out with scikit-learn's own
 * arithmetic (1.9's; every count is an exact double, so only the last multiplication, division and square
 * root round, as numpy's do) so that the printed digits match, and with its refusals, so that no number is
 * made up where lm-eval would have stopped with an error.
 */

/** One document's (gold, pred): the gold choice index (-100 when the target is not a choice) and the argmax. */
export type LabelPair = readonly [gold: number, pred: number];

export type LabelAggregate = { value: number } | { refused: string };

function distinctLabels(pairs: readonly LabelPair[]): number[] {
  const labels = new Set<number>();
  for (const [gold, pred] of pairs) {
    labels.add(gold);
    labels.add(pred);
  }
  return [...labels].sort((a, b) => a - b);
}

/**
 * `sklearn.metrics.f1_score(golds, preds)` with its defaults, as lm-eval calls it (then `np.max` of the one
 * score): average='binary', pos_label=1, so the score of label 1, 2·tp / (golds of 1 + preds of 1), and 0.0
 * when neither has a 1 (zero_division='warn' gives 0). sklearn refuses more than two distinct labels, and two
 * that do not include 1.
 */
export function binaryF1(pairs: readonly LabelPair[]): LabelAggregate {
  const labels = distinctLabels(pairs);
  if (labels.length > 2) {
    return { refused: `scikit-learn's f1_score, as lm-eval calls it (average='binary'), refuses ${labels.length} distinct labels (${labels.join(', ')}): lm-eval stops with "Target is multiclass but average='binary'"` };
  }
  if (labels.length === 2 && !labels.includes(1)) {
    return { refused: `scikit-learn's f1_score, as lm-eval calls it (pos_label=1), refuses the labels ${labels.join(' and ')}: lm-eval stops with "pos_label=1 is not a valid label"` };
  }
  let tp = 0;
  let golds = 0;
  let preds = 0;
  for (const [gold, pred] of pairs) {
    if (gold === 1) golds++;
    if (pred === 1) preds++;
    if (gold === 1 && pred === 1) tp++;
  }
  // sklearn: (1 + β²)·tp / (β²·true_sum + pred_sum) with β² = 1.0.
  const denominator = 1.0 * golds + preds;
  return { value: denominator === 0 ? 0 : (2.0 * tp) / denominator };
}

/**
 * `sklearn.metrics.matthews_corrcoef(golds, preds)`, binary or multiclass: from the confusion matrix over the
 * labels either side uses, cov(ŷ,y) / √(cov(ŷ,ŷ)·cov(y,y)), and 0.0 when that product is 0.
 */
export function matthewsCorrcoef(pairs: readonly LabelPair[]): LabelAggregate {
  const labels = distinctLabels(pairs);
  const index = new Map(labels.map((label, i) => [label, i]));
  const golds = new Array<number>(labels.length).fill(0);
  const preds = new Array<number>(labels.length).fill(0);
  let correct = 0;
  for (const [gold, pred] of pairs) {
    golds[index.get(gold)!]!++;
    preds[index.get(pred)!]!++;
    if (gold === pred) correct++;
  }
  const n = pairs.length;
  const dot = (a: readonly number[], b: readonly number[]) => a.reduce((sum, x, i) => sum + x * b[i]!, 0);
  const covariance = correct * n - dot(golds, preds);
  const predVariance = n * n - dot(preds, preds);
  const goldVariance = n * n - dot(golds, golds);
  // The only operation here that can round (n⁴ passes 2^53 near 9,500 items), as numpy's float64 product does.
  const product = predVariance * goldVariance;
  return { value: product === 0 ? 0 : covariance / Math.sqrt(product) };
}

export type F1Average = 'micro' | 'macro' | 'weighted';

/**
 * `sklearn.metrics.f1_score(golds, preds, average=…)` over every label either side uses (multiclass allowed): each
 * label's 2·tp / (golds of it + preds of it); 'micro' the same over all labels at once (correct / n), 'macro' their
 * numpy mean (np.nanmean: the pairwise sum over the count), 'weighted' their numpy average weighted by each label's
 * golds (np.average: Σ f·w / Σ w, both pairwise sums).
 */
export function averagedF1(pairs: readonly LabelPair[], average: F1Average): LabelAggregate {
  const labels = distinctLabels(pairs);
  const index = new Map(labels.map((label, i) => [label, i]));
  const tp = new Array<number>(labels.length).fill(0);
  const golds = new Array<number>(labels.length).fill(0);
  const preds = new Array<number>(labels.length).fill(0);
  for (const [gold, pred] of pairs) {
    golds[index.get(gold)!]!++;
    preds[index.get(pred)!]!++;
    if (gold === pred) tp[index.get(gold)!]!++;
  }
  const score = (t: number, g: number, p: number) => {
    const denominator = 1.0 * g + p;
    return denominator === 0 ? 0 : (2.0 * t) / denominator;
  };
  if (average === 'micro') return { value: score(tp.reduce((a, b) => a + b, 0), pairs.length, pairs.length) };
  const scores = labels.map((_, i) => score(tp[i]!, golds[i]!, preds[i]!));
  if (average === 'macro') return { value: npSum(scores) / scores.length };
  return { value: npSum(scores.map((f, i) => f * golds[i]!)) / npSum(golds) };
}

/**
 * Task code that aggregates f1's pairs with scikit-learn's f1_score and an `average` (utils.weighted_f1_score,
 * micro_f1_score, macro_f1_score in many of lm-eval's task folders: afrimmlu, afrixnli, aradice, kobest…): lm-eval
 * records a `!function` aggregation as its Python source, which is read here, whitespace aside.
 */
const TASK_CODE_F1 = /^def \w+\(items\): (?:from sklearn\.metrics import f1_score )?unzipped_list = list\(zip\(\*items\)\) golds = unzipped_list\[0\] preds = unzipped_list\[1\] fscore = f1_score\(golds, preds, average=["'](micro|macro|weighted)["']\) return fscore$/;

/** The aggregation lm-eval names (or the task code's source it records), over label pairs; null for any other. */
export function labelAggregation(name: string): ((pairs: readonly LabelPair[]) => LabelAggregate) | null {
  if (name === 'f1') return binaryF1;
  if (name === 'matthews_corrcoef') return matthewsCorrcoef;
  const taskCode = TASK_CODE_F1.exec(name.replace(/\s+/g, ' ').trim());
  return taskCode === null ? null : (pairs) => averagedF1(pairs, taskCode[1] as F1Average);
}

/**
 * A label aggregation over a task's pairs (evaluation order) with lm-eval's stderr: its bootstrap (the resamples of
 * any bootstrapped aggregation, random.Random(i).choices of the pairs) when iterations are asked for and there is
 * more than one pair, else 'N/A'. The replicates' spread is summed as Python would: f1's replicates are numpy
 * floats (np.max), a plain fold on any Python; mcc's are Python floats, compensated on CPython ≥ 3.12 (`sumMode`).
 */
export function aggregateLabels(
  name: string,
  pairs: readonly LabelPair[],
  bootstrapIters: number | null,
  sumMode: SumMode,
): { value: number; stderr: Stderr } | { refused: string } {
  const byLabels = labelAggregation(name)!;
  const whole = byLabels(pairs);
  if ('refused' in whole) return whole;
  // lm-eval bootstraps only its own registered aggregations; task code has no stderr function ('N/A').
  const bootstrapped = name === 'f1' || name === 'matthews_corrcoef';
  if (!bootstrapped || bootstrapIters === null || bootstrapIters <= 0 || pairs.length < 2) return { value: whole.value, stderr: 'N/A' };
  // A resample holds a subset of the labels the whole set holds, which the aggregation accepted.
  const statistic = (sample: LabelPair[]) => (byLabels(sample) as { value: number }).value;
  return { value: whole.value, stderr: bootstrapStderr(statistic, pairs, bootstrapIters, name === 'f1' ? 'fold' : sumMode) };
}

/** Whether lm-eval aggregates a metric of this aggregation over (gold, pred) pairs. */
export const isLabelAggregation = (name: string | null): name is string => name !== null && labelAggregation(name) !== null;

/**
 * A recorded two-value tuple, lm-eval's per-sample value for the metrics aggregated over the whole task (its JSON
 * array of two), with each leaf a number where it is one or a string spelling one (lm-eval ≥0.4.3 may stringify
 * the leaves); null for anything else.
 */
export function recordedNumberPair(json: string): readonly [number, number] | null {
  // Most recorded values are numbers: those are not parsed here at all (this runs once an item of every cell).
  if (!json.startsWith('[')) return null;
  let v: unknown;
  try {
    v = JSON.parse(json);
  } catch {
    return null;
  }
  if (!Array.isArray(v) || v.length !== 2) return null;
  const [a, b] = v.map((x) => (typeof x === 'string' && x.trim() !== '' ? Number(x) : x));
  return typeof a === 'number' && typeof b === 'number' ? [a, b] : null;
}

/** A recorded (gold, pred) pair: `[1, 0]` (lm-eval writes the tuple's numpy integers as JSON numbers), or null. */
export function recordedLabels(json: string): LabelPair | null {
  return asLabels(recordedNumberPair(json));
}

/** A recorded two-number tuple as a (gold, pred) pair: both integers, else null. */
export function asLabels(pair: readonly [number, number] | null): LabelPair | null {
  return pair !== null && Number.isInteger(pair[0]) && Number.isInteger(pair[1]) ? pair : null;
}
