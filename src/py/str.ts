/**
 * Python `str` operations with CPython 3.11 semantics: code-point indexing and
 * length (not UTF-16 units), Python's whitespace set, `split`/`strip`/
 * `replace`/`capitalize` as Python defines them, case mapping frozen at
 * CPython's Unicode 14 (Node ships a newer Unicode), and `repr()` quoting.
 * See docs lmeval-prompts.md §12.
 */
import { CASEFOLD_SPECIAL } from './casefoldTable.ts';
import { TITLE_EXCEPTIONS } from './unicodeTables.ts';
import { CASED, DIGITS, LOWERCASE, NONPRINTABLE, TITLECASE, UNASSIGNED, UPPERCASE } from './unicodedata.ts';

/**
 * `str.isdigit()`: non-empty and every character a Unicode digit, so `"²"` and
 * `"١٢"` pass (and then fail `literal_eval`), as lm-eval's coercion sees them.
 */
export function pyIsDigit(s: string): boolean {
  if (s === '') return false;
  for (const ch of s) if (!DIGITS.has(ch.codePointAt(0)!)) return false;
  return true;
}

/**
 * Characters assigned before Unicode 14 whose case mapping changed later
 * (Unicode 16 gave them capitals); CPython 3.11 leaves them alone.
 */
const CASE_FROZEN = new Set([0x19b, 0x264, 0xa7d3, 0xa7d5]);

/** The characters for which Python's str.isspace() is true (what str.strip() removes). */
export const PY_WHITESPACE =
  '\t\n\u000b\u000c\r\u001c\u001d\u001e\u001f \u0085\u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000';
/** Its ASCII part. */
export const ASCII_PY_WHITESPACE = '\t\n\u000b\u000c\r\u001c\u001d\u001e\u001f ';
/** Python's `string.whitespace` (not the same as isspace's ASCII part: no \x1c-\x1f). */
export const STRING_WHITESPACE = ' \t\n\r\u000b\u000c';
/** Python's `string.punctuation`. */
export const PY_PUNCTUATION = '!"#$%&\'()*+,-./:;<=>?@[\\]^_`{|}~';
/** PY_WHITESPACE as the body of a regex character class. */
export const PY_WHITESPACE_CLASS = PY_WHITESPACE.replace(/[\\\]^-]/g, '\\$&');
/** A run of Python whitespace (`str.split()`'s separator). */
export const PY_SPACE_RUN = new RegExp(`[${PY_WHITESPACE_CLASS}]+`);

/** `str.isspace()` for one code point (docs §12: includes \x1c-\x1f and \x85, excludes \ufeff). */
export function isPySpace(cp: number): boolean {
  return (
    (cp >= 0x09 && cp <= 0x0d) ||
    (cp >= 0x1c && cp <= 0x20) ||
    cp === 0x85 ||
    cp === 0xa0 ||
    cp === 0x1680 ||
    (cp >= 0x2000 && cp <= 0x200a) ||
    cp === 0x2028 ||
    cp === 0x2029 ||
    cp === 0x202f ||
    cp === 0x205f ||
    cp === 0x3000
  );
}

/** `c.isspace()` for one character, false for none (the delimiter rules test `s[-1]` and `s[0]`). */
export function isSpaceChar(c: string | undefined): boolean {
  return c !== undefined && c.length === 1 && isPySpace(c.charCodeAt(0));
}

const SURROGATE = /[\uD800-\uDFFF]/;

/** Code points of a string (only materialised when it holds non-BMP text). */
export function codePoints(s: string): string[] {
  return Array.from(s);
}

export function pyLen(s: string): number {
  if (!SURROGATE.test(s)) return s.length;
  let n = 0;
  for (const _ of s) n++;
  return n;
}

