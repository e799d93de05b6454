/**
 * Inspect's fallback number parser (scorer/_unicode.py unicode_number_to_float,
 * 0.3.260), used by match(numeric=True) when Python's float() refuses a word:
 * Unicode and Chinese signs, vulgar fractions ('2½'), superscript exponents
 * ('3²'), Chinese numerals (十二, 二〇二五, 三點五), digits of any script with
 * locale-style separators, and single numeric symbols (Ⅻ, ⑩). Returns null
 * where Python raises ValueError. Character values come from Python's
 * unicodedata (src/py/unicodedata.ts), which JS lacks.
 */
import { pyFloat } from '../../py/float.ts';
import { isSpaceChar } from '../../py/str.ts';
import { decimalValue as decimalOf, digitOnlyValue, numericValue } from '../../py/unicodedata.ts';

const MINUS = new Set(['-', '−', '﹣', '－']);
const PLUS = new Set(['+', '＋', '﹢']);
const DECIMAL_SEP_EXTRAS = new Set(['٫', '．']);
const GROUP = new Set([',', '，', '﹐', '、', '٬', ' ', '\u00a0', '\u202f', '\u2009', '\u2007', '\u2008', "'", '’', 'ʼ', '＇']);
const CH_DIGITS: Record<string, number> = {
  零: 0, 〇: 0, '○': 0, 一: 1, 二: 2, 三: 3, 四: 4, 五: 5, 六: 6, 七: 7, 八: 8, 九: 9,
  壹: 1, 贰: 2, 貳: 2, 叁: 3, 參: 3, 肆: 4, 伍: 5, 陆: 6, 陸: 6, 柒: 7, 捌: 8, 玖: 9, 两: 2, 兩: 2, 幺: 1,
};
const CH_ALT_TENS: Record<string, number> = { 廿: 20, 卅: 30, 卌: 40 };
const CH_SMALL_UNITS: Record<string, number> = { 十: 10, 拾: 10, 百: 100, 佰: 100, 千: 1000, 仟: 1000 };
const CH_LARGE_UNITS: Record<string, bigint> = { 万: 10_000n, 萬: 10_000n, 亿: 100_000_000n, 億: 100_000_000n, 兆: 1_000_000_000_000n };
const CH_NEG = new Set(['负', '負']);
const CH_POS = new Set(['正']);
const CH_DEC_WORDS = ['点', '點'];
const SUPERSCRIPT = '⁰¹²³⁴⁵⁶⁷⁸⁹';
const SUPERSCRIPT_SIGNS = new Set(['⁻', '⁺']);

/** Thrown where Python raises ValueError; caught at the entry point. */
class NotANumber extends Error {}

const isSpace = isSpaceChar;
const strip = (chars: string[]) => {
  let a = 0;
  let b = chars.length;
  while (a < b && isSpace(chars[a]!)) a++;
  while (b > a && isSpace(chars[b - 1]!)) b--;
  return chars.slice(a, b);
};

const decimalValue = (ch: string): number | null => decimalOf(ch.codePointAt(0)!);

function asciiDigit(ch: string): string | null {
  if (ch >= '0' && ch <= '9') return ch;
  const dec = decimalValue(ch);
  if (dec !== null) return String(dec);
  const digit = digitOnlyValue(ch);
  if (digit !== null) return String(digit);
  if (ch in CH_DIGITS) return String(CH_DIGITS[ch]);
  return null;
}

/** Inspect's `_parse_number`: float(), then its Unicode fallback; finite only. */
export function parseFiniteNumber(s: string): number | null {
  for (const parse of [pyFloat, unicodeNumberToFloat]) {
    const value = parse(s);
    if (value !== null && Number.isFinite(value)) return value;
  }
  return null;
}

export function unicodeNumberToFloat(s: string): number | null {
  try {
    return parse(s);
  } catch (error) {
    if (error instanceof NotANumber) return null;
    throw error;
  }
}

