/**
 * Python's `int(str, base)`, which the `int` filter calls. JS `Number()` and
 * `parseInt` accept other spellings ("0x10", "", " ", "12abc").
 */
import { stripNumber } from './float.ts';
import { decimalValue } from './unicodedata.ts';

/** Unicode decimal digits count as in Python (`int('٣')` is 3); -1 for anything else. */
function digitValue(ch: string): number {
  return decimalValue(ch.codePointAt(0)!) ?? -1;
}

/** `int(s, base)` for a str, or undefined where Python raises ValueError. */
export function parsePyInt(s: string, base: number): number | undefined {
  const t = stripNumber(s);
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
