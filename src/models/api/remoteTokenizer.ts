/**
 * The tokenizer a completions backend counts tokens with: the local tokenizer.json (`tokenizer=`),
 * or the server's own (`tokenizer_backend=remote`: vLLM's GET /tokenizer_info, POST /tokenize and
 * /detokenize, what lm-eval's RemoteTokenizer calls). lm-eval's request semantics
 * (lmevalRequests.ts) are synchronous over a TokenCodec, so a remote tokenizer is asked first for
 * every text a computation will encode (a dry pass records them), then the computation runs over
 * the answers.
 */
import type { TokenCodec } from '../lmevalRequests.ts';
import { BadInputError } from '../../errors.ts';
import type { HfTokenizer } from '../onnx/hfTokenizer.ts';
import { MalformedResponse, type HttpClient } from './http.ts';

export interface CompletionsTokenizer {
  prefixTokenId: number;
  eosToken: string | null;
  chatTemplate: string | null;
  addsBos: boolean;
  /** Runs `compute` over a codec that can encode every text it asks for. */
  withCodec<T>(compute: (codec: TokenCodec) => T): Promise<T>;
  /** Each id's text, for the echo check (fetched first for a remote tokenizer). */
  decoder(ids: readonly number[]): Promise<(id: number) => string>;
}

export function localTokenizer(tok: HfTokenizer): CompletionsTokenizer {
  return {
    prefixTokenId: tok.facts.prefixTokenId,
    eosToken: tok.facts.eosToken,
    chatTemplate: tok.facts.chatTemplate,
    addsBos: tok.facts.addsBos,
    withCodec: async (compute) => compute(tok),
    decoder: async () => (id) => tok.decode([id], false),
  };
}

const key = (text: string, special: boolean) => `${special ? 1 : 0}${text}`;

export class RemoteTokenizer implements CompletionsTokenizer {
  private readonly encoded = new Map<string, number[]>();
  private readonly texts = new Map<number, string>();
  /** Set once /tokenize has answered for the prefix token's text. */
  prefixTokenId = -1;

  private constructor(
    private readonly client: HttpClient,
    readonly eosToken: string | null,
    readonly chatTemplate: string | null,
    /** lm-eval's add_bos_token (default False): whether /tokenize is asked to add special tokens. */
    private readonly addSpecial: boolean,
  ) {}

  get addsBos(): boolean {
    return this.addSpecial;
  }

  static async open(client: HttpClient, origin: string, addSpecial: boolean): Promise<RemoteTokenizer> {
    let info: Record<string, unknown>;
    try {
      const reply = await client.get('../tokenizer_info');
      if (reply.status !== 200) throw new Error(`answered ${reply.status}`);
      info = JSON.parse(reply.body) as Record<string, unknown>;
    } catch (error) {
      throw new BadInputError(`--model_args tokenizer_backend=remote: ${origin}/tokenizer_info cannot be read (${(error as Error).message}); the server has no tokenizer endpoints (vLLM needs --enable-tokenizer-info-endpoint), give tokenizer=<folder> instead`);
    }
    const text = (v: unknown): string | null => (typeof v === 'string' ? v : typeof (v as { content?: unknown })?.content === 'string' ? (v as { content: string }).content : null);
    const eos = text(info.eos_token);
    const bos = text(info.bos_token);
    const tokenizer = new RemoteTokenizer(client, eos, typeof info.chat_template === 'string' ? info.chat_template : null, addSpecial);
    // lm-eval's prefix token: BOS when the tokenizer has one, else EOS; its id is the first of its encoding.
    const prefix = bos ?? eos;
    if (prefix === null) throw new BadInputError(`--model_args tokenizer_backend=remote: ${origin}/tokenizer_info names neither a BOS nor an EOS token`);
    await tokenizer.fetch([[prefix, false]]);
    tokenizer.prefixTokenId = tokenizer.encoded.get(key(prefix, false))![0]!;
    return tokenizer;
  }

  async withCodec<T>(compute: (codec: TokenCodec) => T): Promise<T> {
    const wanted: Array<[string, boolean]> = [];
    compute({ encode: (t, s) => (wanted.push([t, s ?? this.addSpecial]), this.encoded.get(key(t, s ?? this.addSpecial)) ?? []) });
    await this.fetch(wanted);
    return compute({
      encode: (t, s) => {
        const ids = this.encoded.get(key(t, s ?? this.addSpecial));
        if (ids === undefined) throw new Error('remote tokenizer: a text was asked for that the dry pass did not see');
        return ids;
      },
    });
  }

  async decoder(ids: readonly number[]): Promise<(id: number) => string> {
    const missing = [...new Set(ids)].filter((id) => !this.texts.has(id));
    await Promise.all(missing.map(async (id) => {
      const r = await this.client.post('../detokenize', { tokens: [id] }, (j) => {
        const p = (j as { prompt?: unknown }).prompt;
        if (typeof p !== 'string') throw new MalformedResponse('no prompt in the /detokenize answer');
        return p;
      }, { index: -1, endpoint: 'detokenize' });
      this.texts.set(id, r.value);
    }));
    return (id) => this.texts.get(id)!;
  }

  private async fetch(wanted: ReadonlyArray<[string, boolean]>): Promise<void> {
    const missing = new Map<string, [string, boolean]>();
    for (const [t, s] of wanted) if (!this.encoded.has(key(t, s))) missing.set(key(t, s), [t, s]);
    await Promise.all([...missing].map(async ([k, [prompt, special]]) => {
      const r = await this.client.post('../tokenize', { prompt, add_special_tokens: special }, (j) => {
        const tokens = (j as { tokens?: unknown }).tokens;
        if (!Array.isArray(tokens) || !tokens.every((x) => Number.isInteger(x))) throw new MalformedResponse('no tokens in the /tokenize answer');
        return tokens as number[];
      }, { index: -1, endpoint: 'tokenize' });
      this.encoded.set(k, r.value);
    }));
  }
}
