/** The per-item values lm-eval's corpus aggregations read (pairedCorpus.ts), as the item join loads them. */

/** A per-item (log-likelihood, weight) pair: loglikelihood_rolling's value for word_perplexity and bits_per_byte. */
export type WeightedPair = readonly [number, number];

/** A recorded per-item value that is a (log-likelihood, weight) pair, else null. */
export function weightedPair(json: string | null): WeightedPair | null {
  if (json === null || !json.startsWith('[')) return null;
  try {
    const v: unknown = JSON.parse(json);
    return Array.isArray(v) && v.length === 2 && v.every((x) => typeof x === 'number' && Number.isFinite(x)) ? [v[0] as number, v[1] as number] : null;
  } catch {
    return null;
  }
}
