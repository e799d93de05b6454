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
import * as ort from 'onnxruntime-node';
import { choose, rng } from './sampling.mjs';
import { scoreAt, softmaxStats, topAt } from './logSoftmax.mjs';

/**
 * Logits per forward pass are B·S·V floats; passes are split so that one holds at most this many
 * (256 MB). LMAUDIT_ONNX_LOGITS_BUDGET lowers it, which is how the tests reach the split paths.
 */
const LOGITS_BUDGET = Number(process.env.LMAUDIT_ONNX_LOGITS_BUDGET) > 0 ? Number(process.env.LMAUDIT_ONNX_LOGITS_BUDGET) : 64 * 1024 * 1024;

let session = null;
/** What the graph takes: see open(). */
let graph = null;
/** The last context run by scoreShared: its tokens, the KV it left and its last position's logits. */
let sharedCache = null;
/** The generation in progress (one at a time). */
let gen = null;
/** Token positions fed through the graph (batch × sequence, padding included) and passes run: what prefix sharing saves. */
const stats = { forwardTokens: 0, forwardPasses: 0 };

const big = (values) => BigInt64Array.from(values, (v) => BigInt(v));
const int64 = (values, dims) => new ort.Tensor('int64', big(values), dims);

function emptyPast(batch) {
  const feeds = {};
  for (const p of graph.past) feeds[p.name] = new ort.Tensor(p.type, p.type === 'float16' ? new Uint16Array(0) : new Float32Array(0), [batch, p.heads, 0, p.headDim]);
  return feeds;
}

/** Common feeds: ids [B,S], mask [B,P+S], positions [B,S] (when the graph takes them), past (or empty). */
function feedsFor(ids, mask, positions, batch, seq, pastLen, past) {
  const feeds = { input_ids: int64(ids, [batch, seq]) };
  if (graph.hasMask) feeds.attention_mask = int64(mask, [batch, pastLen + seq]);
  if (graph.hasPositions) feeds.position_ids = int64(positions, [batch, seq]);
  if (graph.past.length > 0) Object.assign(feeds, past ?? emptyPast(batch));
  if (graph.hasUseCacheBranch) feeds.use_cache_branch = new ort.Tensor('bool', [pastLen > 0], [1]);
  if (graph.hasLogitsToKeep) feeds.num_logits_to_keep = new ort.Tensor('int64', BigInt64Array.from([0n]), []);
  return feeds;
}

async function run(feeds, withPresent) {
  stats.forwardTokens += feeds.input_ids.dims[0] * feeds.input_ids.dims[1];
  stats.forwardPasses += 1;
  const fetches = withPresent ? ['logits', ...graph.past.map((p) => p.present)] : ['logits'];
  const out = await session.run(feeds, fetches);
  const logits = out.logits;
  if (logits.type !== 'float32') throw new Error(`the model's logits are ${logits.type}; only float32 logits are read (export with float32 outputs)`);
  let past = null;
  if (withPresent) {
    past = {};
    for (const p of graph.past) past[p.name] = out[p.present];
  }
  return { logits: logits.data, dims: logits.dims, past };
}

