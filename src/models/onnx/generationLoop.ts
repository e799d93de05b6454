/**
 * HF `generate` as lm-eval drives it, over token ids: left-padded rows, greedy or seeded sampling
 * in the worker, stop strings looked for over a look-back window (MultiTokenEOSCriteria), rows
 * that reached EOS fed the pad. Both `generateUntil` (text contexts) and `lmaudit serve`'s
 * generation from token ids (onnxTokenAccess.ts) run this one loop.
 */
import { cutAtStops } from '../lmevalRequests.ts';
import type { HfTokenizer } from './hfTokenizer.ts';
import type { InferenceThread } from './inferenceThread.ts';

export interface LoopModel {
  thread: InferenceThread;
  tok: HfTokenizer;
  vocab: number;
  /** Ids that end a row (generation_config's eos_token_id). */
  eos: Set<number>;
}

export interface LoopSettings {
  /** Stop strings, EOS text included where the caller wants it. */
  stops: string[];
  maxNew: number;
  doSample: boolean;
  temperature: number | null;
  topK: number | null;
  topP: number | null;
}

export interface LoopRow {
  /** Every generated id (pads after EOS included), as the batch produced them. */
  generated: number[];
  /** Index of the first EOS among `generated`, or −1. */
  eosAt: number;
  /** Generated ids up to the step at which the row finished (EOS, or the stop string's completion), inclusive. */
  used: number;
  text: string;
  finishReason: 'stop' | 'eos' | 'length';
  ms: number;
}

export async function generateRows(model: LoopModel, contexts: readonly number[][], settings: LoopSettings, seeds: readonly number[]): Promise<LoopRow[]> {
  const { thread, tok, eos } = model;
  const { stops, maxNew } = settings;
  // MultiTokenEOSCriteria: each stop string is looked for in the last len(encode(stop)) + 2 generated tokens.
  const lookback = stops.map((s) => tok.encode(s, false).length + 2);
  const doneBy = stops.map(() => contexts.map(() => false));
  const generated: number[][] = contexts.map(() => []);
  const ended = contexts.map(() => false);
  const finishedAt = contexts.map(() => -1);
  const pad = tok.facts.padTokenId;
  const sampling = { doSample: settings.doSample, temperature: settings.temperature, topK: settings.topK, topP: settings.topP, seed: null, seeds: [...seeds] };
  let ms = 0;
  let step = await thread.genStart(contexts.map((c) => [...c]), pad, model.vocab, sampling);
  try {
    for (let n = 0; ; n++) {
      ms += step.ms;
      step.next.forEach((t, b) => {
        generated[b]!.push(ended[b] ? pad : t);
        if (!ended[b] && eos.has(t)) ended[b] = true;
      });
      stops.forEach((stop, k) => {
        doneBy[k]!.forEach((done, b) => {
          if (!done) doneBy[k]![b] = tok.decode(generated[b]!.slice(-lookback[k]!), false).includes(stop);
        });
      });
      generated.forEach((g, b) => {
        if (finishedAt[b] < 0 && (ended[b] || doneBy.some((rows) => rows[b]))) finishedAt[b] = g.length;
      });
      const allStopped = doneBy.some((rows) => rows.every(Boolean));
      if (ended.every(Boolean) || allStopped || n + 1 >= maxNew) break;
      step = await thread.genStep(generated.map((g) => g[g.length - 1]!));
    }
  } finally {
    await thread.genEnd();
  }
  return contexts.map((_, b) => {
    const tokens = generated[b]!;
    const eosAt = tokens.findIndex((t) => eos.has(t));
    const full = tok.decode(tokens, true);
    const text = cutAtStops(full, stops);
    const finishReason = eosAt >= 0 && text === full ? 'eos' : text !== full || doneBy.some((rows) => rows[b]) ? 'stop' : 'length';
    return { generated: tokens, eosAt, used: finishedAt[b]! < 0 ? tokens.length : finishedAt[b]!, text, finishReason, ms: ms / contexts.length };
  });
}
