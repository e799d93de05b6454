/** The per-item values lm-eval's corpus aggregations read (pairedCorpus.ts), as the item join loads them. */
import { recordedNumberPair } from '../score/lmeval/labelAggregates.ts';

/** A per-item (log-likelihood, weight) pair: loglikelihood_rolling's value for word_perplexity and bits_per_byte. */
export type WeightedPair = readonly [number, number];

/**
 * A recorded per-item value that is a (log-likelihood, weight) pair of finite numbers, else null. Read as as-recorded
 * reads it (labelAggregates.ts recordedNumberPair): lm-eval from 0.4.3 may write the leaves as strings.
 */
export function weightedPair(json: string | null): WeightedPair | null {
  const pair = json === null ? null : recordedNumberPair(json);
  return pair !== null && Number.isFinite(pair[0]) && Number.isFinite(pair[1]) ? pair : null;
}
