/**
 * Python's `int(str, base)`, `float(str)` and `round(float, n)`, which the
 * `int`, `float` and `round` filters call. JS `Number()` accepts other
 * spellings ("0x10", "", " ") and `toFixed` rounds ties away from zero, so
 * both are re-derived here.
 */
import { pyStrip } from './pystr.ts';

/**
 * Unicode decimal digits count as in Python (`int('٣')` is 3). Nd characters
 * come in contiguous runs of whole blocks of ten, each starting at its zero.
 */
function digitValue(ch: string): number {
  const cp = ch.codePointAt(0)!;
  if (cp >= 0x30 && cp <= 0x39) return cp - 0x30;
  if (!/\p{Nd}/u.test(ch)) return -1;
  let start = cp;
  while (/\p{Nd}/u.test(String.fromCodePoint(start - 1))) start--;
  return (cp - start) % 10;
}

/** `int(s, base)` for a str, or undefined where Python raises ValueError. */
export function parsePyInt(s: string, base: number): number | undefined {
  const t = pyStrip(s, null, true, true);
  const m = /^([+-]?)(.*)$/su.exec(t)!;
  let body = m[2]!;
  let b = base;
  if (b === 0 || b === 16 || b === 8 || b === 2) {
    const prefix = /^0([xob])/i.exec(body);
    const implied = prefix ? { x: 16, o: 8, b: 2 }[prefix[1]!.toLowerCase() as 'x' | 'o' | 'b'] : undefined;
    if (prefix && (b === 0 || b === implied)) {
      b = implied!;
      body = body.slice(2).replace(/^_/, '');
    } else if (b === 0) {
      if (/^0+(_0+)*$/.test(body)) return 0;
      if (/^0/.test(body)) return undefined;
      b = 10;
    }
  }
  if (body === '' || body.startsWith('_') || body.endsWith('_') || body.includes('__')) return undefined;
  let value = 0;
  for (const ch of body) {
    if (ch === '_') continue;
    let d = digitValue(ch);
    if (d < 0 && /[a-z]/i.test(ch)) d = ch.toLowerCase().charCodeAt(0) - 87;
    if (d < 0 || d >= b) return undefined;
    value = value * b + d;
  }
  return m[1] === '-' ? -value : value;
}

/** `float(s)`, or undefined where Python raises ValueError. */
export function parsePyFloat(s: string): number | undefined {
  const t = pyStrip(s, null, true, true);
  const ascii = Array.from(t).map((ch) => {
    const d = digitValue(ch);
    return d >= 0 ? String(d) : ch;
  }).join('');
  const special = /^([+-]?)(inf|infinity|nan)$/i.exec(ascii);
  if (special) {
    const sign = special[1] === '-' ? -1 : 1;
    return special[2]!.toLowerCase() === 'nan' ? NaN : sign * Infinity;
  }
  const d = '\\d(?:_?\\d)*';
  if (!new RegExp(`^[+-]?(?:${d}(?:\\.(?:${d})?)?|\\.${d})(?:[eE][+-]?${d})?$`).test(ascii)) return undefined;
  return Number(ascii.replace(/_/g, ''));
}

/** `round(x, ndigits)` for a float: correctly rounded, ties to even on the exact binary value. */
export function pyRound(x: number, ndigits: number): number {
  if (!Number.isFinite(x) || x === 0) return x;
  if (ndigits > 308) return x;
  if (ndigits < -308) return 0 * x;
  if (ndigits >= 0 && Math.abs(x) >= 2 ** 52) return x; // already integral
  if (ndigits >= 0 && ndigits <= 100) {
    // toFixed(100) is the exact binary value to 100 places; decide the tie there, then let toFixed round.
    const exact = Math.abs(x).toFixed(100);
    const point = exact.indexOf('.');
    const next = exact[point + 1 + ndigits];
    const tail = exact.slice(point + 2 + ndigits);
    if (next === '5' && /^0*$/.test(tail) && Math.abs(x) < 1e21) {
      const kept = exact.slice(0, point + 1 + ndigits).replace('.', '');
      const last = Number(kept[kept.length - 1]);
      const truncated = Number(exact.slice(0, point + 1 + ndigits));
      const step = 10 ** -ndigits;
      const r = last % 2 === 0 ? truncated : Number((truncated + step).toFixed(ndigits));
      return Math.sign(x) * r || 0 * x;
    }
    return Number(x.toFixed(ndigits)) || 0 * x;
  }
  const p = 10 ** -ndigits;
  const q = x / p;
  const r = Math.round(q);
  const tie = Math.abs(q - Math.trunc(q)) === 0.5;
  return (tie && r % 2 !== 0 ? r - Math.sign(q) : r) * p;
}
