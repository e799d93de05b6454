/**
 * The onnx worker's token choice (src/models/onnx/sampling.mjs) against the definition it must keep:
 * HF's warpers in HF's order (temperature, top-k keeping every token level with the k-th best, top-p) over the
 * whole vocabulary sorted by value descending, ties to the lower id, and a draw walking that order. `reference` below is that
 * definition written plainly (every token sorted for every draw); the fast choice sorts only the
 * prefix the warpers keep and must pick the same token from the same draw wherever the order is
 * walked (top-k, top-p), and with neither must give each token its softmax probability.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { choose, rng, type Sampling } from '../../src/models/onnx/sampling.mjs';
import { slowOnly } from '../helpers/slow.ts';

function reference(logits: Float32Array, offset: number, vocab: number, sampling: Sampling, draw: () => number): number {
  const temperature = sampling.temperature && sampling.temperature > 0 ? sampling.temperature : 1;
  let cand: [number, number][] = [];
  for (let i = 0; i < vocab; i++) cand.push([i, logits[offset + i]! / temperature]);
  cand.sort((a, b) => b[1] - a[1] || a[0] - b[0]);
  // HF's TopKLogitsWarper removes the scores below the k-th best: a token level with it stays.
  if (sampling.topK !== null && sampling.topK > 0 && sampling.topK < cand.length) cand = cand.filter(([, x]) => x >= cand[sampling.topK! - 1]![1]);
  const max = cand[0]![1];
  let weights = cand.map(([, x]) => Math.exp(x - max));
  let total = weights.reduce((a, b) => a + b, 0);
  if (sampling.topP !== null && sampling.topP < 1) {
    let cum = 0;
    let keep = 0;
    while (keep < cand.length && cum < sampling.topP) cum += weights[keep++]! / total;
    cand = cand.slice(0, Math.max(1, keep));
    weights = weights.slice(0, cand.length);
    total = weights.reduce((a, b) => a + b, 0);
  }
  let u = draw() * total;
  for (let k = 0; k < cand.length; k++) {
    u -= weights[k]!;
    if (u <= 0) return cand[k]![0];
  }
  return cand[cand.length - 1]![0];
}

/** Logits of `rows` positions over GPT-2's vocabulary: a peaked row (a trained model's), a flat one (random weights'), ties. */
function logitRows(seed: number, vocab: number): Float32Array {
  const r = rng(seed);
  const rows = new Float32Array(4 * vocab);
  for (let i = 0; i < vocab; i++) {
    rows[i] = (r() - 0.5) * 0.2; // flat: everything within e^−0.3
    rows[vocab + i] = -20 * r() * r(); // peaked, with a long tail
    rows[2 * vocab + i] = Math.round(r() * 6); // seven values, ties everywhere: the lower id first
    rows[3 * vocab + i] = r() < 0.001 ? 15 + r() : -r() * 3; // a few tokens far ahead
  }
  return rows;
}

const settings = (temperature: number, topK: number | null, topP: number | null): Sampling => ({ doSample: true, temperature, topK, topP });

test('top-k and top-p (alone and together) pick the same token as sorting the whole vocabulary, draw by draw', () => {
  // Smaller than GPT-2's 50,257 to keep the test fast: the prefix growth (e^−8, e^−32, …) is reached the same way.
  const vocab = 6000;
  const rows = logitRows(7, vocab);
  const cases = [settings(1, 50, null), settings(0.7, 50, 0.95), settings(1, null, 0.9), settings(0.2, null, 0.5), settings(1.3, 1, null), settings(1, 4000, 0.99), settings(0.7, null, 0.999)];
  for (const s of cases) {
    for (let row = 0; row < 4; row++) {
      const fast = rng(row + 100);
      const slow = rng(row + 100);
      for (let n = 0; n < 3; n++) {
        assert.equal(choose(rows, row * vocab, vocab, s, fast), reference(rows, row * vocab, vocab, s, slow), `row ${row}, draw ${n}, ${JSON.stringify(s)}`);
      }
    }
  }
});

test('top-k keeps every token level with the k-th best (HF removes only those below it), one pushed out by a better one included', () => {
  // k = 3. Left out when met: token 3 of [1.5, 1, 1, 1, 2, 0]. Pushed out: token 2 of [1.5, 1, 1, 2, 0, 0] (kept until
  // the 2 arrives, the k-th best still 1 after it). HF keeps every score ≥ 1: five tokens of the first row, four of the
  // second; at T = 1 each weighs at least e^(−1) of the best, so 400 draws reach every one (and never the 0s).
  for (const [values, kept] of [[[1.5, 1, 1, 1, 2, 0], [0, 1, 2, 3, 4]], [[1.5, 1, 1, 2, 0, 0], [0, 1, 2, 3]]] as const) {
    const logits = new Float32Array(values);
    const seen = new Set<number>();
    const fast = rng(9);
    const slow = rng(9);
    for (let n = 0; n < 400; n++) {
      const id = choose(logits, 0, logits.length, settings(1, 3, null), fast);
      assert.equal(id, reference(logits, 0, logits.length, settings(1, 3, null), slow), `${JSON.stringify(values)}, draw ${n}`);
      seen.add(id);
    }
    assert.deepEqual([...seen].sort(), [...kept]);
  }
});

