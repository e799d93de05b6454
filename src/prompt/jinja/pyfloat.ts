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
