/**
 * CPython's `random.Random` (Mersenne Twister MT19937 plus the Lib/random.py
 * algorithms on top of it), reproduced draw for draw as of Python 3.11.
 *
 * lm-eval picks few-shot examples with `random.Random(seed).sample(...)` and
 * bootstraps stderrs with `random.Random(i).choices(...)`; a prompt or a
 * stderr is only byte-identical if every 32-bit word is consumed exactly as
 * CPython consumes it. No npm package reproduces CPython's seeding
 * (`init_by_array` over the 32-bit words of |seed|) together with its
 * `_randbelow` rejection loop and `sample`'s set/pool switch, so it is written
 * here from the reference (docs: lmeval-prompts.md §10).
 */

const N = 624;
const M = 397;
const MATRIX_A = 0x9908b0df;
const UPPER_MASK = 0x80000000;
const LOWER_MASK = 0x7fffffff;

/** Seed accepted by `PyRandom`: a Python int (a safe-integer number or any bigint). */
export type PySeed = number | bigint;

/** Weights for `choices`: either per-item weights or cumulative weights, as in Python. */
export type ChoiceWeights = { weights: readonly number[] } | { cumWeights: readonly number[] };

export class PyRandom {
  private readonly mt = new Uint32Array(N);
  private mti = N + 1;

  /**
   * `random.Random(seed)`. Negative seeds behave like their absolute value
   * (CPython seeds from `abs(a)`). Non-integral numbers are refused: CPython
   * would hash a float, which lm-eval never relies on.
   */
  constructor(seed: PySeed) {
    this.seed(seed);
  }

  seed(seed: PySeed): void {
    let n: bigint;
    if (typeof seed === 'bigint') n = seed;
    else {
      if (!Number.isSafeInteger(seed)) throw new RangeError(`PyRandom seed must be an integer, got ${seed}`);
      n = BigInt(seed);
    }
    if (n < 0n) n = -n;
    const key: number[] = [];
    // Least significant 32-bit word first; zero still gives one word ([0]).
    do {
      key.push(Number(n & 0xffffffffn));
      n >>= 32n;
    } while (n > 0n);
    this.initByArray(key);
  }

  private initGenrand(s: number): void {
    const mt = this.mt;
    mt[0] = s >>> 0;
    for (let i = 1; i < N; i++) {
      const prev = mt[i - 1]!;
      mt[i] = (Math.imul(1812433253, prev ^ (prev >>> 30)) + i) >>> 0;
    }
    this.mti = N;
  }

  private initByArray(key: readonly number[]): void {
    const mt = this.mt;
    this.initGenrand(19650218);
    let i = 1;
    let j = 0;
    for (let k = Math.max(N, key.length); k > 0; k--) {
      const prev = mt[i - 1]!;
      mt[i] = ((mt[i]! ^ Math.imul(prev ^ (prev >>> 30), 1664525)) + key[j]! + j) >>> 0;
      i++;
      j++;
      if (i >= N) {
        mt[0] = mt[N - 1]!;
        i = 1;
      }
      if (j >= key.length) j = 0;
    }
    for (let k = N - 1; k > 0; k--) {
      const prev = mt[i - 1]!;
      mt[i] = ((mt[i]! ^ Math.imul(prev ^ (prev >>> 30), 1566083941)) - i) >>> 0;
      i++;
      if (i >= N) {
        mt[0] = mt[N - 1]!;
        i = 1;
      }
    }
    mt[0] = 0x80000000; // guarantees a non-zero initial state
  }

  private twist(): void {
    const mt = this.mt;
    let kk = 0;
    let y: number;
    for (; kk < N - M; kk++) {
      y = (mt[kk]! & UPPER_MASK) | (mt[kk + 1]! & LOWER_MASK);
      mt[kk] = mt[kk + M]! ^ (y >>> 1) ^ (y & 1 ? MATRIX_A : 0);
    }
    for (; kk < N - 1; kk++) {
      y = (mt[kk]! & UPPER_MASK) | (mt[kk + 1]! & LOWER_MASK);
      mt[kk] = mt[kk + (M - N)]! ^ (y >>> 1) ^ (y & 1 ? MATRIX_A : 0);
    }
    y = (mt[N - 1]! & UPPER_MASK) | (mt[0]! & LOWER_MASK);
    mt[N - 1] = mt[M - 1]! ^ (y >>> 1) ^ (y & 1 ? MATRIX_A : 0);
    this.mti = 0;
  }

  /** One tempered 32-bit output (C `genrand_uint32`). */
  uint32(): number {
    if (this.mti >= N) this.twist();
    let y = this.mt[this.mti++]!;
    y ^= y >>> 11;
    y ^= (y << 7) & 0x9d2c5680;
    y ^= (y << 15) & 0xefc60000;
    y ^= y >>> 18;
    return y >>> 0;
  }

  /** `random()`: a double in [0, 1) built from two words (27 + 26 bits). */
  random(): number {
    const a = this.uint32() >>> 5;
    const b = this.uint32() >>> 6;
    return (a * 67108864 + b) / 9007199254740992;
  }

  /**
   * `getrandbits(k)`: k ≤ 32 takes the top k bits of one word; wider values
   * are assembled least significant word first, the last word shifted right
   * to keep only the bits still needed.
   */
  getrandbits(k: number): bigint {
    if (!Number.isInteger(k) || k < 0) throw new RangeError('number of bits must be non-negative');
    if (k <= 32) return BigInt(this.bits32(k));
    let result = 0n;
    let shift = 0n;
    for (let remaining = k; remaining > 0; remaining -= 32) {
      let word = this.uint32();
      if (remaining < 32) word >>>= 32 - remaining;
      result |= BigInt(word) << shift;
      shift += 32n;
    }
    return result;
  }

