/**
 * Python `str` predicates and transforms the prompt rules depend on, where
 * JavaScript's built-ins disagree (whitespace set, Unicode digits, capitalize).
 */
import { PY_WHITESPACE, pyStrip } from '../util/pytext.ts';

export { pyStrip };
const SPACE = new Set(PY_WHITESPACE);

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
