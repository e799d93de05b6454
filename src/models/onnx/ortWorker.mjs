/**
 * The onnx backend's inference thread. `InferenceSession.run` blocks the thread that calls it
 * for the whole forward pass (onnxruntime-node runs the native call synchronously), so the
 * session lives here and the main thread (progress view, store writes, later `lmaudit serve`)
 * stays responsive. This file is plain JavaScript, loaded by path, so that it runs the same
 * under tsx (tests) and beside the CommonJS bundle (the CLI). It knows token ids only: the
 * tokenizer, lm-eval's request semantics and stop strings stay on the main thread.
 *
 * Messages: {id, op, ...} in; {id, result} or {id, error} out. Ops: open, score, scoreShared,
 * scoreTokens, genStart, genStep, genEnd, close.
 */
import { parentPort } from 'node:worker_threads';
import { scoreAt, softmaxStats, topAt } from './logSoftmax.mjs';
import { closeSession, feedsFor, gatherRows, graph, LOGITS_BUDGET, open, rightPadded, run, stats, cpuSinceOpenMs } from './ortSession.mjs';
import { genEnd, genStart, genStep } from './ortGeneration.mjs';

/** The last context run by scoreShared: its tokens, the KV it left and its last position's logits. */
let sharedCache = null;

/**
 * Rows {ids, from, targets}: logits at positions from … from+targets.length−1 predict the targets.
 * Longest first, right-padded (as lm-eval batches), split to the logits budget.
 */
async function score({ rows, vocab }) {
  const results = new Array(rows.length);
  await inBudgetedBatches(
    rows.map((r) => r.ids.length),
    vocab,
    async (i) => {
      const t0 = performance.now();
      results[i] = { ...(await scoreLongRow(rows[i], vocab)), ms: 0 };
      results[i].ms = performance.now() - t0;
    },
    async (chunk, seq) => {
      const { ids, mask, positions } = rightPadded(chunk.map((i) => rows[i].ids), seq, 0);
      const t0 = performance.now();
      const { logits } = await run(feedsFor(ids, mask, positions, chunk.length, seq, 0, null), false);
      const ms = (performance.now() - t0) / chunk.length;
      chunk.forEach((i, b) => {
        const { from, targets } = rows[i];
        let logprob = 0;
        let greedy = true;
        targets.forEach((t, j) => {
          const r = scoreAt(logits, (b * seq + from + j) * vocab, vocab, t);
          logprob += r.logprob;
          greedy &&= r.greedy;
        });
        results[i] = { logprob, greedy, ms };
      });
    },
  );
  return results;
}

/**
 * Rows by index, longest first, in right-padded batches that fit the logits budget; a row too long for
 * the budget on its own (with a KV cache to feed it in pieces) goes to `long`, one at a time.
 */
async function inBudgetedBatches(lengths, vocab, long, batch) {
  const order = lengths.map((_, i) => i).sort((a, b) => lengths[b] - lengths[a]);
  for (let start = 0; start < order.length; ) {
    const seq = lengths[order[start]];
    if (seq * vocab > LOGITS_BUDGET && graph.past.length > 0) {
      await long(order[start]);
      start++;
      continue;
    }
    const take = Math.max(1, Math.min(order.length - start, Math.floor(LOGITS_BUDGET / (seq * vocab))));
    const chunk = order.slice(start, start + take);
    start += take;
    await batch(chunk, seq);
  }
}

/**
 * A row whose logits would not fit the budget (a long context over a large vocabulary: 2,048
 * positions of Qwen3's 151,936 are 1.2 GB) is fed in pieces through the KV cache; only the pieces
 * holding continuation positions are read. The cache makes this the same arithmetic as one pass,
 * up to float rounding (the fixture check: 1e-6).
 */
async function scoreLongRow({ ids, from, targets }, vocab) {
  const size = Math.max(1, Math.floor(LOGITS_BUDGET / vocab));
  let past = null;
  let logprob = 0;
  let greedy = true;
  for (let start = 0; start < ids.length; start += size) {
    const piece = ids.slice(start, start + size);
    const out = await run(feedsFor(piece, new Array(start + piece.length).fill(1), piece.map((_, k) => start + k), 1, piece.length, start, past), true);
    past = out.past;
    targets.forEach((t, j) => {
      const at = from + j - start;
      if (at < 0 || at >= piece.length) return;
      const r = scoreAt(out.logits, at * vocab, vocab, t);
      logprob += r.logprob;
      greedy &&= r.greedy;
    });
  }
  return { logprob, greedy };
}

/** Repeats a [1, H, P, D] past along the batch dimension. */
function replicate(past, batch) {
  return gatherRows(past, new Array(batch).fill(0));
}

const sameTokens = (a, b) => a.length === b.length && a.every((t, i) => t === b[i]);

/**
 * All continuations of one context from one pass over the context: its KV is kept (and reused by
 * the next call with the same context), each continuation's first token is scored from the
 * context's last logits, the rest from one batched pass over the continuations with the past
 * repeated along the batch.
 */