test('temperature alone: each token is drawn with its softmax probability exp(x/T) / Σ exp(x/T), computed here by hand', () => {
  // 100,000 seeded draws (the same every run, so the test cannot flake): a frequency's standard error is at most
  // √(¼ / 100,000) = 0.0016, and 0.008 (5 of them) is the tolerance; an error in the buckets' bounds or the
  // acceptance (a bucket's bound used as the weight, a token's bucket off by one) moves a share by 0.01 or more.
  const cases: [number[], number][] = [
    [[1, 3, 0, 3], 0.7],
    [[10, 0, -100, 9.5, 9.98, 10], 1],
    [[0.01, 0.02, 0.03, 0.04, 0.05], 0.05],
  ];
  for (const [values, t] of cases) {
    const logits = new Float32Array(values);
    const p = [...logits].map((x) => Math.exp(x / t - Math.max(...logits) / t));
    const z = p.reduce((a, b) => a + b, 0);
    const counts = values.map(() => 0);
    const n = 100_000;
    const draw = rng(42);
    for (let g = 0; g < n; g++) counts[choose(logits, 0, values.length, settings(t, null, null), draw)]!++;
    counts.forEach((c, i) => assert.ok(Math.abs(c / n - p[i]! / z) <= 0.008, `${JSON.stringify(values)} at T=${t}, token ${i}: ${c / n} vs ${p[i]! / z}`));
  }
});

// A slow cross-check since the plain suite passed 5 minutes on a slower 2-core machine: .ci/run runs it.
test('temperature alone over more than 64 tokens (the head drawn exactly, the tail by its bound): shares by hand, per token and per group', { skip: slowOnly }, () => {
  // 60,000 seeded draws a row (the same every run, so the test cannot flake); a share p's standard error is
  // √(p(1 − p) / 60,000), and five of them the tolerance. Three rows: a flat one (the tail holds most of the mass and
  // is proposed most of the time), a peaked one (the head holds it), and one whose tail is far below its bound (65
  // tokens level, 1,935 50 nats down: a try is kept with probability 65 / 2,000, so an eighth of the draws exhaust
  // the head's 64 tries and the buckets draw instead). A tail token's bound taken as its weight, a head token
  // proposed again from the tail, or the best token returned when the tries run out moves a share past its tolerance.
  const r = rng(5);
  const flat = Float32Array.from({ length: 300 }, () => r() * 2);
  const peaked = Float32Array.from({ length: 300 }, (_, i) => (i % 97 === 3 ? 6 + r() : -4 * r()));
  const cliff = Float32Array.from({ length: 2000 }, (_, i) => (i < 65 ? 1 : -50));
  for (const [name, logits, t] of [['flat', flat, 0.7], ['peaked', peaked, 1.3], ['cliff', cliff, 1]] as const) {
    const vocab = logits.length;
    const max = Math.max(...logits);
    const p = [...logits].map((x) => Math.exp(x / t - max / t));
    const z = p.reduce((a, b) => a + b, 0);
    const counts = new Array<number>(vocab).fill(0);
    const n = 60_000;
    const draw = rng(77);
    for (let g = 0; g < n; g++) counts[choose(logits, 0, vocab, settings(t, null, null), draw)]!++;
    const within = (share: number, q: number) => Math.abs(share - q) <= 5 * Math.sqrt((q * (1 - q)) / n) + 1e-9;
    counts.forEach((c, i) => assert.ok(within(c / n, p[i]! / z), `${name}, token ${i}: ${c / n} vs ${p[i]! / z}`));
    // The 64 best together against the rest: what a wrong head/tail split would move most.
    const order = [...p.keys()].sort((a, b) => p[b]! - p[a]! || a - b);
    const headShare = order.slice(0, 64).reduce((s, i) => s + counts[i]!, 0) / n;
    const headP = order.slice(0, 64).reduce((s, i) => s + p[i]!, 0) / z;
    assert.ok(within(headShare, headP), `${name}: the head's share ${headShare} vs ${headP}`);
  }
});

test('greedy is the first maximum, and temperature 0 with do_sample means temperature 1 (as before)', () => {
  const logits = new Float32Array([0, 2, 1, 2]);
  assert.equal(choose(logits, 0, 4, { doSample: false, temperature: 0, topK: null, topP: null }, () => 0.5), 1);
  const r1 = rng(3);
  const r2 = rng(3);
  const rows = logitRows(11, 1000);
  for (let n = 0; n < 20; n++) assert.equal(choose(rows, 1000, 1000, settings(0, 5, null), r1), reference(rows, 1000, 1000, settings(0, 5, null), r2));
});
