import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { PyRandom, sampleSetSize } from '../../src/py/random.ts';
import { pyFloatRepr } from '../../src/py/float.ts';
import { slowTests } from '../helpers/slow.ts';

const range = (n: number): number[] => Array.from({ length: n }, (_, i) => i);
const words = (rng: PyRandom, n: number): number[] => range(n).map(() => rng.uint32());

// Vectors from docs lmeval-prompts.md §10.8 (CPython 3.11.7).
test('sample vectors required by the brief', () => {
  assert.deepEqual(new PyRandom(1234).sample(range(100), 5), [99, 56, 14, 0, 11]);
  assert.deepEqual(new PyRandom(1234).sample(range(10), 5), [7, 1, 0, 9, 4]);
  assert.deepEqual(
    new PyRandom(0).sample(range(1000), 25),
    [864, 394, 776, 911, 430, 41, 265, 988, 523, 497, 414, 940, 802, 849, 310, 991, 488, 366, 597, 913, 929, 223, 516, 142, 288],
  );
  const l = range(10);
  new PyRandom(1234).shuffle(l);
  assert.deepEqual(l, [2, 8, 3, 5, 6, 4, 9, 0, 1, 7]);
});

test('raw generator outputs and seeding', () => {
  assert.deepEqual(words(new PyRandom(1234), 8), [4150886329, 3342196574, 1892932127, 501869158, 32175636, 389311301, 3912611952, 4048155970]);
  assert.deepEqual(words(new PyRandom(0), 5), [3626764237, 1654615998, 3255389356, 3823568514, 1806341205]);
  assert.deepEqual(words(new PyRandom(2 ** 40 + 5), 3), [2166296868, 2220160828, 1153647273]);
  assert.deepEqual(words(new PyRandom(2n ** 40n + 5n), 3), [2166296868, 2220160828, 1153647273]);
  assert.deepEqual(words(new PyRandom(-1234), 3), [4150886329, 3342196574, 1892932127]);
  const r = new PyRandom(1234);
  assert.equal(r.getrandbits(64), 14354624986284130233n);
  assert.equal(r.getrandbits(7), 56n);
  assert.equal(r.getrandbits(33), 501869158n);
  assert.equal(new PyRandom(1234).random(), 0.9664535356921388);
  const b = new PyRandom(1234);
  assert.deepEqual(range(5).map(() => b.randbelow(1000)), [989, 796, 451, 119, 7]);
  assert.throws(() => new PyRandom(1.5), RangeError);
});

// CPython 3.11.7: r = random.Random(42); [r.randint(1, 6) for _ in range(10)], [r.choice('abcdefg') for _ in range(5)],
// r.randrange(10, 20), r.randrange(-5, 5)
test('randint, choice and randrange', () => {
  const r = new PyRandom(42);
  assert.deepEqual(range(10).map(() => r.randint(1, 6)), [6, 1, 1, 6, 3, 2, 2, 2, 6, 1]);
  assert.deepEqual(range(5).map(() => r.choice([...'abcdefg'])), ['f', 'f', 'e', 'a', 'e']);
  assert.equal(r.randrange(10, 20), 16);
  assert.equal(r.randrange(-5, 5), -5);
});

test('setsize rule', () => {
  const expected: [number, number][] = [[1, 21], [5, 21], [6, 85], [21, 85], [22, 277], [85, 277], [86, 1045], [341, 1045], [342, 4117], [1365, 4117]];
  for (const [k, size] of expected) assert.equal(sampleSetSize(k), size, `k=${k}`);
});

test('sequential sample draws as lm-eval does them', () => {
  const rng = new PyRandom(1234);
  const draws = (n: number, k: number, docs: number): number[][] => range(docs).map(() => rng.sample(range(n), k));
  // Each block below is its own Random(1234) in the reference, so re-seed per block.
  const cases: [number, number, number[][]][] = [
    [10, 2, [[7, 1], [0, 1], [9, 0], [1, 9]]],
    [30, 2, [[24, 14], [3, 0]]],
    [40, 6, [[28, 7, 0, 5, 2, 36], [6, 22, 15, 1, 36, 35], [22, 30, 29, 9, 5, 11]]],
    [1119, 6, [[902, 239, 15, 185, 71, 171], [201, 726, 484, 35, 63, 32], [708, 991, 949, 304, 186, 374], [234, 29, 1030, 996, 511, 132], [1108, 954, 140, 182, 1054, 94]]],
    [2251, 5, [[1805, 478, 30, 371, 143], [343, 403, 1452, 969, 71], [126, 64, 1417, 1983, 1898]]],
    [1119, 25, [[902, 239, 15, 185, 71, 171, 201, 726, 484, 35, 63, 32, 708, 991, 949, 304, 186, 374, 234, 29, 1030, 996, 511, 132, 1108]]],
    [39905, 11, [[28883, 7657, 490, 5940, 38156, 2288, 5500, 6450, 23241, 15519, 1142], [2019, 1038, 22681, 31735, 30379, 9735, 5982, 11999, 7498, 958, 32970], [31899, 16372, 4231, 35460, 30533, 4493, 39417, 5828, 33753, 37945, 3012]]],
    [40398, 6, [[28883, 7657, 490, 5940, 38156, 2288], [5500, 6450, 23241, 15519, 1142, 2019], [1038, 22681, 31735, 40358, 30379, 9735]]],
    [7473, 5, [[6374, 3610, 957, 61, 742], [7462, 6610, 4769, 286, 5501], [5677, 687, 806, 6279, 2905]]],
    [21, 5, [[14, 3, 0, 2, 1], [2, 3, 11, 7, 0]]],
    [22, 5, [[14, 3, 0, 2, 18], [1, 21, 2, 3, 11]]],
  ];
  for (const [n, k, expected] of cases) {
    rng.seed(1234);
    assert.deepEqual(draws(n, k, expected.length), expected, `N=${n} k=${k}`);
  }
});