/** `s[i]` with Python's negative indices; undefined when out of range. */
export function pyCharAt(s: string, i: number): string | undefined {
  const chars = SURROGATE.test(s) ? codePoints(s) : null;
  const len = chars ? chars.length : s.length;
  const j = i < 0 ? i + len : i;
  if (j < 0 || j >= len) return undefined;
  return chars ? chars[j] : s[j];
}

/** `s[-1]` without materialising code points; undefined for ''. */
export function lastChar(s: string): string | undefined {
  if (s.length === 0) return undefined;
  const unit = s.charCodeAt(s.length - 1);
  return unit >= 0xdc00 && unit <= 0xdfff && s.length > 1 ? s.slice(-2) : s.slice(-1);
}

/** `s[0]`; undefined for ''. */
export function firstChar(s: string): string | undefined {
  if (s.length === 0) return undefined;
  return String.fromCodePoint(s.codePointAt(0)!);
}

/** Python's `slice.indices(len)`: normalised start, stop, step. */
export function sliceIndices(
  len: number,
  start: number | null,
  stop: number | null,
  step: number | null,
): [number, number, number] {
  const st = step ?? 1;
  if (st === 0) throw new RangeError('slice step cannot be zero');
  const clamp = (v: number | null, dflt: number, lower: number, upper: number): number => {
    if (v === null) return dflt;
    if (v < 0) return Math.max(v + len, lower);
    return Math.min(v, upper);
  };
  if (st > 0) return [clamp(start, 0, 0, len), clamp(stop, len, 0, len), st];
  return [clamp(start, len - 1, -1, len - 1), clamp(stop, -1, -1, len - 1), st];
}

export function sliceArray<T>(xs: readonly T[], start: number | null, stop: number | null, step: number | null): T[] {
  const [a, b, st] = sliceIndices(xs.length, start, stop, step);
  if (st === 1) return xs.slice(a, Math.max(a, b));
  const out: T[] = [];
  if (st > 0) for (let i = a; i < b; i += st) out.push(xs[i]!);
  else for (let i = a; i > b; i += st) out.push(xs[i]!);
  return out;
}

export function pySlice(s: string, start: number | null, stop: number | null, step: number | null): string {
  if (!SURROGATE.test(s) && (step ?? 1) === 1) {
    const [a, b] = sliceIndices(s.length, start, stop, step);
    return s.slice(a, Math.max(a, b));
  }
  return sliceArray(codePoints(s), start, stop, step).join('');
}

function stripSet(chars: string | null): (ch: string) => boolean {
  if (chars === null) return (ch) => isPySpace(ch.codePointAt(0)!);
  const set = new Set(codePoints(chars));
  return (ch) => set.has(ch);
}

/** `str.strip(chars)` (or `lstrip`/`rstrip` through `left`/`right`); `chars` null is Python's whitespace. */
export function pyStrip(s: string, chars: string | null = null, left = true, right = true): string {
  if (chars === null) {
    // Every Python whitespace character is in the BMP, so UTF-16 units can be tested directly
    // (no code-point array: this runs for every rendered prompt).
    let a = 0;
    let b = s.length;
    if (left) while (a < b && isPySpace(s.charCodeAt(a))) a++;
    if (right) while (b > a && isPySpace(s.charCodeAt(b - 1))) b--;
    return s.slice(a, b);
  }
  const strip = stripSet(chars);
  const cs = codePoints(s);
  let a = 0;
  let b = cs.length;
  if (left) while (a < b && strip(cs[a]!)) a++;
  if (right) while (b > a && strip(cs[b - 1]!)) b--;
  return cs.slice(a, b).join('');
}

/** `str.split(sep=None, maxsplit=-1)`. */
export function pySplit(s: string, sep: string | null = null, maxsplit = -1): string[] {
  if (sep === null && maxsplit < 0) {
    // The common call (`s.split()`): one regex split, not a code-point array.
    const stripped = pyStrip(s);
    return stripped === '' ? [] : stripped.split(PY_SPACE_RUN);
  }
  if (sep === null) return splitWhitespace(s, maxsplit);
  if (sep === '') throw new RangeError('empty separator');
  if (maxsplit < 0) return s.split(sep);
  const out: string[] = [];
  let from = 0;
  while (out.length < maxsplit) {
    const at = s.indexOf(sep, from);
    if (at < 0) break;
    out.push(s.slice(from, at));
    from = at + sep.length;
  }
  out.push(s.slice(from));
  return out;
}

