/**
 * Built-in extractors: which span of a model's output is "the answer". Each has
 * a JS definition (Python semantics: Unicode `\b`, Python strip) and, where an
 * exactly equivalent DuckDB/RE2 expression exists, a SQL form for the bulk path.
 */
import { BadInputError } from '../errors.ts';
import { sqlString } from '../util/duckdb.ts';
import { wordAt, wordBefore } from '../py/unicodedata.ts';
import { normalizedGold, spanExtractor, type Extractor, type ItemView, type Normalizer } from './types.ts';
import type { SqlNormalizer } from './normalizers.ts';

/**
 * SQL forms take SQL expressions for the raw text and the normalised gold (the bulk
 * engine normalises each gold once per normaliser, not once per cell) and the
 * normaliser. Like normalisers' SQL forms they need only be exact on ASCII rows:
 * the bulk engine sends every other row through the JS definition.
 */
/** An item's 0/1 value in SQL, from SQL expressions for its text, its normalised gold and whether the text is ASCII. */
export type SqlValue = (text: string, normalizedGold: string, normalizer: SqlNormalizer, textIsAscii: string) => string;

export interface SqlExtractor extends Extractor {
  /** The item's 0/1 value (for rules that are not "normalised span = normalised gold"). */
  readonly sql?: SqlValue;
  /** Or the span in SQL (NULL: nothing found), which the engine normalises and compares itself. */
  readonly sqlSpan?: (text: string) => string;
  /**
   * A `sql` form exact on any text, `nonAsciiSafe` or not, but dearer to prepare (Unicode
   * classes take DuckDB milliseconds to compile, per query): the engine uses it for a scope
   * whose outputs often need it.
   */
  readonly sqlUnicode?: SqlValue;
  /**
   * A SQL condition under which the SQL form is exact on a text that is not ASCII too
   * (absent: never; such rows take the JS definition).
   */
  readonly nonAsciiSafe?: (text: string) => string;
  /**
   * With `sql`: a SQL condition under which the normaliser's SQL form is exact on what this
   * extractor hands it (its `sqlExactWhen` on the text or span); absent: always.
   */
  readonly sqlExact?: (text: string, normalizer: SqlNormalizer) => string;
}

/** The normaliser's exactness condition on a SQL value (true when it has none). */
const exactOn = (normalizer: SqlNormalizer, value: string): string => normalizer.sqlExactWhen?.(value) ?? 'true';

/** For extractors whose SQL form involves no word boundary or Unicode class: exact on any text. */
const ALWAYS_SAFE = () => 'true';

/** A span extractor whose span also has a SQL form (NULL when nothing is found). */
function sqlSpanExtractor(
  name: string,
  description: string,
  span: (text: string, item: ItemView) => string | null,
  spanSql: ((text: string) => string) | undefined,
  nonAsciiSafe: (text: string) => string,
): SqlExtractor {
  const base = spanExtractor(name, description, span);
  if (spanSql === undefined) return base;
  return { ...base, nonAsciiSafe, sqlSpan: spanSql };
}

// ------------------------------------------------------------------ letters


function letterSet(argument: string, name: string): string {
  const letters = argument === '' ? 'ABCD' : argument;
  if (!/^[A-Za-z]+$/.test(letters)) {
    throw new BadInputError(`${name}: the letter set must be ASCII letters, got '${argument}'`, { field: 'extractors' });
  }
  return [...new Set(letters)].join('');
}

export function firstLetter(letters: string): (text: string) => string | null {
  return (text) => {
    for (let i = 0; i < text.length; i++) {
      if (letters.includes(text[i]!) && !wordBefore(text, i) && !wordAt(text, i + 1)) return text[i]!;
    }
    return null;
  };
}

export function lastLetter(letters: string): (text: string) => string | null {
  return (text) => {
    for (let i = text.length - 1; i >= 0; i--) {
      if (letters.includes(text[i]!) && !wordBefore(text, i) && !wordAt(text, i + 1)) return text[i]!;
    }
    return null;
  };
}

/** SQL: RE2's ASCII \b is Python's on this text: no letter of the set touches a non-ASCII character. */
function letterNeighboursAscii(letters: string): (text: string) => string {
  const pattern = `[^\\x00-\\x7F][${letters}]|[${letters}][^\\x00-\\x7F]`;
  return (text) => `NOT regexp_matches(${text}, ${sqlString(pattern)})`;
}