// docs lmeval-scoring-and-outputs.md §4.4: the bootstrap's generator.
test('bootstrap choices vectors', () => {
  assert.equal(new PyRandom(0).random(), 0.8444218515250481);
  assert.deepEqual(new PyRandom(0).choices(range(10), 10), [8, 7, 4, 2, 5, 4, 7, 3, 4, 5]);
});

// The generator driven exactly as lm-eval's bootstrap_stderr drives it (chunks of ≤1000, Random(chunk index)).
// The metric code here is a minimal stand-in for the test; the real bootstrap lives with the scoring code.
test('bootstrap_stderr vectors of the scoring reference §4.4', () => {
  const mean = (a: readonly number[]): number => a.reduce((s, x) => s + x, 0) / a.length;
  const sampleStddev = (a: readonly number[]): number => {
    const mu = mean(a);
    return Math.sqrt(a.reduce((s, x) => s + (x - mu) ** 2, 0) / (a.length - 1));
  };
  const perplexity = (a: readonly number[]): number => Math.exp(-mean(a));
  const median = (a: readonly number[]): number => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)]!;
  const bootstrapStderr = (f: (a: readonly number[]) => number, xs: readonly number[], iters: number): number => {
    const chunk = Math.min(1000, iters);
    const replicates: number[] = [];
    for (let i = 0; i < Math.floor(iters / chunk); i++) {
      const rng = new PyRandom(i);
      for (let j = 0; j < chunk; j++) replicates.push(f(rng.choices(xs, xs.length)));
    }
    return sampleStddev(replicates);
  };
  const xs = range(50).map((i) => -(i % 7) * 0.37 - 0.1);
  assert.equal(perplexity(xs), 3.2798575776331313);
  assert.equal(bootstrapStderr(perplexity, xs, 2000), 0.34304081949031284);
  assert.equal(bootstrapStderr(median, xs, 1000), 0.21351821849582403);
});

// Mirrors test/golden/pyrandom_gen.py op for op.
const RANDBELOW_N = [1, 2, 3, 7, 8, 10, 100, 1000, 2 ** 31, 2 ** 32 - 1, 2 ** 32, 2 ** 32 + 1, 2 ** 40, 10 ** 15];
const BITS_K = [0, 1, 7, 31, 32, 33, 63, 64, 65, 100];
const SAMPLE_NK = [[10, 5], [21, 5], [22, 5], [85, 6], [86, 6], [100, 5], [1000, 25], [277, 22], [278, 22], [40, 6], [5, 0], [7, 7]] as const;
const SHUFFLE_M = [0, 1, 2, 5, 10, 33];
const CHOICES_NK = [[1, 3], [10, 10], [37, 5], [1000, 4]] as const;
const WEIGHTS = [[1, 2, 3, 4], [0.1, 0.25, 0.0, 0.65, 1e-3], [5, 0, 0, 1]];
const list = (xs: readonly number[]): string => `[${xs.join(', ')}]`;
const cumulative = (w: readonly number[]): number[] => {
  let total = 0;
  return w.map((x) => (total += x));
};

function op(rng: PyRandom, i: number): string {
  const kind = i % 8;
  const j = Math.floor(i / 8);
  switch (kind) {
    case 0:
    case 1:
      return pyFloatRepr(rng.random());
    case 2:
      return String(rng.randbelow(RANDBELOW_N[j % RANDBELOW_N.length]!));
    case 3:
      return String(rng.getrandbits(BITS_K[j % BITS_K.length]!));
    case 4: {
      const [n, k] = SAMPLE_NK[j % SAMPLE_NK.length]!;
      return list(rng.sample(range(n), k));
    }
    case 5: {
      const x = range(SHUFFLE_M[j % SHUFFLE_M.length]!);
      rng.shuffle(x);
      return list(x);
    }
    case 6: {
      const [n, k] = CHOICES_NK[j % CHOICES_NK.length]!;
      return list(rng.choices(range(n), k));
    }
    default: {
      const w = WEIGHTS[j % WEIGHTS.length]!;
      const weighting = j % 2 === 0 ? { weights: w } : { cumWeights: cumulative(w) };
      return list(rng.choices(range(w.length), 3, weighting));
    }
  }
}

// Every seed as a slow cross-check (.ci/run); every third in the plain suite (each is 83,334 operations).
test(`10^6 ops over 12 seeds match CPython 3.11 (test/golden/pyrandom.json)${slowTests ? '' : ': 4 of the seeds'}`, () => {
  const golden = JSON.parse(readFileSync(new URL('../golden/pyrandom.json', import.meta.url), 'utf8')) as {
    ops_per_seed: number;
    seeds: { seed: string; first: string[]; sha256: string }[];
  };
  assert.ok(golden.ops_per_seed * golden.seeds.length >= 1_000_000);
  assert.equal(golden.seeds.length, 12);
  for (const { seed, first, sha256 } of golden.seeds.filter((_, i) => slowTests || i % 3 === 0)) {
    const rng = new PyRandom(BigInt(seed));
    const hash = createHash('sha256');
    const head: string[] = [];
    for (let i = 0; i < golden.ops_per_seed; i++) {
      const line = op(rng, i);
      hash.update(`${line}\n`);
      if (i < first.length) head.push(line);
    }
    assert.deepEqual(head, first, `seed ${seed}`);
    assert.equal(hash.digest('hex'), sha256, `seed ${seed}`);
  }
});