async function scoreShared({ context, conts, vocab }) {
  let ms = 0;
  if (sharedCache === null || !sameTokens(sharedCache.context, context)) {
    sharedCache = null;
    const n = context.length;
    const t0 = performance.now();
    const { logits, past } = await run(feedsFor(context, new Array(n).fill(1), context.map((_, k) => k), 1, n, 0, null), true);
    ms += performance.now() - t0;
    sharedCache = { context: [...context], past, last: logits.slice((n - 1) * vocab, n * vocab) };
  }
  const { past, last } = sharedCache;
  const pastLen = context.length;
  const results = conts.map((cont) => {
    const r = scoreAt(last, 0, vocab, cont[0]);
    return { logprob: r.logprob, greedy: r.greedy, ms: 0 };
  });
  const longer = conts.map((c, i) => i).filter((i) => conts[i].length > 1).sort((a, b) => conts[b].length - conts[a].length);
  for (let start = 0; start < longer.length; ) {
    const seq = conts[longer[start]].length - 1;
    const take = Math.max(1, Math.min(longer.length - start, Math.floor(LOGITS_BUDGET / (seq * vocab))));
    const chunk = longer.slice(start, start + take);
    start += take;
    const { ids, mask, positions } = rightPadded(chunk.map((i) => conts[i].slice(0, -1)), seq, pastLen);
    const t0 = performance.now();
    const { logits } = await run(feedsFor(ids, mask, positions, chunk.length, seq, pastLen, replicate(past, chunk.length)), false);
    ms += performance.now() - t0;
    chunk.forEach((i, b) => {
      const cont = conts[i];
      for (let k = 1; k < cont.length; k++) {
        const r = scoreAt(logits, (b * seq + k - 1) * vocab, vocab, cont[k]);
        results[i].logprob += r.logprob;
        results[i].greedy &&= r.greedy;
      }
    });
  }
  for (const r of results) r.ms = ms / results.length;
  return results;
}

// ---------------------------------------------------------------- per-token scores (lmaudit serve)

/**
 * Each row's tokens scored position by position: `logprobs[j]` is token j+1's log-probability after
 * tokens 0…j, `top[j]` that position's `topK` best [id, logprob] pairs, and `top[n−1]` the distribution
 * after the last token (what a next token would be drawn from). Rows are batched, right-padded, to the
 * logits budget; a row too long for it goes through the KV cache in pieces, as scoreLongRow does.
 */
async function scoreTokens({ rows, vocab, topK }) {
  const k = Math.max(1, topK);
  const readRow = (logits, base, row, into, from = 0, count = row.length) => {
    for (let p = from; p < from + count; p++) {
      const offset = base + (p - from) * vocab;
      const { max, arg, logSum } = softmaxStats(logits, offset, vocab);
      if (p + 1 < row.length) into.logprobs[p] = logits[offset + row[p + 1]] - max - logSum;
      // The best token needs no third pass over the vocabulary (the same arithmetic as topAt's).
      into.top[p] = k === 1 ? [[arg, logits[offset + arg] - max - logSum]] : topAt(logits, offset, vocab, k, max, logSum);
    }
  };
  const results = rows.map((row) => ({ logprobs: new Array(Math.max(0, row.length - 1)), top: new Array(row.length), ms: 0 }));
  await inBudgetedBatches(
    rows.map((r) => r.length),
    vocab,
    async (i) => {
      const row = rows[i];
      const size = Math.max(1, Math.floor(LOGITS_BUDGET / vocab));
      const t0 = performance.now();
      let past = null;
      for (let at = 0; at < row.length; at += size) {
        const piece = row.slice(at, at + size);
        const out = await run(feedsFor(piece, new Array(at + piece.length).fill(1), piece.map((_, j) => at + j), 1, piece.length, at, past), true);
        past = out.past;
        readRow(out.logits, 0, row, results[i], at, piece.length);
      }
      results[i].ms = performance.now() - t0;
    },
    async (chunk, seq) => {
      const { ids, mask, positions } = rightPadded(chunk.map((i) => rows[i]), seq, 0);
      const t0 = performance.now();
      const { logits } = await run(feedsFor(ids, mask, positions, chunk.length, seq, 0, null), false);
      const ms = (performance.now() - t0) / chunk.length;
      chunk.forEach((i, b) => {
        readRow(logits, b * seq * vocab, rows[i], results[i]);
        results[i].ms = ms;
      });
    },
  );
  return results;
}

const OPS = {
  open,
  stats: async () => ({ ...stats, cpuSinceOpenMs: cpuSinceOpenMs() }),
  score,
  scoreShared,
  scoreTokens,
  genStart,
  genStep,
  genEnd: async () => {
    genEnd();
    return null;
  },
  close: async () => {
    sharedCache = null;
    genEnd();
    await closeSession();
    return null;
  },
};
parentPort.on('message', async (message) => {
  const { id, op } = message;
  try {
    const result = await OPS[op](message);
    parentPort.postMessage({ id, result });
  } catch (error) {
    parentPort.postMessage({ id, error: error instanceof Error ? error.message : String(error) });
  }
});
