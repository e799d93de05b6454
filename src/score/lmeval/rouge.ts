/**
 * Google's rouge_score (rouge_scorer.py, tokenize.py, scoring.py) as lm-eval's task
 * code calls it: `RougeScorer(rouge_types)` with its defaults (no Porter stemmer, no
 * sentence splitting, the default tokenizer), one (target, prediction) pair. Hand-written
 * because there is no maintained JavaScript port; no stemmer is ported because no
 * shipped task asks for one (`use_stemmer` defaults to False), so asking for it fails.
 *
 * A one-pair BootstrapAggregator returns the pair's own score as `mid` (every resample
 * is that one row; the mean of one value and numpy's percentile of a constant column
 * are that value exactly), so no resampling is done here.
 */

import { UnsupportedError } from '../../errors.ts';
import { pyLower } from '../../py/str.ts';

export interface RougeScore {
  precision: number;
  recall: number;
  fmeasure: number;
}

/** rouge_score's tokenize(text, stemmer=None): lower, non-[a-z0-9] → space, split, keep non-empty. */
const tokenCache = new Map<string, readonly string[]>();

/** rougeTokenize, remembered: process_results_gen scores one completion against every reference. */
function tokens(text: string): readonly string[] {
  const hit = tokenCache.get(text);
  if (hit !== undefined) return hit;
  if (tokenCache.size >= 65536) tokenCache.clear();
  const out = rougeTokenize(text);
  tokenCache.set(text, out);
  return out;
}

export function rougeTokenize(text: string): string[] {
  // Python's str.lower() (its Unicode, final sigma included); only ASCII letters and digits survive the next step.
  return pyLower(text).replace(/[^a-z0-9]+/g, ' ').split(' ').filter((t) => t.length > 0);
}

/** scoring.fmeasure: 2·p·r/(p+r) in Python's left-to-right order, 0 when p+r is 0. */
export function fmeasure(precision: number, recall: number): number {
  return precision + recall > 0 ? (2 * precision * recall) / (precision + recall) : 0.0;
}

// Token lists are shared through the tokenizer cache, so their n-gram counts can be remembered by identity.
const ngramCache = new WeakMap<readonly string[], Map<number, ReadonlyMap<string, number>>>();

function ngramCounts(tokens: readonly string[], n: number): ReadonlyMap<string, number> {
  let byN = ngramCache.get(tokens);
  if (byN === undefined) ngramCache.set(tokens, (byN = new Map()));
  let counts = byN.get(n);
  if (counts === undefined) byN.set(n, (counts = ngramCountsUncached(tokens, n)));
  return counts;
}

function ngramCountsUncached(tokens: readonly string[], n: number): Map<string, number> {
  const out = new Map<string, number>();
  for (let i = 0; i + n <= tokens.length; i++) {
    const key = tokens.slice(i, i + n).join('\u0000');
    out.set(key, (out.get(key) ?? 0) + 1);
  }
  return out;
}

function scoreNgrams(target: ReadonlyMap<string, number>, prediction: ReadonlyMap<string, number>): RougeScore {
  let intersection = 0;
  for (const [k, c] of target) intersection += Math.min(c, prediction.get(k) ?? 0);
  let targetCount = 0;
  for (const c of target.values()) targetCount += c;
  let predictionCount = 0;
  for (const c of prediction.values()) predictionCount += c;
  const precision = intersection / Math.max(predictionCount, 1);
  const recall = intersection / Math.max(targetCount, 1);
  return { precision, recall, fmeasure: fmeasure(precision, recall) };
}

function lcsTable(ref: readonly string[], can: readonly string[]): number[][] {
  const t = Array.from({ length: ref.length + 1 }, () => new Array<number>(can.length + 1).fill(0));
  for (let i = 1; i <= ref.length; i++) {
    for (let j = 1; j <= can.length; j++) {
      t[i]![j] = ref[i - 1] === can[j - 1] ? t[i - 1]![j - 1]! + 1 : Math.max(t[i - 1]![j]!, t[i]![j - 1]!);
    }
  }
  return t;
}

