/**
 * lm-eval's filter pipelines (§2), applied to one instance's raw responses. A pipeline
 * starts from the raw responses every time (pipelines are not chained); each step maps
 * the instance's value. Filters iterate their input as Python would: a list element by
 * element, a string character by character (after take_first, as lm-eval itself does).
 */
import { UnknownNameError } from '../../errors.ts';
import { compilePython, pyReEscape, type PyPattern } from '../../py/re.ts';
import { subEmpty } from '../../py/reMatch.ts';
import { boundedFindall as findall } from '../../util/regexBudget.ts';
import { pyLower, pyStrip, pyUpper } from '../../py/str.ts';
import { categorySet } from '../../py/unicodedata.ts';

export type FilterValue = unknown;
export interface FilterStep {
  function: string;
  [kwarg: string]: unknown;
}
export interface FilterPipeline {
  name: string;
  filter: FilterStep[];
}

/** The pipeline lm-eval uses when a task has no filter_list. */
export const DEFAULT_PIPELINE: FilterPipeline = { name: 'none', filter: [{ function: 'take_first' }] };

type Doc = Record<string, unknown> | null;
type StepFn = (value: FilterValue, doc: Doc) => FilterValue;

function elements(value: FilterValue): unknown[] {
  if (typeof value === 'string') return [...value];
  if (Array.isArray(value)) return value;
  throw new TypeError(`cannot iterate ${typeof value}`);
}

export class FilterIndexError extends Error {}

function pick<T>(list: readonly T[], index: number): T {
  const i = index < 0 ? list.length + index : index;
  if (i < 0 || i >= list.length) throw new FilterIndexError(`IndexError: list index ${index} out of range for ${list.length} matches`);
  return list[i]!;
}

function regexStep(kw: FilterStep): StepFn {
  const pattern = compilePython(String(kw.regex_pattern ?? '#### (\\-?[0-9\\.\\,]+)'));
  const groupSelect = Number(kw.group_select ?? 0);
  const fallback = String(kw.fallback ?? '[invalid]');
  return (value) => elements(value).map((r) => regexOne(pattern, typeof r === 'string' ? r : '', groupSelect, fallback));
}

function regexOne(pattern: PyPattern, text: string, groupSelect: number, fallback: string): string {
  const found = findall(pattern, text);
  if (found.length === 0) return fallback;
  let match = pick(found, groupSelect);
  if (Array.isArray(match)) {
    const nonEmpty = match.filter((m) => m !== '');
    // RegexFilter strips what it settles on here, the fallback included (a fallback for no match at all is not).
    match = nonEmpty.length === 0 ? fallback : nonEmpty[0]!;
  }
  return pyStrip(match);
}

/** Unicode punctuation (unicodedata.category P*, Python 3.11's Unicode), as multi_choice_regex removes it. */
const UNICODE_PUNCT = new RegExp(`[${categorySet('P').classBody()}]`, 'gu');

/** How a pipeline reads what lm-eval's version changed. */
export interface PipelineOptions {
  /**
   * multi_choice_regex tries the choice texts longest first (lm-eval 0.4.13: a choice that is a prefix of another,
   * 'Guilty' of 'Guilty of Romance', no longer shadows it); false: in choice order, as up to 0.4.12. Default true.
   */
  multiChoiceLongestFirst?: boolean;
}

