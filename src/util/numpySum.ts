/**
 * NumPy's float64 summation, which lm-eval's nanmean and Inspect's metrics call: the
 * pairwise sum of the add.reduce inner loop, over buffers of 8192 elements. A plain
 * left-to-right sum differs in the last bits.
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
