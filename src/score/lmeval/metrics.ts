/**
 * lm-eval's per-document metrics (§3) computed from stored responses: exact_match
 * with HF evaluate's kwargs in their order (and numpy's string-array quirks), the
 * multiple_choice family from log-probabilities, and loglikelihood acc/perplexity.
 */
import { compilePython } from '../../py/re.ts';
import { subEmpty } from '../../py/reMatch.ts';
import { literalEval } from '../../py/literalEval.ts';
import { pyLower } from '../../py/str.ts';

export interface ExactMatchKwargs {
  regexes_to_ignore?: readonly string[];
  ignore_case?: boolean;
  ignore_punctuation?: boolean;
  ignore_numbers?: boolean;
}

// string.punctuation: ASCII only (multi_choice_regex uses Unicode punctuation instead).
const ASCII_PUNCT = /[!"#$%&'()*+,\-./:;<=>?@[\\\]^_`{|}~]/g;

/**
 * A numpy unicode array: every element as a list of code points, trailing NULs
 * dropped, and the array's width (longest element). np.char.lower keeps that width,
 * so a lower-case form that grows ("İ" → "i̇") is cut to it.
 */
function npArray(items: readonly string[]): { items: string[]; width: number } {
  const cleaned = items.map((s) => s.replace(/\u0000+$/, ''));
  return { items: cleaned, width: Math.max(0, ...cleaned.map((s) => [...s].length)) };
}

function npLower(arr: { items: string[]; width: number }): { items: string[]; width: number } {
  return { items: arr.items.map((s) => [...pyLower(s)].slice(0, arr.width).join('').replace(/\u0000+$/, '')), width: arr.width };
}

/** `exact_match_hf_evaluate(predictions, references, **kwargs)["exact_match"]`: the mean of element-wise equality. */
export function exactMatch(predictions: readonly string[], references: readonly string[], kw: ExactMatchKwargs = {}): number {
  let preds = npArray(predictions);
  let refs = npArray(references);
  for (const rx of kw.regexes_to_ignore ?? []) {
    const p = compilePython(rx);
    preds = npArray(preds.items.map((s) => subEmpty(p, s)));
    refs = npArray(refs.items.map((s) => subEmpty(p, s)));
  }
  if (kw.ignore_case) {
    preds = npLower(preds);
    refs = npLower(refs);
  }
  if (kw.ignore_punctuation) {
    preds = npArray(preds.items.map((s) => s.replace(ASCII_PUNCT, '')));
    refs = npArray(refs.items.map((s) => s.replace(ASCII_PUNCT, '')));
  }
  if (kw.ignore_numbers) {
    preds = npArray(preds.items.map((s) => s.replace(/[0-9]/g, '')));
    refs = npArray(refs.items.map((s) => s.replace(/[0-9]/g, '')));
  }
  let hits = 0;
  preds.items.forEach((p, i) => {
    if (p === refs.items[i]) hits++;
  });
  return hits / preds.items.length;
}

/** generate_until's exact_match for one doc (§3.6): one gold, or any of several golds. */
export function generateExactMatch(result: string, gold: string | readonly string[], kw: ExactMatchKwargs): number {
  if (typeof gold === 'string') return exactMatch([result], [gold], kw);
  const mean = exactMatch(gold.map(() => result), gold, kw);
  return mean > 0 ? 1.0 : 0.0;
}

/** numpy.argmax: the first maximum; a NaN wins as soon as it appears. */
export function argmax(xs: readonly number[]): number {
  let best = 0;
  for (let i = 0; i < xs.length; i++) {
    if (Number.isNaN(xs[i]!)) return i;
    if (xs[i]! > xs[best]!) best = i;
  }
  return best;
}

export interface MultipleChoiceInput {
  lls: readonly number[];
  isGreedy: readonly (boolean | null)[];
  /** Choice texts without the target delimiter (for acc_norm and acc_bytes). */
  choices: readonly string[] | null;
  /** Gold index, or indices for multiple targets; -100 marks a gold that is not a choice. */
  gold: number | readonly number[];
}

export type McMetric = 'acc' | 'acc_norm' | 'acc_bytes' | 'exact_match';

/** multiple_choice per-doc values (§3.5); null when an input the metric needs is missing. */
export function multipleChoice(input: MultipleChoiceInput, metric: McMetric): number | null {
  const { lls, gold } = input;
  const hit = (pred: number) => (typeof gold === 'number' ? (pred === gold ? 1.0 : 0.0) : gold.includes(pred) ? 1.0 : 0.0);
  switch (metric) {
    case 'acc':
      return hit(argmax(lls));
    case 'acc_norm': {
      if (input.choices === null) return null;
      const lens = input.choices.map((c) => [...c].length);
      return hit(argmax(lls.map((ll, i) => ll / lens[i]!)));
    }
    case 'acc_bytes': {
      if (input.choices === null) return null;
      const lens = input.choices.map((c) => Buffer.byteLength(c, 'utf8'));
      return hit(argmax(lls.map((ll, i) => ll / lens[i]!)));
    }
    case 'exact_match': {
      const golds = typeof gold === 'number' ? [gold] : gold;
      const valid = golds.filter((g) => g >= 0 && g < lls.length);
      if (valid.some((g) => input.isGreedy[g] === null)) return null;
      if (typeof gold === 'number') return valid.length === 1 && input.isGreedy[gold] ? 1 : 0;
      return valid.some((g) => input.isGreedy[g]) ? 1 : 0;
    }
  }
}

/**
 * multiple_choice gold from the recorded target text (§3.5): an integer index, a
 * choice text (→ its index, -100 when absent), or a Python list of either.
 */
export function mcGold(target: string, choices: readonly string[] | null, n: number): number | number[] | null {
  const one = (t: unknown): number | null => {
    if (typeof t === 'number' && Number.isInteger(t)) return t >= n ? -100 : t;
    if (typeof t === 'string') {
      if (/^-?\d+$/.test(t)) return one(Number(t));
      if (choices === null) return null;
      const i = choices.indexOf(t);
      return i === -1 ? -100 : i;
    }
    return null;
  };
  const list = parsePyList(target);
  if (list !== null) {
    const golds = list.map(one);
    return golds.some((g) => g === null) ? null : (golds as number[]).map((g) => (g >= n ? -100 : g));
  }
  return one(target);
}

/**
 * A target lm-eval stringified from a list: `['A', 'B']` (str of a list) or, before
 * 0.4.5, the JSON list itself — read with Python's literal_eval. Only lists of strings
 * and integers are recognised.
 */
export function parsePyList(text: string): (string | number)[] | null {
  const t = text.trim();
  if (!t.startsWith('[') || !t.endsWith(']')) return null;
  let value: unknown;
  try {
    value = literalEval(t);
  } catch {
    return null;
  }
  if (!Array.isArray(value)) return null;
  return value.every((x) => typeof x === 'string' || (typeof x === 'number' && Number.isInteger(x))) ? (value as (string | number)[]) : null;
}
