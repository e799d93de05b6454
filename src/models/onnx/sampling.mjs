/**
 * How the onnx worker picks the next token: greedy as torch.argmax picks (the first maximum), or a
 * seeded draw after HF's warpers in HF's order (temperature, top-k, top-p). The draws come from
 * xoshiro128**, a stated and reproducible stream, not torch's: sampled texts differ from lm-eval's.
 */

/** xoshiro128** seeded through splitmix32: a stated, reproducible stream (not torch's). */
export function rng(seed) {
  let s = seed >>> 0;
  const split = () => {
    s = (s + 0x9e3779b9) >>> 0;
    let z = s;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
    return (z ^ (z >>> 16)) >>> 0;
  };
  const st = [split(), split(), split(), split()];
  return () => {
    const result = Math.imul(((Math.imul(st[1], 5) << 7) | (Math.imul(st[1], 5) >>> 25)) >>> 0, 9) >>> 0;
    const t = (st[1] << 9) >>> 0;
    st[2] ^= st[0];
    st[3] ^= st[1];
    st[1] ^= st[2];
    st[0] ^= st[3];
    st[2] ^= t;
    st[3] = ((st[3] << 11) | (st[3] >>> 21)) >>> 0;
    return result / 4294967296;
  };
}

/** Up to this k, top-k keeps the k best in one pass (an insertion a better token, rare after the first few hundred). */
const SELECT_K = 256;

/** Each token's weight exp(x/T − max/T) in float64, by id; reused across tokens (a vocabulary's worth). */
let weights = new Float64Array(0);

/**
 * Greedy: the first maximum (torch.argmax's choice). Sampling: temperature, then top-k, then top-p,
 * as HF orders its warpers, over the order HF sorts by (value descending, ties to the lower id).
 * Only as much of that order is sorted as the warpers need (the k best; the nucleus, found by
 * sorting the tokens within e^−8, e^−32, … of the best until they hold top_p of the mass): sorting
 * the whole vocabulary for every token cost 50 times a greedy token. Without top-k or top-p the
 * draw is by rejection (drawByHead, else drawByBuckets), with the same probabilities.
 */
export function choose(logits, offset, vocab, sampling, draw) {
  const topK = sampling.doSample && sampling.topK !== null && sampling.topK > 0 && sampling.topK < vocab ? sampling.topK : null;
  const t = sampling.temperature && sampling.temperature > 0 ? sampling.temperature : 1;
  const topP = sampling.topP !== null && sampling.topP < 1 ? sampling.topP : null;
  if (sampling.doSample && topK === null && topP === null && vocab > HEAD) {
    const id = drawByHead(logits, offset, vocab, t, draw);
    if (id >= 0) return id;
  }
  if (topK !== null && topK <= SELECT_K) {
    // HF's default warpers (top-k 50): the k best in the one pass a greedy choice makes, the first of them the maximum.
    const n = bestK(logits, offset, vocab, topK);
    if (n === 0) return 0;
    const ids = tiesOutside ? withTies(logits, offset, vocab, n) : Array.from(bestIds.subarray(0, n));
    const top = bestValues[0] / t;
    const w = ids.map((id) => Math.exp(logits[offset + id] / t - top));
    return drawSorted(ids, w, w.reduce((a, b) => a + b, 0), topP, draw);
  }
  let max = -Infinity;
  let arg = 0;
  for (let i = 0; i < vocab; i++) if (logits[offset + i] > max) {
    max = logits[offset + i];
    arg = i;
  }
  if (!sampling.doSample) return arg;
  const top = max / t;
  if (topK !== null) {
    // A large k by the cuts (flat logits put the whole vocabulary within e^−8).
    const ids = sortedPrefix(logits, offset, vocab, max, t, (found) => found.length >= topK);
    // HF keeps every token level with the k-th (TopKLogitsWarper: scores < the k-th best are removed); the prefix holds them all.
    let keep = Math.min(ids.length, topK);
    while (keep < ids.length && logits[offset + ids[keep]] === logits[offset + ids[keep - 1]]) keep++;
    ids.length = keep;
    const w = ids.map((id) => Math.exp(logits[offset + id] / t - top));
    return drawSorted(ids, w, w.reduce((a, b) => a + b, 0), topP, draw);
  }
  if (topP === null) return drawByBuckets(logits, offset, vocab, t, max, draw, arg);
  if (weights.length < vocab) weights = new Float64Array(vocab);
  let total = 0;
  for (let i = 0; i < vocab; i++) {
    const w = Math.exp(logits[offset + i] / t - top);
    weights[i] = w;
    total += w;
  }
  const ids = sortedPrefix(logits, offset, vocab, max, t, (found) => {
    let cum = 0;
    for (const id of found) if ((cum += weights[id] / total) >= topP) return true;
    return false;
  });
  return drawSorted(ids, ids.map((id) => weights[id]), total, topP, draw);
}