function parse(s: string): number {
  let text = strip([...s]);
  if (text.length === 0) throw new NotANumber();
  let negative = false;
  for (;;) {
    while (text.length > 0 && isSpace(text[0]!)) text = text.slice(1);
    const ch = text[0];
    if (ch === undefined) break;
    if (MINUS.has(ch) || CH_NEG.has(ch)) negative = !negative;
    else if (!(PLUS.has(ch) || CH_POS.has(ch))) break;
    text = text.slice(1);
  }
  if (text.length === 1) {
    const single = numericValue(text[0]!);
    if (single !== null) return negative ? -single : single;
  }
  const [base, exponent] = splitSuperscriptExponent(text);
  let value = parseWithVulgarFraction(base);
  if (value === null) throw new NotANumber();
  if (negative) value = -value;
  if (exponent === null) return value;
  // Python raises (ZeroDivisionError, OverflowError) where JS gives ±Infinity: 0⁻¹, 10⁴⁰⁰.
  const powered = value ** exponent;
  if (!Number.isFinite(powered)) throw new NotANumber();
  return powered;
}

function splitSuperscriptExponent(s: string[]): [string[], number | null] {
  if (s.length === 0) return [s, null];
  let end = s.length - 1;
  while (end >= 0 && (isSpace(s[end]!) || GROUP.has(s[end]!))) end--;
  if (end < 0) return [strip(s), null];
  let j = end;
  while (j >= 0 && SUPERSCRIPT.includes(s[j]!)) j--;
  let start = j + 1;
  if (start > end) return [strip(s), null];
  if (j >= 0 && SUPERSCRIPT_SIGNS.has(s[j]!)) start = j;
  const base = s.slice(0, start);
  while (base.length > 0 && isSpace(base[base.length - 1]!)) base.pop();
  if (base.length === 0) return [strip(s), null];
  const exponent = s
    .slice(start, end + 1)
    .map((c) => (c === '⁻' ? '-' : c === '⁺' ? '+' : String(SUPERSCRIPT.indexOf(c))))
    .join('');
  if (!/^[+-]?\d+$/.test(exponent)) throw new NotANumber();
  return [base, Number(exponent)];
}

function parseWithVulgarFraction(s: string[]): number | null {
  if (s.length === 0) return null;
  const hits = s.map((ch, i) => ({ i, v: numericValue(ch) })).filter((h) => h.v !== null && h.v > 0 && h.v < 1);
  if (hits.length === 0) return parseCore(s);
  if (hits.length > 1) throw new NotANumber();
  const { i, v } = hits[0]!;
  const head = strip(s.slice(0, i));
  const tail = strip(s.slice(i + 1));
  if (tail.some((c) => !(isSpace(c) || GROUP.has(c)))) throw new NotANumber();
  let headValue = 0;
  if (head.length > 0) {
    const parsed = parseCore(head);
    if (parsed === null) throw new NotANumber();
    headValue = parsed;
  }
  return headValue + v!;
}

function parseCore(chars: string[]): number | null {
  const s = strip(chars);
  if (s.length === 0) return null;
  if (looksChinese(s)) {
    const value = parseChinese(s);
    if (value !== null) return value;
  }
  const generic = parseGeneric(s);
  if (generic !== null) return generic;
  return s.length === 1 ? numericValue(s[0]!) : null;
}

function looksChinese(s: string[]): boolean {
  return s.some((ch) => ch in CH_DIGITS || ch in CH_SMALL_UNITS || ch in CH_LARGE_UNITS || CH_DEC_WORDS.includes(ch) || CH_NEG.has(ch) || CH_POS.has(ch) || ch in CH_ALT_TENS);
}