  /** `getrandbits(k)` for 0 ≤ k ≤ 32 as a plain number (the hot path). */
  private bits32(k: number): number {
    if (k === 0) return 0;
    return this.uint32() >>> (32 - k);
  }

  /**
   * `_randbelow(n)` (the getrandbits variant): draw bit_length(n) bits until
   * the value is below n. bit_length(n), not bit_length(n - 1), so powers of
   * two reject about half the draws, exactly as CPython does.
   */
  randbelow(n: number): number {
    if (!Number.isSafeInteger(n) || n <= 0) throw new RangeError(`randbelow needs a positive integer, got ${n}`);
    const k = bitLength(n);
    if (k <= 32) {
      let r = this.bits32(k);
      while (r >= n) r = this.bits32(k);
      return r;
    }
    const big = BigInt(n);
    let r = this.getrandbits(k);
    while (r >= big) r = this.getrandbits(k);
    return Number(r);
  }

  /** `randrange(start, stop)` with step 1 (`randrange(stop)` when called with one argument). */
  randrange(start: number, stop?: number): number {
    if (stop === undefined) return this.randbelow(start);
    if (stop <= start) throw new RangeError(`empty range for randrange(${start}, ${stop})`);
    return start + this.randbelow(stop - start);
  }

  /** `randint(a, b)`: `randrange(a, b + 1)`, both ends included. */
  randint(a: number, b: number): number {
    return this.randrange(a, b + 1);
  }

  /** `choice(seq)`: one `_randbelow(len(seq))` draw. */
  choice<T>(seq: readonly T[]): T {
    if (seq.length === 0) throw new RangeError('Cannot choose from an empty sequence');
    return seq[this.randbelow(seq.length)]!;
  }

  /**
   * `sample(population, k)` of Python 3.11: the pool algorithm when the
   * population is no larger than the set-size threshold, otherwise repeated
   * `_randbelow(n)` with rejection of indices already chosen. Result in
   * selection order.
   */
  sample<T>(population: readonly T[], k: number): T[] {
    const n = population.length;
    if (!Number.isInteger(k) || k < 0 || k > n) throw new RangeError('Sample larger than population or is negative');
    const result: T[] = new Array<T>(k);
    if (n <= sampleSetSize(k)) {
      const pool = population.slice();
      for (let i = 0; i < k; i++) {
        const j = this.randbelow(n - i);
        result[i] = pool[j]!;
        pool[j] = pool[n - i - 1]!;
      }
    } else {
      const selected = new Set<number>();
      for (let i = 0; i < k; i++) {
        let j = this.randbelow(n);
        while (selected.has(j)) j = this.randbelow(n);
        selected.add(j);
        result[i] = population[j]!;
      }
    }
    return result;
  }

  /** `shuffle(x)` in place: Fisher–Yates from the end with `_randbelow(i + 1)`. */
  shuffle<T>(x: T[]): void {
    for (let i = x.length - 1; i >= 1; i--) {
      const j = this.randbelow(i + 1);
      const tmp = x[i]!;
      x[i] = x[j]!;
      x[j] = tmp;
    }
  }

  /**
   * `choices(population, weights=None, *, cum_weights=None, k=1)`.
   * Unweighted: `population[floor(random() * n)]` per draw. Weighted:
   * cumulative weights (summed left to right, as `itertools.accumulate` does
   * for floats) and `bisect_right(cum, random() * total, 0, n - 1)`.
   */
  choices<T>(population: readonly T[], k = 1, weighting?: ChoiceWeights): T[] {
    const n = population.length;
    const out: T[] = new Array<T>(k);
    if (weighting === undefined) {
      if (n === 0 && k > 0) throw new RangeError('Cannot choose from an empty sequence');
      for (let i = 0; i < k; i++) out[i] = population[Math.floor(this.random() * n)]!;
      return out;
    }
    const cum = 'cumWeights' in weighting ? weighting.cumWeights : accumulate(weighting.weights);
    if (cum.length !== n) throw new RangeError('The number of weights does not match the population');
    if (n === 0) throw new RangeError('Cannot choose from an empty sequence');
    const total = cum[n - 1]!;
    if (!(total > 0)) throw new RangeError('Total of weights must be greater than zero');
    if (!Number.isFinite(total)) throw new RangeError('Total of weights must be finite');
    for (let i = 0; i < k; i++) out[i] = population[bisectRight(cum, this.random() * total, 0, n - 1)]!;
    return out;
  }
}

function bitLength(n: number): number {
  return n < 2 ** 32 ? 32 - Math.clz32(n) : n.toString(2).length;
}

/**
 * CPython: `21 + 4 ** ceil(log(3k, 4))` for k > 5. Since 3k is never a power
 * of four this is the smallest power of four ≥ 3k; computed with integers so
 * no libm rounding can move the boundary.
 */
export function sampleSetSize(k: number): number {
  let setsize = 21;
  if (k > 5) {
    let p = 1;
    while (p < 3 * k) p *= 4;
    setsize += p;
  }
  return setsize;
}

function accumulate(weights: readonly number[]): number[] {
  const out: number[] = new Array<number>(weights.length);
  let sum = 0;
  for (let i = 0; i < weights.length; i++) {
    sum = i === 0 ? weights[0]! : sum + weights[i]!;
    out[i] = sum;
  }
  return out;
}

/** Python's `bisect.bisect_right(a, x, lo, hi)`. */
function bisectRight(a: readonly number[], x: number, lo: number, hi: number): number {
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (x < a[mid]!) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}