function multiChoiceRegexStep(kw: FilterStep, options: PipelineOptions): StepFn {
  const pattern = compilePython(String(kw.regex_pattern ?? '#### (\\-?[0-9\\.\\,]+)'));
  const groupSelect = Number(kw.group_select ?? 0);
  const fallback = String(kw.fallback ?? '[invalid]');
  const ignoreCase = kw.ignore_case === true;
  const ignorePunct = kw.ignore_punctuation === true;
  const ignore = (Array.isArray(kw.regexes_to_ignore) ? kw.regexes_to_ignore : []).map((r) => compilePython(String(r)));
  const norm = (s: string) => {
    for (const rx of ignore) s = subEmpty(rx, s);
    if (ignoreCase) s = pyLower(s);
    if (ignorePunct) s = s.replace(UNICODE_PUNCT, '');
    return s;
  };
  const firstOrEmpty = (m: string | string[]) => (Array.isArray(m) ? (m.find((x) => x !== '') ?? '') : m);
  return (value, doc) => {
    const choices = doc?.choices;
    if (!Array.isArray(choices)) throw new TypeError("multi_choice_regex needs doc['choices'] (a list of strings)");
    const toLetter = new Map<string, string>();
    const alternatives: string[] = [];
    const letters: string[] = [];
    choices.forEach((choice, i) => {
      const letter = String.fromCharCode(65 + i);
      const m = norm(pyStrip(String(choice)));
      alternatives.push(pyReEscape(m));
      toLetter.set(m, `(${letter})`);
      letters.push(letter);
    });
    // Python's sorted(key=len, reverse=True) is stable: texts of equal length keep their order.
    const ordered = options.multiChoiceLongestFirst === false ? alternatives : [...alternatives].sort((a, b) => b.length - a.length);
    const fallbackRegex = compilePython(ordered.join('|'));
    const letterRegex = compilePython(`:[\\s]*(${letters.join('|')})`);
    return elements(value).map((r) => {
      const text = typeof r === 'string' ? r : '';
      const primary = findall(pattern, text);
      if (primary.length > 0) {
        const m = pyStrip(firstOrEmpty(pick(primary, groupSelect)));
        if (m !== '') return m;
      }
      // find_match: the match stripped; an empty one (a choice that normalises to '') is no match, and one that is
      // no choice's text as keyed stands as it is.
      const byText = findall(fallbackRegex, norm(text));
      if (byText.length > 0) {
        const m = pyStrip(firstOrEmpty(pick(byText, groupSelect)));
        if (m !== '') return toLetter.get(m) ?? m;
      }
      const byLetter = findall(letterRegex, text);
      if (byLetter.length > 0) return `(${firstOrEmpty(pick(byLetter, groupSelect))})`;
      return fallback;
    });
  };
}

/** collections.Counter(r).most_common(1): the most frequent, ties to the first seen. */
function majority(values: unknown[]): unknown {
  const counts = new Map<string, { value: unknown; n: number }>();
  for (const v of values) {
    const key = JSON.stringify(v);
    const c = counts.get(key) ?? { value: v, n: 0 };
    c.n++;
    counts.set(key, c);
  }
  let best: { value: unknown; n: number } | undefined;
  for (const c of counts.values()) if (best === undefined || c.n > best.n) best = c;
  return best?.value;
}

const FILTERS: Record<string, (kw: FilterStep, options: PipelineOptions) => StepFn> = {
  take_first: () => (value) => elements(value)[0],
  take_first_k: (kw) => {
    const k = Number(kw.k);
    return (value) => elements(value).slice(0, k);
  },
  majority_vote: () => (value) => [majority(elements(value))],
  regex: regexStep,
  multi_choice_regex: multiChoiceRegexStep,
  lowercase: () => (value) => elements(value).map((r) => pyLower(String(r))),
  uppercase: () => (value) => elements(value).map((r) => pyUpper(String(r))),
  remove_whitespace: () => (value) => elements(value).map((r) => pyStrip(String(r))),
  map: (kw) => {
    const mapping = (kw.mapping_dict ?? {}) as Record<string, unknown>;
    const fallback = kw.default_value ?? null;
    return (value) => elements(value).map((r) => (typeof r === 'string' && Object.prototype.hasOwnProperty.call(mapping, r) ? mapping[r] : fallback));
  },
};

export const FILTER_NAMES = Object.keys(FILTERS);

/** Builds a pipeline; an unknown filter (custom, format_span, task-registered ones) is an UnknownNameError. */
export function buildPipeline(pipeline: FilterPipeline, options: PipelineOptions = {}): (resps: readonly unknown[], doc: Doc) => FilterValue {
  const steps = pipeline.filter.map((step) => {
    const make = FILTERS[step.function];
    if (make === undefined) throw new UnknownNameError('lm-eval filter', step.function, FILTER_NAMES);
    return make(step, options);
  });
  return (resps, doc) => steps.reduce<FilterValue>((value, step) => step(value, doc), [...resps]);
}
