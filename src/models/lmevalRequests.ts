/**
 * lm-eval's request semantics over token ids, for any backend that tokenises locally
 * (lm_eval/api/model.py TemplateLM, lm_eval/models/huggingface.py, lm_eval/utils.py at 0.4.13):
 * the (context, continuation) split with its whitespace move, the empty-context prefix token,
 * left truncation, rolling windows, the generation context budget and the stop-string cut.
 * Each function names the Python it follows; the API backends of the next stage reuse them.
 */
import { PY_WHITESPACE } from '../py/str.ts';

export interface TokenCodec {
  /** `tok_encode(text)`: the tokenizer's defaults (special tokens as its config says), unless told. */
  encode(text: string, addSpecialTokens?: boolean): number[];
}

const TRAILING_WS = new RegExp(`[${PY_WHITESPACE.replace(/[\\\]^-]/g, '\\$&')}]+$`);

/**
 * TemplateLM.loglikelihood + _encode_pair: trailing whitespace of the context moves to the front
 * of the continuation; the whole is encoded and split at the context's length. An empty context
 * becomes the prefix token, unless the continuation already starts with it.
 */
export function encodePair(codec: TokenCodec, context: string, continuation: string, prefixTokenId: number): { context: number[]; continuation: number[] } {
  if (context === '') {
    const cont = codec.encode(continuation, false);
    return cont[0] !== prefixTokenId ? { context: [prefixTokenId], continuation: cont } : { context: cont.slice(0, 1), continuation: cont.slice(1) };
  }
  const spaces = TRAILING_WS.exec(context)?.[0].length ?? 0;
  if (spaces > 0) {
    continuation = context.slice(-spaces) + continuation;
    context = context.slice(0, -spaces);
  }
  const whole = codec.encode(context + continuation);
  const ctx = codec.encode(context);
  return { context: ctx, continuation: whole.slice(ctx.length) };
}

/**
 * `_loglikelihood_tokens`' model input: `(context + continuation)[-(max_length+1):][:-1]`, and how
 * many tokens the left truncation dropped.
 */
export function loglikelihoodInput(context: readonly number[], continuation: readonly number[], maxLength: number): { input: number[]; truncated: number } {
  const all = [...context, ...continuation];
  const kept = all.slice(Math.max(0, all.length - (maxLength + 1)));
  return { input: kept.slice(0, -1), truncated: all.length - kept.length };
}

/** get_rolling_token_windows(tokens, prefix, max_seq_len, context_len=1) then make_disjoint_window. */
export function rollingWindows(tokens: readonly number[], prefixToken: number, maxSeqLen: number): Array<{ context: number[]; continuation: number[] }> {
  const windows: Array<[number[], number[]]> = [];
  if (tokens.length === 0) return [];
  const predLen = maxSeqLen; // max_seq_len − context_len + 1 with context_len 1
  let predicted = 0;
  const first = Math.min(maxSeqLen, tokens.length);
  windows.push([[prefixToken, ...tokens.slice(0, first - 1)], tokens.slice(0, first)]);
  predicted += first;
  while (predicted < tokens.length) {
    const len = Math.min(tokens.length - predicted, predLen);
    const end = predicted + len;
    // end − max_seq_len − 1 ≥ 0 here (a second window exists only past max_seq_len tokens), so
    // Python's slice and JavaScript's agree.
    windows.push([tokens.slice(end - maxSeqLen - 1, end - 1), tokens.slice(end - len, end)]);
    predicted += len;
  }
  return windows.map(([a, b]) => ({ context: a.slice(0, a.length - (b.length - 1)), continuation: b }));
}

/** handle_stop_sequences: `until` as a list, with the EOS string appended when it is not in it. */
export function stopSequences(until: readonly string[], eos: string | null): string[] {
  const out = [...until];
  if (eos !== null && !out.includes(eos)) out.push(eos);
  return out;
}

/** postprocess_generated_text: split at each non-empty stop string in turn, keeping what precedes it. */
export function cutAtStops(text: string, stops: readonly string[]): string {
  let s = text;
  for (const term of stops) {
    if (term.length === 0) continue;
    const at = s.indexOf(term);
    if (at >= 0) s = s.slice(0, at);
  }
  return s;
}