function open({ path, threads }) {
  return ort.InferenceSession.create(path, { intraOpNumThreads: threads, interOpNumThreads: 1, graphOptimizationLevel: 'all' }).then((s) => {
    session = s;
    const inputs = new Map(s.inputMetadata.map((m) => [m.name, m]));
    const outputs = new Set(s.outputNames);
    if (!inputs.has('input_ids')) throw new Error(`the graph has no input_ids input (inputs: ${s.inputNames.join(', ')}); it is not a causal LM export`);
    if (!outputs.has('logits')) throw new Error(`the graph has no logits output (outputs: ${s.outputNames.join(', ')})`);
    const past = [];
    for (const m of s.inputMetadata) {
      const found = /^past_key_values\.(\d+)\.(key|value)$/.exec(m.name);
      if (found === null) continue;
      const present = [`present.${found[1]}.${found[2]}`, `present_key_values.${found[1]}.${found[2]}`].find((n) => outputs.has(n));
      if (present === undefined) throw new Error(`the graph takes ${m.name} but returns no matching present output`);
      const [, heads, , headDim] = m.shape;
      if (typeof heads !== 'number' || typeof headDim !== 'number') throw new Error(`${m.name} has symbolic head dimensions (${JSON.stringify(m.shape)}); a past of [batch, kv_heads, past, head_dim] with fixed heads is expected`);
      past.push({ name: m.name, present, type: m.type, heads, headDim });
    }
    const logitsMeta = s.outputMetadata?.find?.((m) => m.name === 'logits');
    const vocab = logitsMeta && typeof logitsMeta.shape?.[2] === 'number' ? logitsMeta.shape[2] : null;
    graph = {
      past,
      hasMask: inputs.has('attention_mask'),
      hasPositions: inputs.has('position_ids'),
      hasUseCacheBranch: inputs.has('use_cache_branch'),
      hasLogitsToKeep: inputs.has('num_logits_to_keep'),
    };
    const known = new Set(['input_ids', 'attention_mask', 'position_ids', 'use_cache_branch', 'num_logits_to_keep', ...past.map((p) => p.name)]);
    const unknown = s.inputNames.filter((n) => !known.has(n));
    if (unknown.length > 0) throw new Error(`the graph takes inputs a causal LM export does not (${unknown.join(', ')})`);
    return { inputs: s.inputNames, outputs: s.outputNames, kvCache: past.length > 0, positionIds: graph.hasPositions, layers: past.length / 2, kvHeads: past[0]?.heads ?? null, headDim: past[0]?.headDim ?? null, kvType: past[0]?.type ?? null, vocab };
  });
}

/**
 * Rows right-padded to `seq` after a past of `pastLen` positions (lm-eval pads loglikelihood batches
 * on the right): ids (pad 0, masked out), the mask over past and new positions, positions from pastLen.
 */
function rightPadded(rows, seq, pastLen) {
  const ids = [];
  const mask = [];
  const positions = [];
  for (const row of rows) {
    for (let k = 0; k < pastLen; k++) mask.push(1);
    for (let k = 0; k < seq; k++) {
      ids.push(k < row.length ? row[k] : 0);
      mask.push(k < row.length ? 1 : 0);
      positions.push(pastLen + k);
    }
  }
  return { ids, mask, positions };
}

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