/**
 * SQL for "the first (last) standalone letter of LETTERS, normalised, equals the normalised
 * gold". Letters normalise in JS (each is ASCII, where the SQL forms agree), grouped by form.
 *
 * ASCII text, or text whose letters of the set touch no non-ASCII character: for the gold's
 * group, one match-only regex with RE2's \b, which is Python's there. Match-only regexes run on
 * RE2's DFA, several times faster than extracting matches.
 *
 * Other text, in the `unicode` form only (the plain form leaves it to the JS definition):
 * RE2's \b knows only ASCII word characters and Python's \w is Unicode (é and 中 are word
 * characters), so the boundaries are spelled out with Unicode classes. A letter of the set is
 * standalone when it is a whole run of word characters by itself; a stretch without a
 * standalone letter is made of characters that are not letters of the set and of runs of two
 * or more word characters. The regex matches up to the standalone letter (no capture group, so
 * the DFA still finds it) and the letter is read off the match's edge. One regex per position,
 * not per group: Unicode classes take milliseconds to compile.
 */
function letterValueSql(position: 'first' | 'last', letters: string, unicode: boolean): SqlValue {
  const other = `(?:[^${letters}]|\\B[${letters}]|[${letters}]\\B)`;
  const word = '[\\pL\\pN_]';
  const nonWord = '[^\\pL\\pN_]';
  const noStandalone = `(?:[^${letters}]|${word}${word}+)*`;
  const unicodeLetter = (text: string) =>
    position === 'first'
      ? `regexp_extract(right(regexp_extract(${text}, ${sqlString(`(?s)^(?:${noStandalone}${nonWord})?[${letters}](?:${nonWord}|$)`)}, 0), 2), ${sqlString(`([${letters}])[^${letters}]?$`)}, 1)`
      : `regexp_extract(left(regexp_extract(${text}, ${sqlString(`(?s)(?:^|${nonWord})[${letters}](?:${nonWord}${noStandalone})?$`)}, 0), 2), ${sqlString(`^[^${letters}]?([${letters}])`)}, 1)`;
  return (text, gold, normalizer, textIsAscii) => {
    const formOf = new Map([...letters].map((letter) => [letter, normalizer.normalize(letter)]));
    const byForm = new Map<string, string>();
    for (const [letter, form] of formOf) byForm.set(form, (byForm.get(form) ?? '') + letter);
    const branches = [...byForm].map(([form, group]) => {
      const hit = `\\b[${group}]\\b`;
      const pattern = position === 'first' ? `(?s)^${other}*${hit}` : `(?s)${hit}${other}*$`;
      return `WHEN ${sqlString(form)} THEN regexp_matches(${text}, ${sqlString(pattern)})`;
    });
    const asciiMatch = `CASE ${gold} ${branches.join(' ')} ELSE false END`;
    // When every letter is its own normal form, a text that lacks the gold cannot match: a
    // substring test (far cheaper than any regex) settles most rows first.
    const lettersAreForms = [...byForm].every(([form, group]) => form === group);
    const value = (match: string) =>
      lettersAreForms ? `CASE WHEN contains(${text}, ${gold}) AND (${match}) THEN 1 ELSE 0 END` : `CASE WHEN ${match} THEN 1 ELSE 0 END`;
    if (!unicode) return value(asciiMatch);
    const unicodeForm = `CASE ${unicodeLetter(text)} ${[...formOf].map(([letter, form]) => `WHEN ${sqlString(letter)} THEN ${sqlString(form)}`).join(' ')} END`;
    // RE2's \b goes wrong only where a letter of the set touches a non-ASCII character.
    const asciiWillDo = `${textIsAscii} OR ${letterNeighboursAscii(letters)(text)}`;
    return value(`CASE WHEN ${asciiWillDo} THEN ${asciiMatch} ELSE coalesce(${unicodeForm} = ${gold}, false) END`);
  };
}

