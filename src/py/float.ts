/**
 * The Python string and number behaviour Inspect's scorers depend on, written
 * out because JS differs: casefold (full folding, not toLowerCase), strip()
 * (Python's whitespace set, not trim()'s), float() parsing, format(x, ".5g"),
 * round(x, 2) (half-to-even on the exact binary value) and str(float).
 */
import { CASEFOLD_SPECIAL } from './casefoldTable.ts';
import { unicodeNumberToFloat } from './unicodeNumber.ts';
import { pyStrip } from '../../util/pytext.ts';

/** Characters for which Python's str.isspace() is true. */
export const PY_SPACE = '\\t\\n\\v\\f\\r\\x1c-\\x1f \\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000';
export const PY_SPACE_RUN = new RegExp(`[${PY_SPACE}]+`);

export const ASCII_PUNCTUATION = '!"#$%&\'()*+,-./:;<=>?@[\\]^_`{|}~';
const ASCII_WHITESPACE = ' \t\n\r\v\f';

export { pyStrip };

/** Python `s.strip(chars)`. */
export function pyStripChars(s: string, chars: string): string {
  let start = 0;
  let end = s.length;
  while (start < end && chars.includes(s[start]!)) start++;
  while (end > start && chars.includes(s[end - 1]!)) end--;
  return s.slice(start, end);
}

/** Inspect's strip_punctuation: `s.strip(string.whitespace + string.punctuation)`. */
export function stripPunctuation(s: string): string {
  return pyStripChars(s, ASCII_WHITESPACE + ASCII_PUNCTUATION);
}

export function casefold(s: string): string {
  let out = '';
  for (const ch of s) out += CASEFOLD_SPECIAL[ch.codePointAt(0)!] ?? ch.toLowerCase();
  return out;
}

/** Python `str.lower()` (per code point, so no final-sigma context, as Python). */
export function pyLower(s: string): string {
  return s.toLowerCase();
}

const FLOAT_SYNTAX = /^[+-]?(?:(?:\d(?:_?\d)*)(?:\.(?:\d(?:_?\d)*)?)?|\.\d(?:_?\d)*)(?:[eE][+-]?\d(?:_?\d)*)?$/;
const FLOAT_WORDS = /^[+-]?(?:inf|infinity|nan)$/i;

const DECIMAL_DIGIT = /\p{Nd}/u;

/**
 * The value of a Unicode decimal digit (category Nd). Nd code points come in whole
 * decades starting at a zero (Unicode stability policy; adjacent decades, as in the
 * mathematical digits, form longer spans), so the value is the offset into the span mod 10.
 */
function digitValue(cp: number): number {
  let run = 0;
  while (run < 100 && DECIMAL_DIGIT.test(String.fromCodePoint(cp - run - 1))) run++;
  return run % 10;
}

/** Python `float(s)`: null where Python raises ValueError. Like Python, digits of any script count (Nd), nothing else does. */
export function pyFloat(s: string): number | null {
  const t = [...pyStrip(s)].map((ch) => (ch >= '0' && ch <= '9') || !DECIMAL_DIGIT.test(ch) ? ch : String(digitValue(ch.codePointAt(0)!))).join('');
  if (FLOAT_WORDS.test(t)) {
    const sign = t.startsWith('-') ? -1 : 1;
    return /nan/i.test(t) ? Number.NaN : sign * Number.POSITIVE_INFINITY;
  }
  if (!FLOAT_SYNTAX.test(t)) return null;
  return Number(t.replace(/_/g, ''));
}

/** Inspect's `_parse_number`: float(), then its Unicode fallback; finite only. */
export function parseFiniteNumber(s: string): number | null {
  for (const parse of [pyFloat, unicodeNumberToFloat]) {
    const value = parse(s);
    if (value !== null && Number.isFinite(value)) return value;
  }
  return null;
}

/** Exact decimal digits of a finite double: `digits` without leading zeros, value = 0.digits × 10^exp10. */
function exactDigits(x: number): { negative: boolean; digits: string; exp10: number } {
  const negative = x < 0 || Object.is(x, -0);
  if (x === 0) return { negative, digits: '0', exp10: 1 };
  // toPrecision(100) is exact for every double whose expansion has at most 100 significant digits,
  // which covers all magnitudes where a rounding tie can occur at the precisions used here.
  const [mantissa, exponent] = Math.abs(x).toPrecision(100).split('e') as [string, string | undefined];
  const [intPart, frac = ''] = mantissa.split('.') as [string, string?];
  let digits = intPart + frac;
  let exp10 = intPart.length + Number(exponent ?? 0);
  const lead = digits.length - digits.replace(/^0+/, '').length;
  digits = digits.slice(lead).replace(/0+$/, '');
  exp10 -= lead;
  return { negative, digits: digits === '' ? '0' : digits, exp10 };
}