/** The k best of the last bestK call, best first (ids and their logits), reused across tokens. */
let bestIds = new Int32Array(SELECT_K);
let bestValues = new Float64Array(SELECT_K);
/** Whether the last bestK call left out a token level with its k-th best (found by a later scan: withTies). */
let tiesOutside = false;

/**
 * The `k` best tokens of one position into bestIds/bestValues, value descending, ties to the lower id
 * (the order HF's sort gives and topk's on CPU); returns how many (k, or the vocabulary if smaller).
 * One comparison a token against the k-th best so far; an insertion shifts at most k entries, and a
 * token beats the k-th best about k·ln(vocab/k) times in a vocabulary in random order. A NaN logit
 * is never kept, as the greedy scan's `>` never picks one.
 */
function bestK(logits, offset, vocab, k) {
  let n = 0;
  let i = 0;
  for (; i < vocab && n < k; i++) {
    const x = logits[offset + i];
    if (x === x) place(n++, x, i);
  }
  // Full: only a strictly better value enters (an equal one has a higher id than the kept one; NaN fails `>`). A
  // token level with the k-th best is left out, or pushed out by a better one while the k-th stays level with it:
  // HF keeps those (top-k removes only what is below the k-th), so their being there is noted. A floor that rises
  // leaves every token noted below it.
  let floor = bestValues[k - 1];
  let ties = false;
  for (; i < vocab; i++) {
    const x = logits[offset + i];
    // One comparison for nearly every token (below the k-th best), a second for the few at or above it.
    if (x >= floor) {
      if (x > floor) {
        place(k - 1, x, i);
        const risen = bestValues[k - 1];
        ties = risen === floor;
        floor = risen;
      } else ties = true;
    }
  }
  tiesOutside = ties && n === k;
  return n;
}

/**
 * The k kept by bestK (n of them) with every token level with the k-th best, the way HF's top-k keeps them: the
 * kept tokens above the k-th's value, then every token at it, in id order (the order HF's sort gives ties).
 */
function withTies(logits, offset, vocab, n) {
  const floor = bestValues[n - 1];
  const ids = [];
  for (let k = 0; k < n && bestValues[k] > floor; k++) ids.push(bestIds[k]);
  for (let i = 0; i < vocab; i++) if (logits[offset + i] === floor) ids.push(i);
  return ids;
}

/** Token `id` of value `x` into the kept list from slot `j` upwards, past every kept value below it. */
function place(j, x, id) {
  while (j > 0 && bestValues[j - 1] < x) {
    bestValues[j] = bestValues[j - 1];
    bestIds[j] = bestIds[j - 1];
    j--;
  }
  bestValues[j] = x;
  bestIds[j] = id;
}

/** The best tokens drawByHead keeps exactly; the rest it bounds by the last of them. */
const HEAD = 64;
/** Tries before drawByHead gives up (a tail whose bound is far above its tokens' weights) for drawByBuckets. */
const HEAD_TRIES = 64;
/** Marks the head's ids for the draw in progress (`stamp[id] === stampOf`), so that nothing is cleared between draws. */
let stamp = new Uint32Array(0);
let stampOf = 0;

/**
 * Temperature alone: a draw with probability exp(x/T − max/T) / Σ exp(x/T − max/T), by rejection
 * from a proposal that costs the greedy scan's one pass. The 64 best tokens (the head, found as
 * top-k finds its k) are proposed with their own weights; every other token (the tail) weighs at most
 * b, the 64th best's weight, and is proposed with weight b: a tail token drawn uniformly (an id drawn
 * again while it is one of the head's), kept with probability weight / b. Every token is then kept in
 * proportion to its weight. A trained model's head holds nearly all the mass and the tail is rarely
 * proposed; a flat row's tail weighs near b and is kept often. After HEAD_TRIES rejections (a tail far
 * below its bound) the draw is redone by drawByBuckets; returns −1 then, or when a NaN leaves the head short.
 */
function drawByHead(logits, offset, vocab, t, draw) {
  const n = bestK(logits, offset, vocab, HEAD);
  if (n < HEAD) return -1;
  if (stamp.length < vocab) stamp = new Uint32Array(vocab);
  stampOf = (stampOf + 1) >>> 0 || 1;
  const top = bestValues[0] / t;
  let head = 0;
  for (let k = 0; k < HEAD; k++) {
    head += Math.exp(bestValues[k] / t - top);
    stamp[bestIds[k]] = stampOf;
  }
  const bound = Math.exp(bestValues[HEAD - 1] / t - top);
  const mass = head + (vocab - HEAD) * bound;
  for (let tries = 0; tries < HEAD_TRIES; tries++) {
    let u = draw() * mass;
    if (u < head) {
      for (let k = 0; k < HEAD; k++) {
        u -= Math.exp(bestValues[k] / t - top);
        if (u < 0) return bestIds[k];
      }
      return bestIds[HEAD - 1];
    }
    let id;
    do id = Math.min(vocab - 1, Math.floor(draw() * vocab));
    while (stamp[id] === stampOf);
    if (draw() * bound < Math.exp(logits[offset + id] / t - top)) return id;
  }
  return -1;
}

