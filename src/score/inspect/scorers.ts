/**
 * Inspect's built-in text scorers, re-implemented from inspect_ai 0.3.260
 * (scorer/_common.py, _match.py, _pattern.py, _answer.py, _classification.py).
 * Each takes the completion the scorer reads and the target list, and returns
 * the Score Inspect would record: value, answer, explanation.
 */
import { compilePython } from '../../py/re.ts';
import { searchGroups } from '../../py/reMatch.ts';
import { formatG, pyFloat, pyFloatRepr, pyRound } from '../../py/float.ts';
import { casefold, PY_PUNCTUATION, PY_SPACE_RUN, pyLower, pyStrip, STRING_WHITESPACE } from '../../py/str.ts';
import { decimalClass, wordClass } from '../../py/unicodedata.ts';
import { parseFiniteNumber } from './unicodeNumber.ts';

/** Inspect's strip_punctuation: `s.strip(string.whitespace + string.punctuation)`. */
function stripPunctuation(s: string): string {
  return pyStrip(s, STRING_WHITESPACE + PY_PUNCTUATION);
}

export type { ScoreValue } from '../../formats/inspectScore.ts';
import type { ScoreValue } from '../../formats/inspectScore.ts';

export interface InspectScore {
  value: ScoreValue;
  answer?: string | null;
  explanation?: string;
}

export type MatchLocation = 'begin' | 'end' | 'any' | 'exact';

export interface MatchOptions {
  location?: MatchLocation;
  ignore_case?: boolean;
  ignore_punctuation?: boolean;
  numeric?: boolean;
}

const DOT_NOT_BEFORE_DIGIT = new RegExp(`\\.(?![${decimalClass()}])`, 'gu');

/** Inspect's strip_numeric_punctuation. */
export function stripNumericPunctuation(s: string): string {
  return s
    .replace(/\\([$,£€*_])/g, '$1')
    .replace(/[$,£€*_]/g, '')
    .replace(DOT_NOT_BEFORE_DIGIT, '');
}

function normalizeNumber(text: string): string {
  const n = parseFiniteNumber(text);
  return n === null ? text : formatG(n, 5);
}

/** Inspect's match_str: [answer, matched]. */
export function matchStr(value: string, target: string, options: MatchOptions = {}): [string, boolean] {
  const location = options.location ?? 'end';
  const ignoreCase = options.ignore_case ?? true;
  const ignorePunctuation = options.ignore_punctuation ?? true;
  const numeric = options.numeric ?? false;
  let v = pyStrip(value);
  let t = pyStrip(target);
  let answer = v;
  if (ignoreCase) {
    v = casefold(v);
    t = casefold(t);
  }
  if (numeric) t = stripNumericPunctuation(t);
  if (numeric && parseFiniteNumber(t) !== null) {
    // Numeric targets never fall through to text comparison: "25" ends with "5" but 25 != 5.
    v = stripNumericPunctuation(v);
    t = normalizeNumber(t);
    const words = v.split(PY_SPACE_RUN);
    const numbers = words.filter((w) => parseFiniteNumber(w) !== null);
    if (location === 'begin') v = numbers.length > 0 ? normalizeNumber(numbers[0]!) : '';
    else if (location === 'end') v = numbers.length > 0 ? normalizeNumber(numbers[numbers.length - 1]!) : '';
    else if (location === 'exact') v = normalizeNumber(v);
    else {
      for (const number of numbers.map(normalizeNumber)) if (number === t) return [number, true];
      return [answer, false];
    }
    answer = v;
    return [answer, v === t];
  } else if (ignorePunctuation) {
    v = stripPunctuation(v);
    t = stripPunctuation(t);
  }
  if (location === 'begin') return [answer, v.startsWith(t)];
  if (location === 'end') return [answer, v.endsWith(t)];
  if (location === 'exact') return [answer, v === t];
  return [answer, v.includes(t)];
}

/** Inspect's str_match_scorer: the first target that matches wins; else the last answer tried. */
function strMatchScore(completion: string, targets: readonly string[], check: (v: string, t: string) => [string, boolean]): InspectScore {
  let answer: string | null = null;
  for (const target of targets) {
    const [a, matched] = check(completion, target);
    answer = a;
    if (matched) return { value: 'C', answer, explanation: completion };
  }
  return { value: 'I', answer, explanation: completion };
}

export function matchScore(completion: string, targets: readonly string[], options: MatchOptions = {}): InspectScore {
  return strMatchScore(completion, targets, (v, t) => matchStr(v, t, options));
}

