/**
 * Python's float semantics, written out because JS differs: float() parsing
 * (Python's whitespace, '_' separators, digits of any script), round(x, n)
 * (half to even on the exact binary value, any n), format(x, ".{p}g") and
 * repr/str of a float.
 */
import { decimalValue } from './unicodedata.ts';
import { isPySpace, pyStrip } from './str.ts';

const FLOAT_SYNTAX = /^[+-]?(?:(?:\d(?:_?\d)*)(?:\.(?:\d(?:_?\d)*)?)?|\.\d(?:_?\d)*)(?:[eE][+-]?\d(?:_?\d)*)?$/;
const FLOAT_WORDS = /^[+-]?(?:inf|infinity|nan)$/i;

/** Non-ASCII decimal digits (Unicode 14's Nd, as CPython 3.11) to ASCII; other characters kept. */
export function asciiDigits(s: string): string {
  // eslint-disable-next-line no-control-regex
  if (!/[^\x00-\x7f]/.test(s)) return s;
  let out = '';
  for (const ch of s) {
    const d = decimalValue(ch.codePointAt(0)!);
    out += d === null ? ch : String(d);
  }
  return out;
}

/**
 * What float() and int() strip: CPython maps non-ASCII whitespace to ' ' and then strips only ASCII
 * ' \t\n\v\f\r', so '\x1c'-'\x1f' (whitespace to str.isspace()) are not stripped.
 */
export function stripNumber(s: string): string {
  const t = pyStrip(s);
  if (t.length === s.length) return s;
  let a = 0;
  let b = s.length;
  while (a < b && keepsNumberSpace(s.charCodeAt(a))) a++;
  while (b > a && keepsNumberSpace(s.charCodeAt(b - 1))) b--;
  return s.slice(a, b);
}

const keepsNumberSpace = (unit: number): boolean => !(unit >= 0x1c && unit <= 0x1f) && isPySpace(unit);

/** Python `float(s)`: null where Python raises ValueError. Like Python, digits of any script count (Nd), nothing else does. */
export function pyFloat(s: string): number | null {
  const t = asciiDigits(stripNumber(s));
  if (FLOAT_WORDS.test(t)) {
    const sign = t.startsWith('-') ? -1 : 1;
    return /nan/i.test(t) ? Number.NaN : sign * Number.POSITIVE_INFINITY;
  }
  if (!FLOAT_SYNTAX.test(t)) return null;
  return Number(t.replace(/_/g, ''));
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

/** x · 10^ndigits rounded half to even on the exact binary value, as an integer (finite, nonzero x). */
function roundedUnits(x: number, ndigits: number): { negative: boolean; units: bigint; exp10: number; keep: number } {
  const { negative, digits, exp10 } = exactDigits(x);
  const keep = exp10 + ndigits;
  if (keep < 0 || digits === '0') return { negative, units: 0n, exp10, keep };
  const head = digits.slice(0, keep).padEnd(keep, '0');
  const next = digits[keep] ?? '0';
  const rest = digits.slice(keep + 1);
  const lastEven = keep === 0 || Number(head[keep - 1]) % 2 === 0;
  const up = next > '5' || (next === '5' && (/[1-9]/.test(rest) || !lastEven));
  return { negative, units: BigInt(head === '' ? '0' : head) + (up ? 1n : 0n), exp10, keep };
}

/** Python `round(x, ndigits)`: half to even on the exact binary value. */
export function pyRound(x: number, ndigits: number): number {
  if (!Number.isFinite(x) || x === 0) return x;
  const { negative, units, exp10, keep } = roundedUnits(x, ndigits);
  if (keep < 0) return negative ? -0 : 0;
  const value = Number(`${units}e${exp10 - keep}`);
  return negative ? -value : value;
}

/** Python `format(x, ".{precision}f")` (f"{x:.4f}"): half to even on the exact binary value, unlike toFixed's half up. */
export function formatF(x: number, precision: number): string {
  if (!Number.isFinite(x)) return Number.isNaN(x) ? 'nan' : x > 0 ? 'inf' : '-inf';
  const { negative, units } = x === 0 ? { negative: Object.is(x, -0), units: 0n } : roundedUnits(x, precision);
  const s = units.toString().padStart(precision + 1, '0');
  return `${negative ? '-' : ''}${precision > 0 ? `${s.slice(0, -precision)}.${s.slice(-precision)}` : s}`;
}

/**
 * Python's `repr(float)` / `str(float)` (identical since 3.2): the shortest
 * round-tripping digits, as JS also picks, but with Python's layout — fixed
 * notation for 1e-4 ≤ |x| < 1e16 (always with a '.0' when integral), otherwise
 * `d.ddde±XX` with at least two exponent digits; `inf`, `-inf`, `nan`.
 */
export function pyFloatRepr(x: number): string {
  if (Number.isNaN(x)) return 'nan';
  if (x === Infinity) return 'inf';
  if (x === -Infinity) return '-inf';
  if (x === 0) return Object.is(x, -0) ? '-0.0' : '0.0';
  const abs = Math.abs(x);
  if (abs >= 1e-4 && abs < 1e16) {
    // JS prints fixed notation over all of this range (its switch is at 1e-7 and 1e21).
    const s = String(x);
    return s.includes('.') ? s : `${s}.0`;
  }
  const [mantissa, exponent] = x.toExponential().split('e') as [string, string];
  const sign = exponent.startsWith('-') ? '-' : '+';
  const digits = exponent.replace(/^[+-]/, '');
  return `${mantissa}e${sign}${digits.padStart(2, '0')}`;
}
