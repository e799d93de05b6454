/**
 * sacrebleu's BLEU (sacrebleu/metrics/bleu.py, 2.x) as lm-eval's task code calls it:
 * `corpus_bleu(hyps, ref_streams, smooth_method, smooth_value, lowercase, tokenize,
 * use_effective_order)`. Only the `intl` tokenizer (TokenizerV14International) is
 * ported: truthfulqa_gen's `bleu()` is the one caller among the shipped tasks; the
 * registered `bleu` aggregation (13a tokenizer, corpus level) is used by none of them.
 *
 * Hand-written because there is no maintained JavaScript sacrebleu; the arithmetic is
 * Python's operation for operation (left-fold `sum`, `math.log`/`math.exp`, int/int
 * true division) so the score is the same double where the platforms' libm agree.
 */
import { UnsupportedError } from '../../errors.ts';
import { PY_WHITESPACE, pyLower, pySplit } from '../../py/str.ts';
import { pyExp, pyLog } from '../../py/math.ts';
import { REGEX_NUMBER, REGEX_PUNCTUATION, REGEX_SYMBOL } from '../../py/regexPackageClasses.ts';

export const MAX_NGRAM_ORDER = 4;

export type SmoothMethod = 'none' | 'floor' | 'add-k' | 'exp';
const SMOOTH_DEFAULTS: Record<SmoothMethod, number | null> = { none: null, floor: 0.1, 'add-k': 1, exp: null };

export interface BleuOptions {
  smoothMethod?: SmoothMethod;
  /** null or undefined: sacrebleu's default for the method. */
  smoothValue?: number | null;
  lowercase?: boolean;
  tokenize?: 'intl';
  effectiveOrder?: boolean;
}

// TokenizerV14International's three substitutions, with the `regex` package's own classes (not Node's ICU).
const NOT_NUMBER = `[${REGEX_NUMBER.classBody(true)}]`;
const PUNCTUATION = `[${REGEX_PUNCTUATION.classBody()}]`;
const INTL: readonly [RegExp, string][] = [
  [new RegExp(`(${NOT_NUMBER})(${PUNCTUATION})`, 'gu'), '$1 $2 '],
  [new RegExp(`(${PUNCTUATION})(${NOT_NUMBER})`, 'gu'), ' $1 $2'],
  [new RegExp(`([${REGEX_SYMBOL.classBody()}])`, 'gu'), ' $1 '],
];

// sacrebleu caches the tokenizer (lru_cache, 2^16 entries): the same hypothesis meets every reference.
const intlCache = new Map<string, string>();

export function tokenizeIntl(line: string): string {
  const hit = intlCache.get(line);
  if (hit !== undefined) return hit;
  if (intlCache.size >= 65536) intlCache.clear();
  const out = tokenizeIntlUncached(line);
  intlCache.set(line, out);
  return out;
}

function tokenizeIntlUncached(line: string): string {
  let out = line;
  for (const [re, repl] of INTL) out = out.replace(re, repl);
  return pySplit(out).join(' ');
}

const TRAILING_WS = new RegExp(`[${PY_WHITESPACE}]+$`);

/** `_preprocess_segment`: optional lower(), then rstrip() (Python's whitespace set), then tokenize. */
function preprocess(sent: string, o: BleuOptions): string {
  const s = o.lowercase ? pyLower(sent) : sent;
  return tokenizeIntl(s.replace(TRAILING_WS, ''));
}

/** extract_all_word_ngrams(line, 1, 4): n-gram counts keyed by the tokens joined with \u0000, and the length. */
const ngramCache = new Map<string, { counts: ReadonlyMap<string, number>; len: number }>();

function ngrams(line: string): { counts: ReadonlyMap<string, number>; len: number } {
  const hit = ngramCache.get(line);
  if (hit !== undefined) return hit;
  if (ngramCache.size >= 65536) ngramCache.clear();
  const out = ngramsUncached(line);
  ngramCache.set(line, out);
  return out;
}

function ngramsUncached(line: string): { counts: Map<string, number>; len: number } {
  const tokens = pySplit(line);
  const counts = new Map<string, number>();
  for (let n = 1; n <= MAX_NGRAM_ORDER; n++) {
    for (let i = 0; i + n <= tokens.length; i++) {
      const key = `${n}\u0001${tokens.slice(i, i + n).join('\u0000')}`;
      counts.set(key, (counts.get(key) ?? 0) + 1);
    }
  }
  return { counts, len: tokens.length };
}

/** `_get_closest_ref_len`: the reference length closest to the hypothesis', the shorter on a tie. */
function closestRefLen(hypLen: number, refLens: readonly number[]): number {
  let closestDiff = -1;
  let closestLen = -1;
  for (const refLen of refLens) {
    const diff = Math.abs(hypLen - refLen);
    if (closestDiff === -1 || diff < closestDiff) {
      closestDiff = diff;
      closestLen = refLen;
    } else if (diff === closestDiff && refLen < closestLen) closestLen = refLen;
  }
  return closestLen;
}

