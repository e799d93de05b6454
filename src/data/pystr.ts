/**
 * Python `str` predicates and transforms the prompt rules depend on, where
 * JavaScript's built-ins disagree (whitespace set, Unicode digits, capitalize).
 */
/** The characters for which Python's `str.isspace()` is true (what `str.strip()` removes). */
const PY_WHITESPACE =
  '\t\n\u000b\u000c\r\u001c\u001d\u001e\u001f \u0085\u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000';
const SPACE = new Set(PY_WHITESPACE);
const WS = `[${PY_WHITESPACE}]`;
const STRIP = new RegExp(`^${WS}+|${WS}+$`, 'gu');

/** Python's `str.strip()` with no argument. */
export function pyStrip(text: string): string {
  return text.replace(STRIP, '');
}

/** `c.isspace()` for one character (the delimiter rules test `s[-1]` and `s[0]`). */
export function isPySpace(c: string | undefined): boolean {
  return c !== undefined && SPACE.has(c);
}

/** Last code point of `s` (Python `s[-1]`). */
export function lastChar(s: string): string | undefined {
  if (s.length === 0) return undefined;
  const unit = s.charCodeAt(s.length - 1);
  return unit >= 0xdc00 && unit <= 0xdfff && s.length > 1 ? s.slice(-2) : s.slice(-1);
}

/** First code point of `s` (Python `s[0]`). */
export function firstChar(s: string): string | undefined {
  if (s.length === 0) return undefined;
  return String.fromCodePoint(s.codePointAt(0)!);
}

/**
 * `str.isdigit()`: decimal digits plus the other Numeric_Type=Digit characters
 * (superscripts, circled and subscript digits), which `literal_eval` then rejects.
 */
const DIGIT = /^[\p{Nd}\u00b2\u00b3\u00b9\u2070\u2074-\u2079\u2080-\u2089\u2460-\u2468\u2474-\u247c\u2488-\u2490\u24ea\u24f5-\u24fd\u24ff\u2776-\u277e\u2780-\u2788\u278a-\u2792\u1369-\u1371\u19da]+$/u;

export function pyIsDigit(s: string): boolean {
  if (s.length === 0) return false;
  const c = s.charCodeAt(0);
  // Fast refusal: every digit character is 0-9 or outside ASCII.
  if (c < 128 && (c < 48 || c > 57)) return false;
  return DIGIT.test(s);
}

/** `str.capitalize()`: first character title-cased, the rest lower-cased. */
export function pyCapitalize(s: string): string {
  if (s.length === 0) return s;
  const first = String.fromCodePoint(s.codePointAt(0)!);
  return titleCase(first) + s.slice(first.length).toLowerCase();
}

/** Title case differs from upper case for a few characters (digraphs, ß and ligatures). */
const TITLE: Record<string, string> = {
  ǆ: 'ǅ', Ǆ: 'ǅ', ǅ: 'ǅ', ǉ: 'ǈ', Ǉ: 'ǈ', ǈ: 'ǈ', ǌ: 'ǋ', Ǌ: 'ǋ', ǋ: 'ǋ', ǳ: 'ǲ', Ǳ: 'ǲ', ǲ: 'ǲ',
  ß: 'Ss', ﬀ: 'Ff', ﬁ: 'Fi', ﬂ: 'Fl', ﬃ: 'Ffi', ﬄ: 'Ffl', ﬅ: 'St', ﬆ: 'St',
};

function titleCase(c: string): string {
  return TITLE[c] ?? c.toUpperCase();
}