export function includesScore(completion: string, targets: readonly string[], ignoreCase = true): InspectScore {
  return strMatchScore(completion, targets, (value, target) => {
    const v = ignoreCase ? casefold(value) : value;
    const t = ignoreCase ? casefold(target) : target;
    return [v, v.includes(t)];
  });
}

export function patternScore(completion: string, targets: readonly string[], pattern: string, ignoreCase = true, matchAll = false): InspectScore {
  const groups = searchGroups(compilePython(pattern, { ignoreCase }), completion);
  if (groups === null) return { value: 'N', explanation: `Scoring pattern not matched in output: ${completion}` };
  const lowered = ignoreCase ? targets.map(pyLower) : targets;
  const inTarget = (g: string) => lowered.includes(ignoreCase ? pyLower(g) : g);
  let found: string | null = null;
  let answer: string | null;
  if (matchAll) {
    const strings = groups.filter((g): g is string => g !== null);
    found = strings.length > 0 && strings.every(inTarget) ? targets.join('') : null;
    answer = found;
  } else {
    found = groups.find((g): g is string => g !== null && inTarget(g)) ?? null;
    answer = found === null && groups.length === 1 ? groups[0]! : found;
  }
  // Python tests truthiness: an empty captured string scores INCORRECT.
  return { value: found ? 'C' : 'I', answer, explanation: completion };
}

/** The regexes of `answer(pattern)` (inspect_ai/_util/pattern.py, 0.3.221 and later). */
export const ANSWER_PATTERNS = {
  letter: '(?is)ANSWER\\s*:\\s*([A-Za-z])(?:[^\\w]|\\n|$)(?!.*ANSWER\\s*:)',
  word: '(?is)ANSWER\\s*:\\s*(\\S+?)(?=[.,;:!?]?\\s*(?:\\n|$))(?!.*ANSWER\\s*:)',
  line: '(?i)ANSWER\\s*:\\s*([^\\n]+)\\s*\\Z',
} as const;
export type AnswerKind = keyof typeof ANSWER_PATTERNS;

export function answerScore(completion: string, targets: readonly string[], kind: AnswerKind): InspectScore {
  return patternScore(completion, targets, ANSWER_PATTERNS[kind], true, false);
}

// ---------------------------------------------------------------- exact / f1 (_classification.py)

const isFiniteNumber = (s: string) => {
  const n = pyFloat(s);
  return n !== null && Number.isFinite(n);
};
// Python's \b (str.isalnum() or '_' on either side), not JS's ASCII one.
const ARTICLES = new RegExp(`(?<![${wordClass()}])(?:a|an|the)(?![${wordClass()}])`, 'gu');

function removePunc(text: string): string {
  if (isFiniteNumber(text)) return text;
  const stripped = stripPunctuation(text);
  if (isFiniteNumber(stripped)) return stripped;
  return [...text].filter((ch) => !PY_PUNCTUATION.includes(ch)).join('');
}

function normalizeToken(token: string): string {
  let t = removePunc(casefold(token));
  if (isFiniteNumber(t)) t = pyFloatRepr(pyFloat(t)!);
  t = t.replace(ARTICLES, ' ');
  return pyWords(t).join(' ');
}

function pyWords(text: string): string[] {
  return text.split(PY_SPACE_RUN).filter((w) => w !== '');
}

export function normalizeForExact(text: string, stopWords: readonly string[] = []): string {
  const folded = stopWords.map(normalizeToken);
  const tokens = text.split(/ |-/).map(normalizeToken).filter((t) => !folded.includes(t));
  return pyStrip(tokens.filter((t) => pyStrip(t) !== '').join(' '));
}

export function exactScore(completion: string, targets: readonly string[]): InspectScore {
  const answer = normalizeForExact(completion);
  const hit = targets.some((t) => pyStrip(t) !== '' && normalizeForExact(t) === answer);
  return { value: hit ? 'C' : 'I', answer: completion };
}

function f1(answer: Set<string>, target: Set<string>): number {
  const common = [...answer].filter((w) => target.has(w)).length;
  const precision = answer.size === 0 ? 1 : common / answer.size;
  const recall = target.size === 0 ? 1 : common / target.size;
  return precision === 0 && recall === 0 ? 0 : (2 * precision * recall) / (precision + recall);
}

export function f1Score(completion: string, targets: readonly string[], stopWords?: readonly string[]): InspectScore {
  const words = (s: string) => new Set(pyWords(normalizeForExact(s, stopWords)));
  let best = 0;
  for (const t of targets) if (pyStrip(t) !== '') best = Math.max(best, f1(words(completion), words(t)));
  return { value: pyRound(best, 2), answer: completion };
}
