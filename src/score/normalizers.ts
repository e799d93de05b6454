/**
 * Normalisers: how extracted spans and golds are made comparable. Each has a JS
 * form (the definition) and, where an exactly equivalent DuckDB expression exists,
 * a SQL form used by the bulk path; tests hold the two to the same answers.
 */
import { ASCII_PY_WHITESPACE, PY_PUNCTUATION, pyLower, pySplit, pyStrip } from '../py/str.ts';
import { decimalClass, decimalValue, wordClass } from '../py/unicodedata.ts';
import { sqlString } from '../util/duckdb.ts';
import type { Normalizer } from './types.ts';

export interface SqlNormalizer extends Normalizer {
  /**
   * A DuckDB expression over `expr` equal to `normalize` on ASCII text. The bulk
   * engine applies SQL forms only to rows whose text and gold are ASCII (DuckDB's
   * RE2 has ASCII `\b` and its Unicode classes are unreliable); other rows take the JS form.
   */
  readonly sql?: (expr: string) => string;
  /**
   * True when the normaliser only removes characters at the ends that a normalised
   * string can never begin or end with. Then norm(x) is a substring of x, and
   * contains(norm(t), norm(g)) = contains(t, norm(g)): the bulk engine uses both
   * facts to skip work.
   */
  readonly trimsOnly?: boolean;
  /** A SQL condition under which the SQL form is exact on a non-ASCII text too (absent: never). */
  readonly nonAsciiSafe?: (expr: string) => string;
  /**
   * `sql(expr) = normalized` for an already normalised right side, in a cheaper form
   * (absent: that comparison as written). Exact wherever `sql` is.
   */
  readonly sqlEquals?: (expr: string, normalized: string) => string;
  /**
   * A SQL condition under which `sql` equals `normalize` on this value, ASCII or not
   * (absent: always, on ASCII). The bulk engine sends rows where it fails to the JS definition.
   */
  readonly sqlExactWhen?: (expr: string) => string;
  /**
   * `sql` again, written with functions of the one value and constants only (no CASE): DuckDB
   * runs such an expression once per distinct value of a dictionary-encoded column (a store's
   * golds), where a CASE runs once per row. Absent: `sql` is already so written.
   */
  readonly sqlPerDistinct?: (expr: string) => string;
}

// DuckDB's trim() with a character set costs about 250 ns a row even on a one-letter
// string (more than all the letter rules together), so the SQL forms of strip call it
// only where it can change something: a string with no ASCII whitespace at either end
// is its own ASCII strip.

/** SQL: the string has no ASCII whitespace at either end (so the ASCII trim leaves it as is). */
function sqlNoEndSpace(x: string): string {
  const endsInSpace = [...ASCII_PY_WHITESPACE].map((c) => `suffix(${x}, chr(${c.charCodeAt(0)}))`).join(' OR ');
  return `(ascii(${x}) > 32 AND NOT (${endsInSpace}))`;
}

function asciiTrim(x: string): string {
  return `trim(${x}, ${sqlString(ASCII_PY_WHITESPACE)})`;
}

function asciiStrip(x: string): string {
  const trim = asciiTrim(x);
  // The shortcut repeats its argument, so it is taken only for a plain column (repeating an
  // extraction would repeat its regex).
  return /^[a-z_][a-z0-9_]*$/i.test(x) ? `CASE WHEN ${sqlNoEndSpace(x)} THEN ${x} ELSE ${trim} END` : trim;
}

/** strip(t) = g for a stripped g: equal lengths decide at once, and so does a t with no whitespace at its ends. */
function stripEquals(t: string, g: string): string {
  return `CASE WHEN strlen(${t}) = strlen(${g}) THEN ${t} = ${g}
    WHEN ${sqlNoEndSpace(t)} THEN false
    ELSE trim(${t}, ${sqlString(ASCII_PY_WHITESPACE)}) = ${g} END`;
}

/** Python's whitespace characters beyond ASCII, as an RE2 class body. */
const NON_ASCII_WHITESPACE = '\\x{85}\\x{a0}\\x{1680}\\x{2000}-\\x{200a}\\x{2028}\\x{2029}\\x{202f}\\x{205f}\\x{3000}';
/** Python's ASCII whitespace (ASCII_PY_WHITESPACE), as an RE2 class body. */
const ASCII_WHITESPACE_RE2 = '\\t\\n\\x0b\\x0c\\r\\x1c-\\x1f ';

