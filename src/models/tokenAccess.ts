/**
 * Token-level access to a backend that tokenises locally: what `lmaudit serve` needs to answer
 * OpenAI's `/v1/completions` with echoed prompt log-probs, `/tokenize` and generation from token
 * ids. A backend offers it through `LanguageModel.tokenAccess`; it drives the backend's own
 * worker and sessions (no second copy of the model).
 */
import type { ChatTemplate } from '../prompt/chatTemplate.ts';

/** A token id and its log-probability at one position. */
export interface TokenLogprob {
  id: number;
  logprob: number;
}

export interface PromptScores {
  /** `logprobs[j]`: token j+1's log-probability after tokens 0…j (natural log, float64 from float32 logits). */
  logprobs: number[];
  /** `top[j]`: the best tokens after tokens 0…j, best first; `top[n−1]` is the next token's distribution. */
  top: TokenLogprob[][];
}

export interface TokenGenerationSettings {
  /** Tokens to generate at most (≥ 1). */
  maxNewTokens: number;
  /** Stop strings; the text is cut before the first one found, as lm-eval cuts it. */
  stop: string[];
  doSample: boolean;
  temperature: number | null;
  topP: number | null;
  topK: number | null;
  seed: number | null;
}

export interface TokenGeneration {
  /** The generated ids, up to and including the one that ended the row (EOS or the token completing a stop string). */
  ids: number[];
  /** The generated text, cut before the first stop string (EOS and special tokens not shown). */
  text: string;
  finishReason: 'stop' | 'eos' | 'length';
}

export interface TokenAccess {
  /** Context length in tokens: a prompt plus its new tokens must fit. */
  readonly maxLength: number;
  /** Largest token id the tokenizer produces. */
  readonly maxTokenId: number;
  readonly eosTokenId: number | null;
  /** The special tokens' texts as tokenizer_config.json names them (null where it has none). */
  readonly specialTokens: { bos: string | null; eos: string | null; pad: string | null };
  encode(text: string, addSpecialTokens: boolean): number[];
  decode(ids: readonly number[], skipSpecialTokens: boolean): string;
  /** The model's own chat template with its tokenizer's special tokens, or null when it has none. */
  chatTemplate(): ChatTemplate | null;
  /** Per-position scores of each row, with the `topK` best tokens (at least 1) at every position. */
  scorePrompts(rows: readonly number[][], topK: number): Promise<PromptScores[]>;
  /** Continues each row from its ids; rows are generated together, left-padded, as one batch. */
  generateTokens(rows: readonly number[][], settings: TokenGenerationSettings): Promise<TokenGeneration[]>;
}