/** Rounds a digit string to `keep` digits, half to even; returns the digits and any carry into a new place. */
function roundDigits(digits: string, keep: number): { digits: string; carry: boolean } {
  if (keep < 0) return { digits: '', carry: false };
  if (digits.length <= keep) return { digits: digits.padEnd(keep, '0'), carry: false };
  const head = digits.slice(0, keep);
  const next = digits[keep]!;
  const rest = digits.slice(keep + 1);
  const lastEven = keep === 0 ? true : Number(head[keep - 1]) % 2 === 0;
  const up = next > '5' || (next === '5' && (/[1-9]/.test(rest) || !lastEven));
  if (!up) return { digits: head, carry: false };
  const bumped = (BigInt(head === '' ? '0' : head) + 1n).toString();
  if (bumped.length > keep) return { digits: bumped.slice(0, keep === 0 ? 1 : keep), carry: true };
  return { digits: bumped.padStart(keep, '0'), carry: false };
}

/** Python `format(x, ".{p}g")` for finite x. */
export function formatG(x: number, precision = 5): string {
  if (!Number.isFinite(x)) return Number.isNaN(x) ? 'nan' : x > 0 ? 'inf' : '-inf';
  const { negative, digits, exp10 } = exactDigits(x);
  const sign = negative ? '-' : '';
  if (digits === '0') return `${sign}0`;
  const rounded = roundDigits(digits, precision);
  const exponent = exp10 - 1 + (rounded.carry ? 1 : 0);
  const significant = rounded.digits.replace(/0+$/, '') || '0';
  if (exponent < -4 || exponent >= precision) {
    const mant = significant.length > 1 ? `${significant[0]}.${significant.slice(1)}` : significant;
    const e = Math.abs(exponent).toString().padStart(2, '0');
    return `${sign}${mant}e${exponent < 0 ? '-' : '+'}${e}`;
  }
  if (exponent < 0) return `${sign}0.${'0'.repeat(-exponent - 1)}${significant}`;
  const intLen = exponent + 1;
  const intPart = significant.slice(0, intLen).padEnd(intLen, '0');
  const frac = significant.slice(intLen);
  return `${sign}${intPart}${frac ? `.${frac}` : ''}`;
}

/** Python `round(x, ndigits)`: half to even on the exact binary value. */
export function pyRound(x: number, ndigits: number): number {
  if (!Number.isFinite(x) || x === 0) return x;
  const { negative, digits, exp10 } = exactDigits(x);
  const keep = exp10 + ndigits;
  if (keep < 0) return negative ? -0 : 0;
  const head = digits.slice(0, keep).padEnd(keep, '0');
  const next = digits[keep] ?? '0';
  const rest = digits.slice(keep + 1);
  const lastEven = keep === 0 || Number(head[keep - 1]) % 2 === 0;
  const up = next > '5' || (next === '5' && (/[1-9]/.test(rest) || !lastEven));
  const units = BigInt(head === '' ? '0' : head) + (up ? 1n : 0n);
  const value = Number(`${units}e${exp10 - keep}`);
  return negative ? -value : value;
}

/** Python `str(float)` (repr): shortest round-trip digits, exponent form below 1e-4 and from 1e16. */
export function pyFloatRepr(x: number): string {
  if (Number.isNaN(x)) return 'nan';
  if (!Number.isFinite(x)) return x > 0 ? 'inf' : '-inf';
  if (x === 0) return Object.is(x, -0) ? '-0.0' : '0.0';
  const [mantissa, expText] = x.toExponential().split('e') as [string, string];
  const exponent = Number(expText);
  const negative = mantissa.startsWith('-');
  const digits = mantissa.replace(/^-/, '').replace('.', '');
  const sign = negative ? '-' : '';
  if (exponent < -4 || exponent >= 16) {
    const mant = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
    return `${sign}${mant}e${exponent < 0 ? '-' : '+'}${Math.abs(exponent).toString().padStart(2, '0')}`;
  }
  if (exponent < 0) return `${sign}0.${'0'.repeat(-exponent - 1)}${digits}`;
  const intPart = digits.slice(0, exponent + 1).padEnd(exponent + 1, '0');
  const frac = digits.slice(exponent + 1);
  return `${sign}${intPart}.${frac || '0'}`;
}