function scoreLcs(target: readonly string[], prediction: readonly string[]): RougeScore {
  if (target.length === 0 || prediction.length === 0) return { precision: 0, recall: 0, fmeasure: 0 };
  const lcs = lcsTable(target, prediction)[target.length]![prediction.length]!;
  const precision = lcs / prediction.length;
  const recall = lcs / target.length;
  return { precision, recall, fmeasure: fmeasure(precision, recall) };
}

/** _backtrack_norec: the indices into `ref` of one longest common subsequence. */
function lcsIndices(ref: readonly string[], can: readonly string[]): number[] {
  const t = lcsTable(ref, can);
  let i = ref.length;
  let j = can.length;
  const out: number[] = [];
  while (i > 0 && j > 0) {
    if (ref[i - 1] === can[j - 1]) {
      out.unshift(i - 1);
      i--;
      j--;
    } else if (t[i]![j - 1]! > t[i - 1]![j]!) j--;
    else i--;
  }
  return out;
}

/** _summary_level_lcs (ROUGE-1.5.5's union LCS, counts capped so no token is counted twice). */
function summaryLevelLcs(refSents: readonly (readonly string[])[], canSents: readonly (readonly string[])[]): RougeScore {
  const zero = { precision: 0, recall: 0, fmeasure: 0 };
  if (refSents.length === 0 || canSents.length === 0) return zero;
  const m = refSents.reduce((a, s) => a + s.length, 0);
  const n = canSents.reduce((a, s) => a + s.length, 0);
  if (n === 0 || m === 0) return zero;
  const countsR = new Map<string, number>();
  const countsC = new Map<string, number>();
  for (const s of refSents) for (const t of s) countsR.set(t, (countsR.get(t) ?? 0) + 1);
  for (const s of canSents) for (const t of s) countsC.set(t, (countsC.get(t) ?? 0) + 1);
  let hits = 0;
  for (const r of refSents) {
    const union = [...new Set(canSents.flatMap((c) => lcsIndices(r, c)))].sort((a, b) => a - b);
    for (const token of union.map((i) => r[i]!)) {
      if ((countsC.get(token) ?? 0) > 0 && (countsR.get(token) ?? 0) > 0) {
        hits++;
        countsC.set(token, countsC.get(token)! - 1);
        countsR.set(token, countsR.get(token)! - 1);
      }
    }
  }
  const recall = hits / m;
  const precision = hits / n;
  return { precision, recall, fmeasure: fmeasure(precision, recall) };
}

/** Sentences for rougeLsum: split on "\n", empty pieces dropped (split_summaries=False). */
function sentences(text: string): (readonly string[])[] {
  return text.split('\n').filter((s) => s.length > 0).map(tokens);
}

/** `RougeScorer(rougeTypes).score(target, prediction)`. */
export function rougeScore(rougeTypes: readonly string[], target: string, prediction: string, useStemmer = false): Record<string, RougeScore> {
  if (useStemmer) throw new UnsupportedError('rouge_score with use_stemmer=True needs the Porter stemmer, which lmaudit does not port (no shipped task uses it)');
  const targetTokens = tokens(target);
  const predictionTokens = tokens(prediction);
  const out: Record<string, RougeScore> = {};
  for (const type of rougeTypes) {
    if (type === 'rougeL') out[type] = scoreLcs(targetTokens, predictionTokens);
    else if (type === 'rougeLsum') out[type] = summaryLevelLcs(sentences(target), sentences(prediction));
    else if (/^rouge[0-9]$/.test(type)) {
      const n = Number(type.slice(5));
      if (n <= 0) throw new UnsupportedError(`rougen requires positive n: ${type}`);
      out[type] = scoreNgrams(ngramCounts(targetTokens, n), ngramCounts(predictionTokens, n));
    } else throw new UnsupportedError(`Invalid rouge type: ${type}`);
  }
  return out;
}