/** `first-letter[:LETTERS]` / `last-letter[:LETTERS]`: Python's `\b([LETTERS])\b`, first or last match. */
function letterExtractor(position: 'first' | 'last', argument: string): SqlExtractor {
  const name = `${position}-letter`;
  const letters = letterSet(argument, name);
  return {
    ...spanExtractor(
      argument === '' ? name : `${name}:${letters}`,
      `the ${position} standalone letter of ${letters} (Python \\b([${letters}])\\b, ${position} match)`,
      position === 'first' ? firstLetter(letters) : lastLetter(letters),
    ),
    sql: letterValueSql(position, letters, false),
    sqlUnicode: letterValueSql(position, letters, true),
    // The span is one of the letters: the condition on each is a constant.
    sqlExact: (_text, normalizer) => [...letters].map((l) => exactOn(normalizer, sqlString(l))).join(' AND '),
    nonAsciiSafe: letterNeighboursAscii(letters),
  };
}

export const firstLetterExtractor = (argument: string): SqlExtractor => letterExtractor('first', argument);
export const lastLetterExtractor = (argument: string): SqlExtractor => letterExtractor('last', argument);

// ------------------------------------------------------------------ numbers

/** lm-eval's GSM8K strict-match pattern and its flexible-extract pattern (one group, same match). */
const STRICT = /#### (-?[0-9.,]+)/;
const FLEXIBLE = /(-?[$0-9.,]{2,}|-?[0-9]+)/g;
const FLEXIBLE_FIRST = new RegExp(FLEXIBLE.source);

export const strictNumber = (text: string): string | null => STRICT.exec(text)?.[1] ?? null;
export const firstNumber = (text: string): string | null => FLEXIBLE_FIRST.exec(text)?.[0] ?? null;
export const lastNumber = (text: string): string | null => text.match(FLEXIBLE)?.at(-1) ?? null;

// ------------------------------------------------------------------ the table

export const BUILTIN_EXTRACTORS: Record<string, SqlExtractor> = {
  exact: {
    ...spanExtractor('exact', 'the whole output is the answer', (text) => text),
    nonAsciiSafe: ALWAYS_SAFE,
    sqlExact: (text, normalizer) => exactOn(normalizer, text),
    sql: (text, gold, normalizer) => {
      const equal = normalizer.sqlEquals?.(text, gold) ?? `${normalizer.sql!(text)} = ${gold}`;
      // norm(text) is a substring of text for trimming normalisers, so a cheap containment test rules most rows out.
      return normalizer.trimsOnly
        ? `CASE WHEN NOT contains(${text}, ${gold}) THEN 0 WHEN ${equal} THEN 1 ELSE 0 END`
        : `CASE WHEN ${equal} THEN 1 ELSE 0 END`;
    },
  },
  contains: {
    name: 'contains',
    description: 'correct when the normalised gold occurs anywhere in the normalised output',
    needsTextForm: true,
    nonAsciiSafe: ALWAYS_SAFE,
    sqlExact: (text, normalizer) => exactOn(normalizer, text),
    read(item: ItemView, normalizer: Normalizer) {
      const hit = normalizer.normalize(item.text).includes(normalizedGold(item, normalizer));
      return { extracted: hit ? item.gold : null, value: hit ? 1 : 0 };
    },
    sql: (text, gold, normalizer) => {
      const haystack = normalizer.trimsOnly ? text : normalizer.sql!(text);
      return `CASE WHEN contains(${haystack}, ${gold}) THEN 1 ELSE 0 END`;
    },
  },
  'first-letter': firstLetterExtractor(''),
  'last-letter': lastLetterExtractor(''),
  'strict-number': sqlSpanExtractor(
    'strict-number',
    "lm-eval GSM8K strict-match: the number after '#### ' (first match)",
    strictNumber,
    (text) => `nullif(regexp_extract(${text}, '#### (-?[0-9.,]+)', 1), '')`,
    ALWAYS_SAFE,
  ),
  'first-number': sqlSpanExtractor(
    'first-number',
    'the first number, by lm-eval flexible-extract pattern (-?[$0-9.,]{2,})|(-?[0-9]+)',
    firstNumber,
    (text) => `nullif(regexp_extract(${text}, '(-?[$0-9.,]{2,}|-?[0-9]+)', 1), '')`,
    ALWAYS_SAFE,
  ),
  'last-number': sqlSpanExtractor(
    'last-number',
    'the last number, by lm-eval flexible-extract pattern with group_select -1',
    lastNumber,
    (text) => `regexp_extract_all(${text}, '(-?[$0-9.,]{2,}|-?[0-9]+)', 1)[-1]`,
    ALWAYS_SAFE,
  ),
};
