/**
 * The inference thread's session (ortWorker.mjs): the graph it opened and what its inputs are, the
 * feeds of a forward pass and the pass itself, counted. Shared by the scoring ops (ortWorker.mjs) and
 * generation (ortGeneration.mjs); plain JavaScript for the reason ortWorker.mjs gives.
 */
import { readFileSync } from 'node:fs';
import * as ort from 'onnxruntime-node';

/**
 * Logits per forward pass are B·S·V floats; passes are split so that one holds at most this many
 * (256 MB). LMAUDIT_ONNX_LOGITS_BUDGET lowers it, which is how the tests reach the split paths.
 */
export const LOGITS_BUDGET = Number(process.env.LMAUDIT_ONNX_LOGITS_BUDGET) > 0 ? Number(process.env.LMAUDIT_ONNX_LOGITS_BUDGET) : 64 * 1024 * 1024;

let session = null;
/** What the graph takes: see open(). */
export let graph = null;
/**
 * Token positions fed through the graph (batch × sequence, padding included) and passes run: what
 * prefix sharing saves. Generation's steps after the prefill (one token a row each) and this
 * thread's CPU milliseconds in them, messages included (ortGeneration.mjs): at batch 1, a generated token's cost.
 */
export const stats = { forwardTokens: 0, forwardPasses: 0, generationSteps: 0, generationStepCpuMs: 0 };

let cpuAtOpen = null;

/**
 * CPU milliseconds this thread has run since the model opened (its load and graph optimisation left
 * out: they vary more from run to run than a short run's inference costs), or null where the OS does
 * not say. The graph runs on this thread (onnxruntime-node's `run` is synchronous under its
 * promise) and so does the choice of each token; with threads > 1, onnxruntime's own pool threads
 * share the graph's work and are not counted.
 */
export function cpuSinceOpenMs() {
  const now = threadCpuMs();
  return now === null || cpuAtOpen === null ? null : now - cpuAtOpen;
}

/** This thread's CPU milliseconds since it started, or null where /proc/thread-self/schedstat is not. */
export function threadCpuMs() {
  try {
    return Number(readFileSync('/proc/thread-self/schedstat', 'utf8').split(' ')[0]) / 1e6;
  } catch {
    return null;
  }
}

const big = (values) => BigInt64Array.from(values, (v) => BigInt(v));
const int64 = (values, dims) => new ort.Tensor('int64', big(values), dims);

export function emptyPast(batch) {
  const feeds = {};
  for (const p of graph.past) feeds[p.name] = new ort.Tensor(p.type, p.type === 'float16' ? new Uint16Array(0) : new Float32Array(0), [batch, p.heads, 0, p.headDim]);
  return feeds;
}

/** Common feeds: ids [B,S], mask [B,P+S], positions [B,S] (when the graph takes them), past (or empty). */
export function feedsFor(ids, mask, positions, batch, seq, pastLen, past) {
  const feeds = { input_ids: int64(ids, [batch, seq]) };
  if (graph.hasMask) feeds.attention_mask = int64(mask, [batch, pastLen + seq]);
  if (graph.hasPositions) feeds.position_ids = int64(positions, [batch, seq]);
  if (graph.past.length > 0) Object.assign(feeds, past ?? emptyPast(batch));
  if (graph.hasUseCacheBranch) feeds.use_cache_branch = new ort.Tensor('bool', [pastLen > 0], [1]);
  if (graph.hasLogitsToKeep) feeds.num_logits_to_keep = new ort.Tensor('int64', BigInt64Array.from([0n]), []);
  return feeds;
}

export async function run(feeds, withPresent) {
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

export function open({ path, threads }) {
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
    cpuAtOpen = threadCpuMs();
    return { inputs: s.inputNames, outputs: s.outputNames, kvCache: past.length > 0, positionIds: graph.hasPositions, layers: past.length / 2, kvHeads: past[0]?.heads ?? null, headDim: past[0]?.headDim ?? null, kvType: past[0]?.type ?? null, vocab };
  });
}

/**
 * Rows right-padded to `seq` after a past of `pastLen` positions (lm-eval pads loglikelihood batches
 * on the right): ids (pad 0, masked out), the mask over past and new positions, positions from pastLen.
 */
export function rightPadded(rows, seq, pastLen) {
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

/** A past of [U, H, P, D] as [rows.length, H, P, D]: row b is the source's row rows[b]. */
export function gatherRows(past, rows) {
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

/** Releases the session (the close op). */
export async function closeSession() {
  if (session !== null) await session.release();
  session = null;
}