// `numeric` in SQL. Python's rule is: drop every ',' and '$', strip, then float() if it parses.
// Written directly over the raw value, so that the value is read a fixed number of times
// (DuckDB would evaluate a repeated subexpression again in each CASE branch): ',' and '$'
// may stand anywhere (D), and at the ends mixed with whitespace (W).
const D = '[$,]*';
const W = `[${ASCII_WHITESPACE_RE2}$,]*`;
/** A number, as DuckDB's DOUBLE cast and Python's float() both read it alike. */
const SQL_NUMBER =
  `(?s)${W}[+-]?${D}(?:(?:[0-9]${D})+(?:\\.${D}(?:[0-9]${D})*)?|\\.${D}(?:[0-9]${D})+)(?:[eE]${D}[+-]?${D}(?:[0-9]${D})+)?${W}`;
/** What float() also reads and the cast does not take alike: inf, infinity, nan (any case, signed). */
const SQL_FLOAT_WORD = `(?is)${W}[+-]?${D}(?:${['infinity', 'inf', 'nan'].map((w) => [...w].join(D)).join('|')})${W}`;

/**
 * A number becomes a marker holding its double: DuckDB's cast rounds correctly and
 * overflows to inf as float() does, its shortest round-trip text is one per double, and
 * adding 0.0 turns -0 into 0 (Python: -0.0 == 0.0). Anything else is the stripped text.
 */
const numberMarker = (x: string) =>
  `chr(0) || 'num:' || CAST(TRY_CAST(regexp_replace(${x}, ${sqlString(`[${ASCII_WHITESPACE_RE2}$,]`)}, '', 'g') AS DOUBLE) + 0.0 AS VARCHAR)`;
const strippedText = (x: string) => `trim(replace(replace(${x}, ',', ''), '$', ''), ${sqlString(ASCII_PY_WHITESPACE)})`;
const isNumber = (x: string) => `regexp_full_match(${x}, ${sqlString(SQL_NUMBER)})`;

function numericSql(x: string): string {
  return `CASE WHEN ${isNumber(x)} THEN ${numberMarker(x)} ELSE ${strippedText(x)} END`;
}

/** numeric(t) = g for a normalised g: a number marker needs t to be that number, a text needs t not to be a number. */
function numericEquals(t: string, g: string): string {
  return `CASE WHEN starts_with(${g}, chr(0)) THEN ${isNumber(t)} AND ${numberMarker(t)} = ${g}
    ELSE NOT ${isNumber(t)} AND ${strippedText(t)} = ${g} END`;
}

/** Underscores between digits and the float words take the JS definition; so does a NUL, with which a text could pose as a marker. */
function numericSqlExactWhen(x: string): string {
  return `(NOT contains(${x}, '_') AND NOT contains(${x}, chr(0)) AND NOT regexp_full_match(${x}, ${sqlString(SQL_FLOAT_WORD)}))`;
}

const PUNCTUATION = new RegExp(`[${PY_PUNCTUATION.replace(/[\\\]^-]/g, '\\$&')}]`, 'g');
const DIGITS = /[0-9]/g;
// Python's \b is Unicode-aware; JS's is ASCII-only, hence the explicit look-arounds.
const ARTICLES = new RegExp(`(?<![${wordClass()}])(a|an|the)(?![${wordClass()}])`, 'gu');
let nanCount = 0;

/** Python's float() literal grammar (decimal, exponent, inf/nan, underscores between digits). */
const PY_FLOAT =
  /^[+-]?(?:(?:\d(?:_?\d)*)?\.?\d(?:_?\d)*(?:[eE][+-]?\d(?:_?\d)*)?|\d(?:_?\d)*\.(?:[eE][+-]?\d(?:_?\d)*)?|inf(?:inity)?|nan)$/i;

const PLAIN_INTEGER = /^[+-]?[0-9]{1,15}$/;
const DECIMAL_DIGIT = new RegExp(`[${decimalClass()}]`, 'gu');

/** Python's float() reads a decimal digit of any script ('١٢' is 12.0, so is '１２'); this writes each as its ASCII digit. */
function asciiDigits(text: string): string {
  if (/^[\x00-\x7f]*$/.test(text)) return text;
  return text.replace(DECIMAL_DIGIT, (digit) => String(decimalValue(digit.codePointAt(0)!)));
}

// The lower-casing normalisers in SQL, exact on ASCII (DuckDB's lower() of other letters
// need not be Python's, so non-ASCII rows take the JS definitions).
/** Python's string.punctuation as an RE2 class: ASCII 21-2F, 3A-40, 5B-60, 7B-7E. */
const SQL_PUNCTUATION = '[!-/:-@\\[-`{-~]';
const lowerNoPunctuation = (x: string) => `regexp_replace(lower(${x}), ${sqlString(SQL_PUNCTUATION)}, '', 'g')`;
// lm-eval's exact_match holds the strings in NumPy arrays (np.asarray, np.char.lower, np.char.translate), whose
// fixed-width str dtype drops trailing NULs: 'x\0' equals 'x' there. The normalised form drops them too.
const TRAILING_NULS = /\0+$/;
const rtrimNuls = (x: string) => `rtrim(${x}, chr(0))`;

