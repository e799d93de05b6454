/**
 * How lm-eval 0.4.13 reads a request's generation kwargs (lm_eval/models/utils.py normalize_gen_kwargs and
 * handle_stop_sequences): the max-token aliases in priority order, the first one given wins and is sent as
 * max_gen_toks; `until` as one string is the list of it. One place for the readers of generation settings: the run
 * (what it sends), the lm-eval importer (what a run asked for), the diff (two records of one request).
 */
export const LMEVAL_MAX_TOKEN_KEYS: readonly string[] = ['max_gen_toks', 'max_new_tokens', 'max_tokens', 'max_completion_tokens'];

/** The first max-token alias `kwargs` gives (not null), by lm-eval's priority. */
export function lmevalMaxTokenKey(kwargs: Record<string, unknown>): string | undefined {
  return LMEVAL_MAX_TOKEN_KEYS.find((k) => kwargs[k] !== undefined && kwargs[k] !== null);
}

/**
 * `kwargs` spelled as lm-eval's backend receives them, for comparison: `until: "x"` as ["x"], the winning max-token
 * alias as max_gen_toks (the others dropped, as normalize_gen_kwargs pops them). Every other key as it is; what
 * lm-eval fills in (a default max_gen_toks, do_sample from temperature) is not added.
 */
export function lmevalRequestShape(kwargs: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const maxKey = lmevalMaxTokenKey(kwargs);
  for (const [k, v] of Object.entries(kwargs)) {
    if (k === 'until') out.until = typeof v === 'string' ? [v] : v;
    else if (LMEVAL_MAX_TOKEN_KEYS.includes(k)) {
      if (k === maxKey) out.max_gen_toks = v;
    } else out[k] = v;
  }
  return out;
}
