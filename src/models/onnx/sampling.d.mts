// Types of sampling.mjs (plain JavaScript, loaded by the inference thread by path), for its tests.
export interface Sampling {
  doSample: boolean;
  temperature: number | null;
  topK: number | null;
  topP: number | null;
}
export function rng(seed: number): () => number;
export function choose(logits: Float32Array, offset: number, vocab: number, sampling: Sampling, draw: () => number): number;
