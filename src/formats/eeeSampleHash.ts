/**
 * Every Eval Ever's `sample_hash`: the recipes its producers use (interchange-formats.md §2.6). The
 * contributor guide's is canonical; EEE's own lm-eval, Inspect and HELM converters each compute a different
 * one, so an imported hash is checked against all four and the recipe that matched is named.
 */
import { sha256Hex } from '../util/hash.ts';

/** Python's json.dumps with its default ensure_ascii: every code unit above 0x7e escaped as lower-case \uXXXX. */
function asciiJson(text: string): string {
  return text.replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** sha256 of json.dumps({"raw": raw, "reference": reference}, sort_keys=True, separators=(",", ":")). */
export function canonicalSampleHash(raw: string, reference: readonly string[]): string {
  return sha256Hex(asciiJson(JSON.stringify({ raw, reference })));
}

export const SAMPLE_HASH_RECIPES = {
  canonical: 'canonical (sha256 of compact key-sorted JSON of {raw, reference})',
  'lm-eval-converter': "EEE's lm-eval converter (json.dumps of {raw, reference: the target string} with default separators)",
  'inspect-converter': "EEE's Inspect converter (sha256 of input.raw followed by the references)",
  'helm-converter': "EEE's HELM converter (sha256 of input.raw followed by the first reference)",
} as const;
export type SampleHashRecipe = keyof typeof SAMPLE_HASH_RECIPES;

/** Every recipe that gives `hash` for this input, in the table's order (empty: none). For one reference the
 * Inspect and HELM recipes hash the same bytes, so both are named. */
export function sampleHashRecipes(hash: string, raw: string, reference: readonly string[]): SampleHashRecipe[] {
  const found: SampleHashRecipe[] = [];
  if (hash === canonicalSampleHash(raw, reference)) found.push('canonical');
  const spaced = (ref: string) => `{"raw": ${asciiJson(JSON.stringify(raw))}, "reference": ${asciiJson(JSON.stringify(ref))}}`;
  if (reference.length === 1 && hash === sha256Hex(spaced(reference[0]!))) found.push('lm-eval-converter');
  if (hash === sha256Hex(raw + reference.join(''))) found.push('inspect-converter');
  if (reference.length > 0 && hash === sha256Hex(raw + reference[0]!)) found.push('helm-converter');
  return found;
}