function parseGeneric(s: string[]): number | null {
  const dots = s.flatMap((ch, i) => (ch === '.' ? [i] : []));
  const commas = s.flatMap((ch, i) => (ch === ',' ? [i] : []));
  let decimal: string | null = null;
  if (dots.length > 0 && commas.length > 0) decimal = dots[dots.length - 1]! > commas[commas.length - 1]! ? '.' : ',';
  else if (dots.length > 0) decimal = '.';
  else if (commas.length > 0) {
    const tailDigits = s.slice(commas[commas.length - 1]! + 1).filter((ch) => asciiDigit(ch) !== null).length;
    if (tailDigits >= 1 && tailDigits <= 3 && !s.includes('.')) decimal = ',';
  }
  const out: string[] = [];
  let seenDecimal = false;
  let seenExp = false;
  for (let i = 0; i < s.length; ) {
    const ch = s[i]!;
    if ((ch === 'e' || ch === 'E') && !seenExp) {
      if (out.length === 0) return null;
      out.push(ch);
      seenExp = true;
      i++;
      if (i < s.length && (PLUS.has(s[i]!) || MINUS.has(s[i]!))) {
        out.push(PLUS.has(s[i]!) ? '+' : '-');
        i++;
      }
      continue;
    }
    if (DECIMAL_SEP_EXTRAS.has(ch) || (decimal !== null && ch === decimal)) {
      if (seenDecimal) return null;
      out.push('.');
      seenDecimal = true;
      i++;
      continue;
    }
    if (GROUP.has(ch) || isSpace(ch) || (decimal !== null && (ch === ',' || ch === '.') && ch !== decimal)) {
      i++;
      continue;
    }
    const digit = asciiDigit(ch);
    if (digit !== null) {
      out.push(digit);
      i++;
      continue;
    }
    return null;
  }
  if (out.length === 0 || out.every((c) => '.eE+-'.includes(c))) return null;
  return pyFloat(out.join(''));
}

function parseChinese(s: string[]): number | null {
  let integer = s;
  let fraction: string[] = [];
  for (const dec of [...CH_DEC_WORDS, '．', '.']) {
    const at = s.indexOf(dec);
    if (at !== -1) {
      integer = s.slice(0, at);
      fraction = s.slice(at + 1);
      break;
    }
  }
  let intValue: bigint;
  if (!integer.some((ch) => ch in CH_SMALL_UNITS || ch in CH_LARGE_UNITS || ch in CH_ALT_TENS)) {
    const digits: string[] = [];
    for (const ch of integer) {
      if (isSpace(ch)) continue;
      const d = asciiDigit(ch);
      if (d === null) return null;
      digits.push(d);
    }
    intValue = digits.length > 0 ? BigInt(digits.join('')) : 0n;
  } else {
    const parsed = chineseIntegerWithUnits(integer);
    if (parsed === null) return null;
    intValue = parsed;
  }
  let fracValue = 0;
  let base = 0.1;
  for (const ch of fraction) {
    if (isSpace(ch)) continue;
    const d = asciiDigit(ch);
    if (d === null) return null;
    fracValue += Number(d) * base;
    base /= 10;
  }
  return Number(intValue) + fracValue;
}

function chineseIntegerWithUnits(s: string[]): bigint | null {
  let total = 0n;
  let section = 0n;
  let number = 0n;
  for (const ch of s) {
    if (isSpace(ch)) continue;
    if (ch in CH_ALT_TENS) {
      section += BigInt(CH_ALT_TENS[ch]!);
      continue;
    }
    if (ch === '零' || ch === '〇' || ch === '○') continue;
    if (ch in CH_DIGITS) {
      number = BigInt(CH_DIGITS[ch]!);
      continue;
    }
    const d = asciiDigit(ch);
    if (d !== null) {
      number = BigInt(d);
      continue;
    }
    if (ch in CH_SMALL_UNITS) {
      section += (number === 0n ? 1n : number) * BigInt(CH_SMALL_UNITS[ch]!);
      number = 0n;
      continue;
    }
    if (ch in CH_LARGE_UNITS) {
      section += number;
      number = 0n;
      total += section * CH_LARGE_UNITS[ch]!;
      section = 0n;
      continue;
    }
    return null;
  }
  return total + section + number;
}
