/**
 * A Hugging Face tokenizer (tokenizer.json + tokenizer_config.json) as lm-eval's HFLM uses it:
 * `tok_encode` with the tokenizer's own special-token default (or `add_bos_token` when given),
 * no special tokens when the text already starts with the prefix token's text; the prefix token
 * (BOS, else EOS); the pad token as lm-eval's configure_pad_token picks it; decoding with or
 * without special tokens. @huggingface/tokenizers is the pure-JS port of the `tokenizers`
 * library that transformers.js uses; its ids equal Python's on the GPT-2, Llama-3 and Qwen3
 * tokenizers (checked in generation-backends.md §2.3 and by the lm-eval reference tests).
 */
import { Tokenizer } from '@huggingface/tokenizers';
import type { TokenCodec } from '../lmevalRequests.ts';

type TokenSpec = string | { content?: string } | null | undefined;
const tokenText = (t: TokenSpec): string | null => (typeof t === 'string' ? t : t && typeof t.content === 'string' ? t.content : null);

export interface TokenizerFacts {
  bosToken: string | null;
  eosToken: string | null;
  bosTokenId: number | null;
  eosTokenId: number | null;
  padTokenId: number;
  /** The pad token's text (configure_pad_token's choice). */
  padToken: string | null;
  /** BOS if the tokenizer has one, else EOS (HFLM.prefix_token_id). */
  prefixTokenId: number;
  /** Whether encoding a plain text prepends BOS (the tokenizer's post-processor, or add_bos_token). */
  addsBos: boolean;
  /** The largest id the tokenizer can produce (vocabulary and added tokens). */
  maxId: number;
  chatTemplate: string | null;
  modelMaxLength: number | null;
}

/** transformers' "no limit" sentinel for model_max_length (int(1e30)). */
const TOKENIZER_INFINITY = 1e30;

export class HfTokenizer implements TokenCodec {
  readonly facts: TokenizerFacts;
  private readonly tok: Tokenizer;
  private readonly prefixText: string;

  constructor(
    tokenizerJson: Record<string, unknown>,
    config: Record<string, unknown>,
    /** lm-eval's `add_bos_token` model arg: null keeps the tokenizer's default. */
    private readonly addBosToken: boolean | null,
  ) {
    this.tok = new Tokenizer(tokenizerJson, config);
    const id = (t: string | null) => (t === null ? null : (this.tok.token_to_id(t) ?? null));
    const bosToken = tokenText(config.bos_token as TokenSpec);
    const eosToken = tokenText(config.eos_token as TokenSpec);
    const bosTokenId = id(bosToken);
    const eosTokenId = id(eosToken);
    const prefixTokenId = bosTokenId ?? eosTokenId;
    if (prefixTokenId === null) throw new Error('the tokenizer has neither a BOS nor an EOS token (tokenizer_config.json bos_token / eos_token)');
    // configure_pad_token: the pad token, else unk, else eos.
    const padTokenId = id(tokenText(config.pad_token as TokenSpec)) ?? id(tokenText(config.unk_token as TokenSpec)) ?? eosTokenId ?? prefixTokenId;
    let maxId = 0;
    for (const v of this.tok.get_vocab(true).values()) if (v > maxId) maxId = v;
    const template = config.chat_template;
    const chatTemplate = typeof template === 'string' ? template : Array.isArray(template) ? ((template.find((t) => t?.name === 'default') ?? template[0])?.template ?? null) : null;
    const mml = typeof config.model_max_length === 'number' && config.model_max_length < TOKENIZER_INFINITY ? config.model_max_length : null;
    this.prefixText = this.tok.decode([prefixTokenId], { skip_special_tokens: false });
    const probe = this.encode('a');
    this.facts = {
      bosToken, eosToken, bosTokenId, eosTokenId, padTokenId, prefixTokenId,
      padToken: this.tok.id_to_token(padTokenId) ?? null,
      addsBos: bosTokenId !== null && probe[0] === bosTokenId,
      maxId, chatTemplate, modelMaxLength: mml,
    };
  }

  /** HFLM.tok_encode: special tokens as the tokenizer (or add_bos_token) says, none when the text starts with the prefix token's text. */
  encode(text: string, addSpecialTokens?: boolean): number[] {
    let special = addSpecialTokens ?? this.addBosToken ?? true;
    if (addSpecialTokens === undefined && this.prefixText !== '' && text.startsWith(this.prefixText)) special = false;
    return this.tok.encode(text, { add_special_tokens: special }).ids;
  }

  decode(ids: readonly number[], skipSpecialTokens: boolean): string {
    return this.tok.decode([...ids], { skip_special_tokens: skipSpecialTokens });
  }
}
