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

/** Greedy: the first maximum (torch.argmax's choice). Sampling: temperature, then top-k, then top-p, as HF orders its warpers. */
export function choose(logits, offset, vocab, sampling, draw) {
  if (!sampling.doSample) {
    let max = -Infinity;
    let arg = 0;
    for (let i = 0; i < vocab; i++) if (logits[offset + i] > max) {
      max = logits[offset + i];
      arg = i;
    }
    return arg;
  }
  const temperature = sampling.temperature && sampling.temperature > 0 ? sampling.temperature : 1;
  let cand = [];
  for (let i = 0; i < vocab; i++) cand.push([i, logits[offset + i] / temperature]);
  cand.sort((a, b) => b[1] - a[1] || a[0] - b[0]);
  if (sampling.topK !== null && sampling.topK > 0) cand = cand.slice(0, sampling.topK);
  const max = cand[0][1];
  let weights = cand.map(([, x]) => Math.exp(x - max));
  let total = weights.reduce((a, b) => a + b, 0);
  if (sampling.topP !== null && sampling.topP < 1) {
    let cum = 0;
    let keep = 0;
    while (keep < cand.length && cum < sampling.topP) cum += weights[keep++] / total;
    cand = cand.slice(0, Math.max(1, keep));
    weights = weights.slice(0, cand.length);
    total = weights.reduce((a, b) => a + b, 0);
  }
  let u = draw() * total;
  for (let k = 0; k < cand.length; k++) {
    u -= weights[k];
    if (u <= 0) return cand[k][0];
  }
  return cand[cand.length - 1][0];
}
