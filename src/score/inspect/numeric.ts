/**
 * The exact arithmetic of the Python libraries Inspect's metrics and reducers
 * call, so recomputed numbers match the stored ones to the last bit: NumPy's
 * pairwise summation (np.sum / np.mean / np.std of float64), and
 * `statistics.mean`, which sums exactly (as fractions) and rounds once.
 */
import { npSum, pairwiseSum } from '../../util/numpySum.ts';

export { npSum, pairwiseSum };

export function npMean(a: readonly number[]): number {
  return npSum(a) / a.length;
}

/** `np.std(a, ddof)`. */
export function npStd(a: readonly number[], ddof = 0): number {
  const mean = npMean(a);
  const squares = a.map((x) => (x - mean) * (x - mean));
  return Math.sqrt(npSum(squares) / (a.length - ddof));
}

const SCALE = 1074n;

/** A finite double as an exact integer multiple of 2^-1074. */
function toScaled(x: number): bigint {
  if (x === 0) return 0n;
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, x);
  const bits = view.getBigUint64(0);
  const negative = bits >> 63n === 1n;
  const exponent = Number((bits >> 52n) & 0x7ffn);
  const fraction = bits & ((1n << 52n) - 1n);
  const mantissa = exponent === 0 ? fraction : fraction | (1n << 52n);
  const shift = BigInt(Math.max(exponent, 1) - 1);
  const scaled = mantissa << shift;
  return negative ? -scaled : scaled;
}

/** The double nearest to num / (den × 2^1074), ties to even (how Python's int/int and Fraction→float round). */
function scaledToDouble(num: bigint, den: bigint): number {
  if (num === 0n) return 0;
  const negative = num < 0n;
  let n = negative ? -num : num;
  let d = den << SCALE;
  // Bring the quotient into [2^53, 2^54) so that it carries 53 bits plus a rounding bit.
  let exp = 0;
  const bitLength = (v: bigint) => v.toString(2).length;
  const shift = 54 - (bitLength(n) - bitLength(d));
  if (shift > 0) n <<= BigInt(shift);
  else d <<= BigInt(-shift);
  exp -= shift;
  while (n / d >= 1n << 54n) {
    d <<= 1n;
    exp += 1;
  }
  while (n / d < 1n << 53n) {
    n <<= 1n;
    exp -= 1;
  }
  let q = n / d;
  const r = n % d;
  const half = q & 1n;
  q >>= 1n;
  exp += 1;
  // half = the dropped bit; r = anything below it.
  if (half === 1n && (r !== 0n || (q & 1n) === 1n)) q += 1n;
  const value = Number(q) * 2 ** exp;
  return negative ? -value : value;
}

/** Python's `a / b` of two non-negative ints: the exact ratio, rounded once (ties to even). */
export function intRatio(a: bigint, b: bigint): number {
  return scaledToDouble(a << SCALE, b);
}

/** Python `statistics.mean` of finite floats: exact sum, one rounding. */
export function exactMean(a: readonly number[]): number {
  if (a.some((x) => !Number.isFinite(x))) return a.reduce((s, x) => s + x, 0) / a.length;
  const total = a.reduce((s, x) => s + toScaled(x), 0n);
  return scaledToDouble(total, BigInt(a.length));
}

/** Python `statistics.median`. */
export function pyMedian(a: readonly number[]): number {
  const sorted = [...a].sort((x, y) => x - y);
  const n = sorted.length;
  const i = Math.floor(n / 2);
  return n % 2 === 1 ? sorted[i]! : (sorted[i - 1]! + sorted[i]!) / 2;
}
