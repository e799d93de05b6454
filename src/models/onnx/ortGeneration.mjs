/**
 * Generation on the inference thread (ortWorker.mjs's genStart, genStep and genEnd ops): one
 * generation at a time, its KV cache (or its whole sequence, for a graph without one) kept here
 * between steps, each next token chosen here (sampling.mjs) so that only token ids cross threads.
 */
import { choose, rng } from './sampling.mjs';
import { feedsFor, gatherRows, graph, LOGITS_BUDGET, run, stats, threadCpuMs } from './ortSession.mjs';

/** The generation in progress (one at a time). */
let gen = null;

/**
 * Rows of context ids, left-padded (as lm-eval generates); positions = cumsum(mask) − 1, padded slots 1 (as HF).
 * Rows with the same ids (a sampled request's repeats) share one prefill when the graph keeps a KV
 * cache: the distinct rows are run, then their past is copied out to every row that asked for it,
 * and each row draws its first token from its own seed. The left padding is the whole batch's, so
 * every row sees the positions and mask it would have seen in an unshared pass.
 */
export async function genStart({ rows, padId, vocab, sampling }) {
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
  // The steps' CPU time is read here and when the generation ends: twice a generation, not twice a step.
  gen = { batch, ids, mask, seq, past, vocab, sampling, draws, counts: rows.map((r) => r.length), steps: 0, cpuAfterPrefill: threadCpuMs() };
  return { next, ms: performance.now() - t0 };
}

/** Feeds one token per row (the chosen one, or the pad for a finished row) and chooses the next. */
export async function genStep({ feed }) {
  const g = gen;
  const t0 = performance.now();
  g.steps++;
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

/** Counts the generation's steps and their CPU time, and forgets it. */
export function genEnd() {
  if (gen !== null && gen.cpuAfterPrefill !== null) {
    stats.generationSteps += gen.steps;
    stats.generationStepCpuMs += threadCpuMs() - gen.cpuAfterPrefill;
  }
  gen = null;
}