/** One segment's statistics: [hyp_len, ref_len, correct×4, total×4]. */
function segmentStats(hyp: string, refs: readonly string[]): number[] {
  let refCounts: ReadonlyMap<string, number> | null = null;
  const refLens: number[] = [];
  for (const ref of refs) {
    const { counts, len } = ngrams(ref);
    refLens.push(len);
    if (refCounts === null) refCounts = counts;
    else {
      // Merge into a copy: the cached counts of the first reference stay as they are.
      const previous: ReadonlyMap<string, number> = refCounts;
      const merged: Map<string, number> = new Map(previous);
      for (const [k, c] of counts) merged.set(k, Math.max(merged.get(k) ?? 0, c));
      refCounts = merged;
    }
  }
  const { counts: hypCounts, len: hypLen } = ngrams(hyp);
  const correct = new Array<number>(MAX_NGRAM_ORDER).fill(0);
  const total = new Array<number>(MAX_NGRAM_ORDER).fill(0);
  for (const [k, c] of hypCounts) {
    const n = Number(k.slice(0, k.indexOf('\u0001'))) - 1;
    total[n]! += c;
    const r = refCounts?.get(k);
    if (r !== undefined) correct[n]! += Math.min(c, r);
  }
  return [hypLen, closestRefLen(hypLen, refLens), ...correct, ...total];
}

/** utils.my_log: log, floored to -9999999999 at 0. */
function myLog(x: number): number {
  if (x === 0) return -9999999999;
  // Precisions are 100·c/t for small counts: the same few values recur across a corpus.
  let y = logCache.get(x);
  if (y === undefined) {
    if (logCache.size >= 65536) logCache.clear();
    logCache.set(x, (y = pyLog(x)));
  }
  return y;
}
const logCache = new Map<number, number>();

export interface BleuScore {
  score: number;
  counts: number[];
  totals: number[];
  precisions: number[];
  bp: number;
  sysLen: number;
  refLen: number;
}

/** BLEU.compute_bleu from the summed statistics. */
export function computeBleu(correctIn: readonly number[], totalIn: readonly number[], sysLen: number, refLen: number, o: BleuOptions = {}): BleuScore {
  const method = o.smoothMethod ?? 'exp';
  const smoothValue = o.smoothValue ?? SMOOTH_DEFAULTS[method];
  const correct = [...correctIn];
  const total = [...totalIn];
  let bp = 1.0;
  if (sysLen < refLen) bp = sysLen > 0 ? pyExp(1 - refLen / sysLen) : 0.0;
  const precisions = new Array<number>(MAX_NGRAM_ORDER).fill(0.0);
  const result = (score: number): BleuScore => ({ score, counts: correct, totals: total, precisions, bp, sysLen, refLen });
  // Early stop when nothing matches (sacrebleu #141).
  if (!correct.some((c) => c !== 0)) return result(0.0);
  let smoothMteval = 1.0;
  let effOrder = MAX_NGRAM_ORDER;
  for (let n = 1; n <= MAX_NGRAM_ORDER; n++) {
    if (method === 'add-k' && n > 1) {
      correct[n - 1]! += smoothValue!;
      total[n - 1]! += smoothValue!;
    }
    if (total[n - 1] === 0) break;
    if (o.effectiveOrder) effOrder = n;
    if (correct[n - 1] === 0) {
      if (method === 'exp') {
        smoothMteval *= 2;
        precisions[n - 1] = 100.0 / (smoothMteval * total[n - 1]!);
      } else if (method === 'floor') precisions[n - 1] = (100.0 * smoothValue!) / total[n - 1]!;
    } else precisions[n - 1] = (100.0 * correct[n - 1]!) / total[n - 1]!;
  }
  // Python's sum() over a list of floats: a left fold from 0 (CPython ≤3.11; lm-eval's recorded runs).
  let s = 0;
  for (const p of precisions.slice(0, effOrder)) s += myLog(p);
  return result(bp * pyExp(s / effOrder));
}

/**
 * `sacrebleu.corpus_bleu(hypotheses, references, ...)`: `references` are streams (one
 * list of segments per reference set), as sacrebleu takes them.
 */
export function corpusBleu(hypotheses: readonly string[], references: readonly (readonly string[])[], o: BleuOptions = {}): BleuScore {
  if ((o.tokenize ?? 'intl') !== 'intl') throw new UnsupportedError(`sacrebleu tokenizer '${o.tokenize}' is not ported (only 'intl', which truthfulqa uses)`);
  const sums = new Array<number>(2 + 2 * MAX_NGRAM_ORDER).fill(0);
  hypotheses.forEach((hyp, i) => {
    const refs = references.map((stream) => preprocess(stream[i]!, o));
    const stats = segmentStats(preprocess(hyp, o), refs);
    stats.forEach((v, k) => (sums[k]! += v));
  });
  return computeBleu(sums.slice(2, 2 + MAX_NGRAM_ORDER), sums.slice(2 + MAX_NGRAM_ORDER), sums[0]!, sums[1]!, o);
}