/** Buckets of 1/10 nat below the best token's scaled value, the last holding everything 50 nats or more below. */
const BUCKET_WIDTH = 0.1;
const BUCKETS = 500;
const bucketBound = Float64Array.from({ length: BUCKETS + 1 }, (_, j) => Math.exp(-j * BUCKET_WIDTH));
const bucketCount = new Float64Array(BUCKETS + 1);
let bucketOf = new Uint16Array(0);

/**
 * A draw with probability exp(x/T − max/T) / Σ exp(x/T − max/T) for each token, by rejection: a
 * bucket is drawn in proportion to its size times its bound e^(−j/10) (no token of it weighs more),
 * then one of its tokens uniformly, kept with probability weight / bound (at least e^(−1/10)), else
 * drawn again. Kept tokens follow the softmax exactly (up to float rounding), and a draw costs one
 * exp per try instead of one per token of the vocabulary (Math.exp over 50,257 tokens took 0.9 ms,
 * most of a greedy token's whole cost).
 */
function drawByBuckets(logits, offset, vocab, t, max, draw, fallback) {
  const top = max / t;
  if (bucketOf.length < vocab) bucketOf = new Uint16Array(vocab);
  // Locals, not the module's bindings: V8 reloads a `let` binding on every pass of a loop.
  const of = bucketOf;
  const count = bucketCount;
  count.fill(0);
  // (max − x) / (T · width), a multiplication a token: a bucket off by a rounding error at its edge
  // bounds its token by e^(−j/10) within 1e−15, which the acceptance's cap at 1 absorbs.
  const scale = 1 / (t * BUCKET_WIDTH);
  for (let i = 0; i < vocab; i++) {
    const below = (max - logits[offset + i]) * scale;
    const j = below < BUCKETS ? below | 0 : BUCKETS;
    of[i] = j;
    count[j]++;
  }
  let mass = 0;
  for (let j = 0; j <= BUCKETS; j++) mass += count[j] * bucketBound[j];
  for (let tries = 0; tries < 1000; tries++) {
    let u = draw() * mass;
    let j = 0;
    while (j < BUCKETS && (count[j] === 0 || (u -= count[j] * bucketBound[j]) > 0)) j++;
    while (count[j] === 0) j--;
    let r = Math.min(count[j] - 1, Math.floor(draw() * count[j]));
    let id = 0;
    for (; id < vocab; id++) if (of[id] === j && r-- === 0) break;
    if (draw() * bucketBound[j] < Math.exp(logits[offset + id] / t - top)) return id;
  }
  // Every try rejected (at e^(−1/10) rejection a try, never in practice): the best token.
  return fallback;
}

/**
 * The start of the warpers' order: the tokens within e^−8 of the best (in weight, after temperature),
 * sorted, then within e^−32, e^−128, … until `enough` says the prefix holds what is needed (or it is
 * the whole vocabulary). Every token above a cut precedes every token below it, so each is a true prefix.
 */
function sortedPrefix(logits, offset, vocab, max, t, enough) {
  for (let gap = 8; ; gap *= 4) {
    const cut = gap > 4096 ? -Infinity : max - gap * t;
    const ids = [];
    for (let i = 0; i < vocab; i++) if (logits[offset + i] >= cut) ids.push(i);
    // x/T is strictly increasing in x, so the logits sort as the scaled values do.
    ids.sort((a, b) => logits[offset + b] - logits[offset + a] || a - b);
    if (cut === -Infinity || enough(ids)) return ids;
  }
}

/** Top-p over sorted candidates (their weights and total given), then a draw walking them in order. */
function drawSorted(ids, w, total, topP, draw) {
  let keep = ids.length;
  if (topP !== null) {
    let cum = 0;
    keep = 0;
    while (keep < ids.length && cum < topP) cum += w[keep++] / total;
    keep = Math.max(1, keep);
    total = 0;
    for (let k = 0; k < keep; k++) total += w[k];
  }
  let u = draw() * total;
  for (let k = 0; k < keep; k++) {
    u -= w[k];
    if (u <= 0) return ids[k];
  }
  return ids[keep - 1];
}
