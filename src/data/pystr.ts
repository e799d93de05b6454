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
