/**
 * Log-softmax of one position of a float32 logits row, in float64, for the onnx worker: every value a
 * backend call or `lmaudit serve` reports is computed by these few lines, in one order
 * (x − max − log Σ exp(x − max)), so the same logits give the same doubles on every path.
 */

/** log_softmax of one position at `target`, in float64, and whether `target` is the (first) argmax. */
export function scoreAt(logits, offset, vocab, target) {
  let max = -Infinity;
  let arg = 0;
  for (let i = 0; i < vocab; i++) {
    const x = logits[offset + i];
    if (x > max) {
      max = x;
      arg = i;
    }
  }
  let sum = 0;
  for (let i = 0; i < vocab; i++) sum += Math.exp(logits[offset + i] - max);
  return { logprob: logits[offset + target] - max - Math.log(sum), greedy: arg === target };
}

/**
 * The `k` best tokens of one position, best first, ties to the lower id (torch.argmax's and
 * topk's order on CPU), each with its log-softmax as scoreAt computes it (the same doubles).
 */
export function topAt(logits, offset, vocab, k, max, logSum) {
  const top = [];
  for (let i = 0; i < vocab; i++) {
    const x = logits[offset + i];
    if (top.length === k && x <= top[k - 1][1]) continue;
    let at = top.length;
    while (at > 0 && top[at - 1][1] < x) at--;
    top.splice(at, 0, [i, x]);
    if (top.length > k) top.pop();
  }
  return top.map(([id, x]) => [id, x - max - logSum]);
}

/** max, its (first) index and log(Σ exp(x − max)) of one position, as scoreAt sums them. */
export function softmaxStats(logits, offset, vocab) {
  let max = -Infinity;
  let arg = 0;
  for (let i = 0; i < vocab; i++) {
    if (logits[offset + i] > max) {
      max = logits[offset + i];
      arg = i;
    }
  }
  let sum = 0;
  for (let i = 0; i < vocab; i++) sum += Math.exp(logits[offset + i] - max);
  return { max, arg, logSum: Math.log(sum) };
}
