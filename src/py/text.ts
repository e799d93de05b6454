/**
 * Python string semantics that JavaScript lacks or spells differently. Every
 * rescoring rule that says "strip" or "\b" means Python's, because the reference
 * harnesses are Python.
 */

/** The characters for which Python's str.isspace() is true (what str.strip() removes). */
export const PY_WHITESPACE =
  '\t\n\u000b\u000c\r\u001c\u001d\u001e\u001f \u0085\u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000';

/** The ASCII part of that set. */
export const ASCII_PY_WHITESPACE = '\t\n\u000b\u000c\r\u001c\u001d\u001e\u001f ';

const WS_CLASS = `[${PY_WHITESPACE.replace(/[\\\]^-]/g, '\\$&')}]`;
const STRIP = new RegExp(`^${WS_CLASS}+|${WS_CLASS}+$`, 'g');
const SPLIT = new RegExp(`${WS_CLASS}+`);

/** Python's str.strip() with no argument. */
export function pyStrip(text: string): string {
  // Printable ASCII at both ends (the usual case) is not whitespace: nothing to strip.
  const first = text.charCodeAt(0);
  const last = text.charCodeAt(text.length - 1);
  if (first > 32 && first < 127 && last > 32 && last < 127) return text;
  return text.replace(STRIP, '');
}

/** Python's str.split() with no argument: split on runs of whitespace, no empty pieces. */
export function pySplit(text: string): string[] {
  const stripped = pyStrip(text);
  return stripped === '' ? [] : stripped.split(SPLIT);
}

/** Python's string.punctuation (ASCII only). */
export const PY_PUNCTUATION = '!"#$%&\'()*+,-./:;<=>?@[\\]^_`{|}~';

/** Python's `\w` on str patterns: Unicode letters, numbers and underscore. */
const WORD = /[\p{L}\p{N}_]/u;

/** Whether the code point ending just before `index` is a word character (Python `\w`). */
export function wordBefore(text: string, index: number): boolean {
  if (index <= 0) return false;
  let start = index - 1;
  const unit = text.charCodeAt(start);
  if (unit >= 0xdc00 && unit <= 0xdfff && start > 0) start--;
  return WORD.test(String.fromCodePoint(text.codePointAt(start)!));
}

/** Whether the code point starting at `index` is a word character (Python `\w`). */
export function wordAt(text: string, index: number): boolean {
  if (index >= text.length) return false;
  return WORD.test(String.fromCodePoint(text.codePointAt(index)!));
}

/** Length in code points (Python len()), not UTF-16 units. */
export function pyLen(text: string): number {
  let n = 0;
  for (const _ of text) n++;
  return n;
}

export function utf8Length(text: string): number {
  return Buffer.byteLength(text, 'utf8');
}