/** `str.rsplit(sep=None, maxsplit=-1)`. */
export function pyRsplit(s: string, sep: string | null, maxsplit: number): string[] {
  if (maxsplit < 0) return pySplit(s, sep, -1);
  if (sep === null) {
    const rev = (x: string): string => codePoints(x).reverse().join('');
    return splitWhitespace(rev(s), maxsplit).map(rev).reverse();
  }
  if (sep === '') throw new RangeError('empty separator');
  const out: string[] = [];
  let end = s.length;
  while (out.length < maxsplit) {
    const at = end - sep.length < 0 ? -1 : s.lastIndexOf(sep, end - sep.length);
    if (at < 0) break;
    out.push(s.slice(at + sep.length, end));
    end = at;
  }
  out.push(s.slice(0, end));
  return out.reverse();
}

function splitWhitespace(s: string, maxsplit: number): string[] {
  const cs = codePoints(s);
  const out: string[] = [];
  let i = 0;
  const space = (k: number): boolean => isPySpace(cs[k]!.codePointAt(0)!);
  while (i < cs.length) {
    while (i < cs.length && space(i)) i++;
    if (i >= cs.length) break;
    if (maxsplit >= 0 && out.length === maxsplit) {
      out.push(cs.slice(i).join('')); // the remainder keeps its trailing whitespace
      break;
    }
    const start = i;
    while (i < cs.length && !space(i)) i++;
    out.push(cs.slice(start, i).join(''));
  }
  return out;
}

/** `str.replace(old, new, count=-1)`, including the empty-pattern case (inserts between code points). */
export function pyReplace(s: string, old: string, repl: string, count: number): string {
  if (old === '') {
    const cs = codePoints(s);
    const n = count < 0 ? cs.length + 1 : Math.min(count, cs.length + 1);
    let out = '';
    for (let i = 0; i < cs.length; i++) out += (i < n ? repl : '') + cs[i];
    return out + (cs.length < n ? repl : '');
  }
  if (count < 0) return s.split(old).join(repl);
  const parts = pySplit(s, old, count);
  return parts.join(repl);
}

/** Apply a JS case mapping except to code points CPython 3.11 treats as caseless. */
function mapCase(s: string, f: (x: string) => string): string {
  // eslint-disable-next-line no-control-regex
  if (!/[^\x00-\x7f]/.test(s)) return f(s);
  let out = '';
  let run = '';
  for (const ch of s) {
    const cp = ch.codePointAt(0)!;
    if (UNASSIGNED.has(cp) || CASE_FROZEN.has(cp)) {
      out += f(run) + ch;
      run = '';
    } else run += ch;
  }
  return out + f(run);
}

export const pyUpper = (s: string): string => mapCase(s, (x) => x.toUpperCase());
export const pyLower = (s: string): string => mapCase(s, (x) => x.toLowerCase());

/** `str.casefold()`: full case folding where it differs from lower() (CPython's table), lower() elsewhere, per code point (no final-sigma context, as CPython). */
export function casefold(s: string): string {
  // eslint-disable-next-line no-control-regex
  if (!/[^\x00-\x7f]/.test(s)) return s.toLowerCase();
  let out = '';
  for (const ch of s) out += CASEFOLD_SPECIAL[ch.codePointAt(0)!] ?? pyLower(ch);
  return out;
}

