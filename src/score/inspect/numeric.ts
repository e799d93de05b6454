/**
 * The exact arithmetic of the Python libraries Inspect's metrics and reducers
 * call, so recomputed numbers match the stored ones to the last bit: NumPy's
 * pairwise summation (np.sum / np.mean / np.std of float64), and
 * `statistics.mean`, which sums exactly (as fractions) and rounds once.
 */

/** NumPy's pairwise_sum for float64 (numpy/_core/src/umath/loops_utils.h.src), block size 128, unrolled by 8. */
export function pairwiseSum(a: readonly number[], start = 0, n = a.length - start): number {
  if (n < 8) {
    // NumPy starts this branch from -0.0 so that a sum of negative zeros stays -0.0.
    let res = -0;
    for (let i = 0; i < n; i++) res += a[start + i]!;
    return res;
  }
  if (n <= 128) {
    const r = [0, 1, 2, 3, 4, 5, 6, 7].map((j) => a[start + j]!);
    let i = 8;
    for (; i < n - (n % 8); i += 8) for (let j = 0; j < 8; j++) r[j]! += a[start + i + j]!;
    let res = ((r[0]! + r[1]!) + (r[2]! + r[3]!)) + ((r[4]! + r[5]!) + (r[6]! + r[7]!));
    for (; i < n; i++) res += a[start + i]!;
    return res;
  }
  let n2 = Math.floor(n / 2);
  n2 -= n2 % 8;
  return pairwiseSum(a, start, n2) + pairwiseSum(a, start + n2, n - n2);
}

/** `np.sum` of a float64 array: the identity 0.0 plus the pairwise sum (one inner-loop call up to 8192 elements). */
export function npSum(a: readonly number[]): number {
  const BUFFER = 8192;
  let total = 0;
  for (let at = 0; at < a.length; at += BUFFER) total += pairwiseSum(a, at, Math.min(BUFFER, a.length - at));
  return total;
}

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