/** SQuAD's normalize_answer: on ASCII, RE2's \\b is Python's, and split()/join collapses runs of ASCII whitespace. */
function squadSql(x: string): string {
  const noArticles = `regexp_replace(${lowerNoPunctuation(x)}, '\\b(a|an|the)\\b', ' ', 'g')`;
  return `trim(regexp_replace(${noArticles}, ${sqlString(`[${ASCII_WHITESPACE_RE2}]+`)}, ' ', 'g'))`;
}

export const NORMALIZERS = {
  none: {
    name: 'none',
    description: 'compare as is',
    normalize: (text: string) => text,
    sql: (expr: string) => expr,
    trimsOnly: true,
    nonAsciiSafe: () => 'true',
  },
  strip: {
    name: 'strip',
    description: "Python str.strip(): remove leading/trailing whitespace (Python's whitespace set)",
    normalize: pyStrip,
    sql: asciiStrip,
    sqlPerDistinct: asciiTrim,
    sqlEquals: stripEquals,
    trimsOnly: true,
    // The ASCII trim is Python's strip unless non-ASCII whitespace sits at an end.
    // Two anchored patterns: RE2 runs the end-anchored one backwards from the end, where the
    // alternation of both would scan the whole text.
    nonAsciiSafe: (expr: string) =>
      `NOT regexp_matches(${expr}, ${sqlString(`^[${NON_ASCII_WHITESPACE}]`)}) AND NOT regexp_matches(${expr}, ${sqlString(`[${NON_ASCII_WHITESPACE}]$`)})`,
  },
  'lm-eval-exact-match': {
    name: 'lm-eval-exact-match',
    description:
      "lm-eval exact_match with ignore_case and ignore_punctuation, in its order: lower-case, then delete ASCII punctuation (no whitespace trimming; trailing NULs dropped, as NumPy's strings drop them)",
    normalize: (text: string) => pyLower(text).replace(PUNCTUATION, '').replace(TRAILING_NULS, ''),
    sql: (x: string) => rtrimNuls(lowerNoPunctuation(x)),
  },
  'lm-eval-exact-match-numbers': {
    name: 'lm-eval-exact-match-numbers',
    description: 'lm-eval exact_match with ignore_case, ignore_punctuation and ignore_numbers (digits deleted last)',
    normalize: (text: string) => pyLower(text).replace(PUNCTUATION, '').replace(DIGITS, '').replace(TRAILING_NULS, ''),
    sql: (x: string) => rtrimNuls(`regexp_replace(${lowerNoPunctuation(x)}, '[0-9]', '', 'g')`),
  },
  squad: {
    name: 'squad',
    description: "SQuAD's normalize_answer: lower-case, drop ASCII punctuation, drop articles a/an/the, collapse whitespace",
    normalize: (text: string) => pySplit(pyLower(text).replace(PUNCTUATION, '').replace(ARTICLES, ' ')).join(' '),
    sql: squadSql,
  },
  numeric: {
    name: 'numeric',
    description: "drop ',' and '$', then compare as numbers (Python float()); text that is not a number compares stripped",
    valueForm: true,
    sql: numericSql,
    sqlEquals: numericEquals,
    sqlExactWhen: numericSqlExactWhen,
    normalize: (text: string) => {
      const cleaned = pyStrip(text.replaceAll(',', '').replaceAll('$', ''));
      // The common case, a plain integer of up to 15 digits, is exact as a JS number.
      if (PLAIN_INTEGER.test(cleaned)) return `\u0000num:${Number(cleaned) || 0}`;
      const ascii = asciiDigits(cleaned);
      if (!PY_FLOAT.test(ascii)) return cleaned;
      const value = Number(ascii.replaceAll('_', '').replace(/^([+-]?)inf(inity)?$/i, '$1Infinity').replace(/^[+-]?nan$/i, 'NaN'));
      // NaN never equals NaN in Python; a marker that cannot equal anything keeps that.
      return Number.isNaN(value) ? `\u0000nan:${nanCount++}` : `\u0000num:${value === 0 ? 0 : value}`;
    },
  },
} as const satisfies Record<string, SqlNormalizer>;

export type NormalizerName = keyof typeof NORMALIZERS;