/** `str.capitalize()` (3.8+): the first character title-cased, the rest lower-cased in context. */
export function pyCapitalize(s: string): string {
  if (s === '') return s;
  const first = String.fromCodePoint(s.codePointAt(0)!);
  const cp = first.codePointAt(0)!;
  const head = TITLE_EXCEPTIONS.get(cp) ?? pyUpper(first);
  const lowered = pyLower(s);
  const firstLowered = pyLower(first);
  const rest = lowered.startsWith(firstLowered) ? lowered.slice(firstLowered.length) : pyLower(s.slice(first.length));
  return head + rest;
}

/** `str.islower()`: no upper or title case character, and at least one lower case one. */
export function pyIsLower(s: string): boolean {
  let cased = false;
  for (const ch of s) {
    const cp = ch.codePointAt(0)!;
    if (UPPERCASE.has(cp) || TITLECASE.has(cp)) return false;
    cased ||= LOWERCASE.has(cp);
  }
  return cased;
}

/** `str.isupper()`: no lower or title case character, and at least one upper case one. */
export function pyIsUpper(s: string): boolean {
  let cased = false;
  for (const ch of s) {
    const cp = ch.codePointAt(0)!;
    if (LOWERCASE.has(cp) || TITLECASE.has(cp)) return false;
    cased ||= UPPERCASE.has(cp);
  }
  return cased;
}

/** `str.title()`: a cased character after another cased character is lower-cased, every other one title-cased. */
export function pyTitle(s: string): string {
  let out = '';
  let prevCased = false;
  for (const ch of s) {
    out += prevCased ? pyLower(ch) : pyCapitalize(ch);
    prevCased = CASED.has(ch.codePointAt(0)!);
  }
  return out;
}

export function isPyPrintable(cp: number): boolean {
  return !NONPRINTABLE.has(cp);
}

/** `repr(str)`: quote choice and escapes exactly as CPython's unicode_repr. */
export function pyStrRepr(s: string): string {
  const quote = s.includes("'") && !s.includes('"') ? '"' : "'";
  let out = quote;
  for (const ch of s) {
    const cp = ch.codePointAt(0)!;
    if (ch === quote || ch === '\\') out += `\\${ch}`;
    else if (ch === '\t') out += '\\t';
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (cp < 0x20 || cp === 0x7f) out += `\\x${hex(cp, 2)}`;
    else if (cp < 0x7f || isPyPrintable(cp)) out += ch;
    else if (cp <= 0xff) out += `\\x${hex(cp, 2)}`;
    else if (cp <= 0xffff) out += `\\u${hex(cp, 4)}`;
    else out += `\\U${hex(cp, 8)}`;
  }
  return out + quote;
}

function hex(n: number, width: number): string {
  return n.toString(16).padStart(width, '0');
}

/** Compare strings by code point (JS `<` compares UTF-16 units, which misorders non-BMP text). */
export function compareCodePoints(a: string, b: string): number {
  if (!SURROGATE.test(a) && !SURROGATE.test(b)) return a < b ? -1 : a > b ? 1 : 0;
  const x = codePoints(a);
  const y = codePoints(b);
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    const d = x[i]!.codePointAt(0)! - y[i]!.codePointAt(0)!;
    if (d !== 0) return d < 0 ? -1 : 1;
  }
  return x.length - y.length < 0 ? -1 : x.length > y.length ? 1 : 0;
}

/** Code-point index of the first `sub` in `s[start:end]`, or -1 (`str.find`). */
export function pyFind(s: string, sub: string, start: number | null, end: number | null, last: boolean): number {
  const cs = codePoints(s);
  const [a, b] = sliceIndices(cs.length, start, end, 1);
  const window = cs.slice(a, Math.max(a, b)).join('');
  const at = last ? window.lastIndexOf(sub) : window.indexOf(sub);
  if (at < 0) return -1;
  return a + pyLen(window.slice(0, at));
}

/** Non-overlapping occurrences (`str.count`); the empty string occurs len + 1 times. */
export function pyCount(s: string, sub: string): number {
  if (sub === '') return pyLen(s) + 1;
  return s.split(sub).length - 1;
}