/** A past of [U, H, P, D] as [rows.length, H, P, D]: row b is the source's row rows[b]. */
function gatherRows(past, rows) {
  const out = {};
  for (const [name, tensor] of Object.entries(past)) {
    const from = tensor.data;
    const size = from.length / tensor.dims[0];
    const data = new from.constructor(size * rows.length);
    rows.forEach((u, b) => data.set(from.subarray(u * size, (u + 1) * size), b * size));
    out[name] = new ort.Tensor(tensor.type, data, [rows.length, ...tensor.dims.slice(1)]);
  }
  return out;
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

// ---------------------------------------------------------------- generation

/**
 * Rows of context ids, left-padded (as lm-eval generates); positions = cumsum(mask) − 1, padded slots 1 (as HF).
 * Rows with the same ids (a sampled request's repeats) share one prefill when the graph keeps a KV
 * cache: the distinct rows are run, then their past is copied out to every row that asked for it,
 * and each row draws its first token from its own seed. The left padding is the whole batch's, so
 * every row sees the positions and mask it would have seen in an unshared pass.
 */
async function genStart({ rows, padId, vocab, sampling }) {
  const batch = rows.length;
  const seq = Math.max(...rows.map((r) => r.length));
  const padded = (list) => {
    const ids = [];
    const mask = [];
    const positions = [];
    for (const row of list) {
      const pad = seq - row.length;
      for (let k = 0; k < seq; k++) {
        ids.push(k < pad ? padId : row[k - pad]);
        mask.push(k < pad ? 0 : 1);
        positions.push(k < pad ? 1 : k - pad);
      }
    }
    return { ids, mask, positions };
  };
  const { ids, mask } = padded(rows);
  const withCache = graph.past.length > 0;
  const firstOf = new Map();
  const source = rows.map((r) => {
    const key = withCache ? r.join(',') : String(firstOf.size);
    if (!firstOf.has(key)) firstOf.set(key, firstOf.size);
    return firstOf.get(key);
  });
  const distinct = rows.filter((_, b) => source.indexOf(source[b]) === b);
  const run1 = padded(distinct);
  const draws = rows.map((_, b) => rng(sampling.seeds?.[b] ?? sampling.seed ?? 0));
  const t0 = performance.now();
  // The prompt in one pass, as HF does, unless its logits would not fit the budget: then in pieces
  // through the KV cache (only the last position's logits are needed).
  const width = distinct.length;
  const piece = withCache && width * seq * vocab > LOGITS_BUDGET ? Math.max(1, Math.floor(LOGITS_BUDGET / (width * vocab))) : seq;
  let past = null;
  let logits = null;
  let last = 0;
  for (let start = 0; start < seq; start += piece) {
    const end = Math.min(seq, start + piece);
    const cols = (values, from, to) => {
      const out = [];
      for (let b = 0; b < width; b++) for (let k = from; k < to; k++) out.push(values[b * seq + k]);
      return out;
    };
    const out = await run(feedsFor(cols(run1.ids, start, end), cols(run1.mask, 0, end), cols(run1.positions, start, end), width, end - start, start, past), withCache);
    past = out.past;
    logits = out.logits;
    last = end - start;
  }
  if (withCache && width < batch) past = gatherRows(past, source);
  const next = rows.map((_, b) => choose(logits, (source[b] * last + last - 1) * vocab, vocab, sampling, draws[b]));
  gen = { batch, ids, mask, seq, past, vocab, sampling, draws, counts: rows.map((r) => r.length) };
  return { next, ms: performance.now() - t0 };
}

/** Feeds one token per row (the chosen one, or the pad for a finished row) and chooses the next. */
async function genStep({ feed }) {
  const g = gen;
  const t0 = performance.now();
  for (let b = 0; b < g.batch; b++) g.counts[b]++;
  let logits;
  let offsetOf;
  if (graph.past.length > 0) {
    const pastLen = g.mask.length / g.batch;
    const mask = [];
    for (let b = 0; b < g.batch; b++) {
      for (let k = 0; k < pastLen; k++) mask.push(g.mask[b * pastLen + k]);
      mask.push(1);
    }
    g.mask = mask;
    const out = await run(feedsFor(feed, mask, g.counts.map((c) => c - 1), g.batch, 1, pastLen, g.past), true);
    g.past = out.past;
    logits = out.logits;
    offsetOf = (b) => b * g.vocab;
  } else {
    // A graph without a KV cache recomputes the whole sequence at every step.
    const seq = g.seq;
    const ids = [];
    const mask = [];
    for (let b = 0; b < g.batch; b++) {
      for (let k = 0; k < seq; k++) {
        ids.push(g.ids[b * seq + k]);
        mask.push(g.mask[b * seq + k]);
      }
      ids.push(feed[b]);
      mask.push(1);
    }
    g.ids = ids;
    g.mask = mask;
    g.seq = seq + 1;
    const positions = [];
    for (let b = 0; b < g.batch; b++) {
      let count = 0;
      for (let k = 0; k < g.seq; k++) {
        const m = mask[b * g.seq + k];
        count += m;
        positions.push(m === 0 ? 1 : count - 1);
      }
    }
    const out = await run(feedsFor(ids, mask, positions, g.batch, g.seq, 0, null), false);
    logits = out.logits;
    offsetOf = (b) => (b * g.seq + g.seq - 1) * g.vocab;
  }
  const next = feed.map((_, b) => choose(logits, offsetOf(b), g.vocab, g.sampling, g.draws[b]));
  return { next, ms: performance.now() - t0 };
}

const OPS = {
  open,
  stats: async () => ({ ...stats }),
  score,
  scoreShared,
  scoreTokens,
  genStart,
  genStep,
  genEnd: async () => {
    gen = null;
    return null;
  },
  close: async () => {
    sharedCache = null;
    gen = null;
    if (session !== null) await session.release();
    session = null;
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
