/**
 * `--model openai-completions`: lm-eval's `local-completions` (lm_eval/models/openai_completions.py,
 * api_models.py TemplateAPI at 0.4.13) against any server with /v1/completions. Log-likelihoods
 * send the prompt as token ids with `echo`, `logprobs: 1`, and `max_tokens: 0` (1 when the server
 * refuses 0, as lm-eval always sends; recorded), sliced at the context length as lm-eval does,
 * after checking the echo is the tokens sent. Generation sends the stop list and cuts locally too.
 */
import { BadInputError } from '../../errors.ts';
import { cutAtStops, encodePair, rollingWindows, stopSequences } from '../lmevalRequests.ts';
import type {
  BackendFactory, FinishReason, GenerateRequest, GenerateResult, GenerationSettings, LanguageModel, LoglikelihoodRequest, LoglikelihoodResult,
  ModelArgs, ModelDescription, RollingRequest, RollingResult,
} from '../lm.ts';
import { apiKey, apiRoot, checkKnownArgs, httpSettings, numberArg, requiredString, stringArg } from './args.ts';
import { HttpClient, MalformedResponse } from './http.ts';
import { Adjustments, checkServer, runConcurrently } from './server.ts';
import { checkEcho, loadTokenizer } from './tokens.ts';
import { localTokenizer, RemoteTokenizer, type CompletionsTokenizer } from './remoteTokenizer.ts';

const OWN_ARGS = ['tokenizer', 'tokenizer_backend', 'max_length', 'add_bos_token'];
/**
 * Requests handed over per call for each one in flight (every API backend's batch). A batch's end costs
 * more than its last wave draining: the next batch's num_concurrent requests then start together and
 * their replies come back in step, in bursts, for many waves. bench/apiThroughput.mjs, on a loaded
 * 2-core machine, measured about 0.1 s lost per batch boundary against `lmaudit serve --delay_ms 50`;
 * going from 32 waves a batch to 64 raised the rate by 0.03–0.05 of the ideal. A kill loses at most
 * the batch in flight (64 waves).
 */
export const BATCH_PER_CONCURRENT = 64;

interface Scored {
  logprob: number;
  isGreedy: boolean;
  tokensIn: number;
  attempts: number;
  latencyMs: number;
}

export class OpenAICompletionsModel implements LanguageModel {
  readonly capabilities;
  readonly preferredBatchSize: number;
  private llMaxTokens = 0;
  readonly adjustments = new Adjustments();
  private readonly models = new Set<string>();

  constructor(
    private readonly client: HttpClient,
    private readonly root: URL,
    private readonly model: string,
    private readonly tok: CompletionsTokenizer,
    private readonly tokenizerFiles: Record<string, string>,
    private readonly maxLength: number,
    private readonly seed: number,
  ) {
    this.capabilities = { logprobs: true, generation: true, chat: false, maxLength };
    this.preferredBatchSize = client.settings.numConcurrent * BATCH_PER_CONCURRENT;
  }

  describe(): ModelDescription {
    const served = [...this.models];
    if (served.some((m) => m !== this.model)) this.adjustments.note({ setting: 'model', configured: this.model, used: served, why: 'the responses name another model' });
    return {
      backend: 'openai-completions',
      modelId: this.model,
      dtype: null,
      files: this.tokenizerFiles,
      chatTemplate: this.tok.chatTemplate,
      addsBos: this.tok.addsBos,
      eosToken: this.tok.eosToken,
      servedBy: this.root.origin,
      runtime: { server: this.root.origin, protocol: 'OpenAI /v1/completions', ...(served.length > 0 ? { served_model: served.join(', ') } : {}) },
      adjustments: this.adjustments.list(),
    };
  }

  drainExchanges() {
    return this.client.drainExchanges();
  }

  async loglikelihood(requests: readonly LoglikelihoodRequest[]): Promise<LoglikelihoodResult[]> {
    const prefix = this.tok.prefixTokenId;
    const encoded = await this.tok.withCodec((codec) => requests.map((r) => encodePair(codec, r.context, r.continuation, prefix)));
    encoded.forEach((pair, i) => {
      if (pair.continuation.length === 0) throw new BadInputError(`request ${i + 1}: the continuation ${JSON.stringify(requests[i]!.continuation)} encodes to no tokens (lm-eval asserts a non-empty continuation)`);
    });
    const decode = await this.tok.decoder(encoded.flatMap((e) => [...e.context, ...e.continuation]));
    // Each answer is complete when its request returns, so a batch that fails part-way keeps the rest.
    return runConcurrently(encoded.length, async (i): Promise<LoglikelihoodResult> => {
      const e = encoded[i]!;
      const s = await this.score(e.context, e.continuation, i, 0, decode);
      return {
        logprob: s.logprob,
        isGreedy: s.isGreedy,
        usage: { tokensIn: s.tokensIn, tokensOut: 0, truncatedTokens: e.context.length + e.continuation.length - s.tokensIn, latencyMs: s.latencyMs, attempts: s.attempts },
      };
    });
  }

  async loglikelihoodRolling(requests: readonly RollingRequest[]): Promise<RollingResult[]> {
    const encoded = await this.tok.withCodec((codec) => requests.map((r) => codec.encode(r.text)));
    const decode = await this.tok.decoder([this.tok.prefixTokenId, ...encoded.flat()]);
    return runConcurrently(requests.length, async (i): Promise<RollingResult> => {
      const tokens = encoded[i]!;
      // TemplateAPI.loglikelihood_rolling: windows of max_length − 1 predicted tokens, so that each with its one context token fits the slice.
      const windows = rollingWindows(tokens, this.tok.prefixTokenId, this.maxLength - 1);
      const scored = await Promise.all(windows.map((w, k) => this.score(w.context, w.continuation, i, k, decode)));
      return {
        logprob: scored.reduce((s, x) => s + x.logprob, 0),
        usage: { tokensIn: tokens.length, tokensOut: 0, truncatedTokens: 0, latencyMs: scored.reduce((s, x) => s + x.latencyMs, 0), attempts: Math.max(1, ...scored.map((x) => x.attempts)) },
      };
    });
  }

  async generateUntil(requests: readonly GenerateRequest[]): Promise<GenerateResult[]> {
    const eos = this.tok.eosToken;
    const contexts = await this.tok.withCodec((codec) => requests.map((r) => codec.encode(r.context)));
    return runConcurrently(requests.length, async (i) => {
      const r = requests[i]!;
      const s = r.settings;
      this.checkGeneration(s);
      const stops = stopSequences(s.until, eos);
      const ids = contexts[i]!;
      // TemplateAPI: contexts sent as tokens are left-truncated to max_length − max_gen_toks.
      const budget = this.maxLength - s.maxGenToks;
      const prompt = ids.slice(Math.max(0, ids.length - budget));
      const body = { prompt: [prompt], model: this.model, max_tokens: s.maxGenToks, temperature: s.temperature ?? 0, stop: stops, seed: s.seed ?? this.seed, ...samplingExtras(s) };
      const { value, attempts, latencyMs } = await this.client.post('completions', body, (json) => this.parseGeneration(json), { index: i, endpoint: 'completions' });
      return {
        text: cutAtStops(value.text, stops),
        finishReason: value.finishReason,
        stopUsed: stops,
        usage: { tokensIn: value.promptTokens ?? prompt.length, tokensOut: value.completionTokens ?? 0, truncatedTokens: ids.length - prompt.length, latencyMs, attempts },
      };
    });
  }

  checkGeneration(settings: GenerationSettings): void {
    if (this.maxLength - settings.maxGenToks <= 0) {
      throw new BadInputError(`max_gen_toks ${settings.maxGenToks} leaves no room for a context in max_length ${this.maxLength} (set --gen_kwargs max_gen_toks=N below it, or --model_args max_length=…)`);
    }
  }

  async close(): Promise<void> {
    this.client.close();
  }

  /** One (context, continuation) through /v1/completions, as TemplateAPI._loglikelihood_tokens and parse_logprobs. */
  private async score(context: readonly number[], continuation: readonly number[], index: number, window: number, decode: (id: number) => string): Promise<Scored> {
    const all = [...context, ...continuation];
    const prompt = all.slice(Math.max(0, all.length - this.maxLength));
    const ctxlen = context.length - Math.max(0, all.length - this.maxLength);
    if (ctxlen <= 0) throw new BadInputError(`request ${index + 1}: the continuation fills the whole max_length (${this.maxLength}); lm-eval asserts a context remains`);
    const body = (maxTokens: number) => ({ model: this.model, prompt: [prompt], temperature: 0, max_tokens: maxTokens, logprobs: 1, seed: this.seed, echo: true });
    const parse = (json: unknown): Omit<Scored, 'attempts' | 'latencyMs'> => {
      const choice = firstChoice(json);
      this.noteModel(json);
      const lp = choice.logprobs as { token_logprobs?: unknown; top_logprobs?: unknown } | undefined;
      const values = lp?.token_logprobs;
      const tops = lp?.top_logprobs;
      if (!Array.isArray(values) || !Array.isArray(tops)) throw new MalformedResponse('no logprobs.token_logprobs/top_logprobs in the choice (does the server support echo with logprobs?)');
      const generated = values.length - prompt.length;
      if (generated < 0 || generated > 1) throw new MalformedResponse(`the server returned ${values.length} token log-probabilities for a prompt of ${prompt.length} tokens (echo ignored or altered)`);
      checkEcho(prompt, choice as never, decode);
      let logprob = 0;
      let isGreedy = true;
      // parse_logprobs: token_logprobs[ctxlen:-1] when the reply carries the one generated token; the prompt's last otherwise.
      for (let pos = ctxlen; pos < prompt.length; pos++) {
        const v = values[pos];
        const top = tops[pos] as Record<string, unknown> | null;
        if (typeof v !== 'number' || top === null || typeof top !== 'object') throw new MalformedResponse(`no log-probability at echoed position ${pos}`);
        logprob += v;
        const best = Math.max(...Object.values(top).map(Number));
        if (v !== best) isGreedy = false;
      }
      return { logprob, isGreedy, tokensIn: prompt.length };
    };
    // A server that refuses max_tokens 0 gets lm-eval's max_tokens 1 (its one generated token is dropped by the slice).
    const sentMax = this.llMaxTokens;
    const refused = (status: number): unknown | null => {
      if (sentMax !== 0 || (status !== 400 && status !== 422)) return null;
      this.llMaxTokens = 1;
      this.adjustments.note({ setting: 'max_tokens (log-likelihood requests)', configured: 0, used: 1, why: `the server answered ${status} to max_tokens 0` });
      return body(1);
    };
    const r = await this.client.post('completions', body(sentMax), parse, { index, window, endpoint: 'completions' }, refused);
    return { ...r.value, attempts: r.attempts, latencyMs: r.latencyMs };
  }

  private parseGeneration(json: unknown): { text: string; finishReason: FinishReason; promptTokens: number | null; completionTokens: number | null } {
    const choice = firstChoice(json);
    this.noteModel(json);
    if (typeof choice.text !== 'string') throw new MalformedResponse('the choice has no text');
    const usage = usageOf(json);
    return { text: choice.text, finishReason: finishReason(choice), promptTokens: usage.prompt, completionTokens: usage.completion };
  }

  private noteModel(json: unknown): void {
    const m = (json as { model?: unknown }).model;
    if (typeof m === 'string') this.models.add(m);
  }
}

export function firstChoice(json: unknown): Record<string, unknown> {
  const choices = (json as { choices?: unknown } | null)?.choices;
  if (!Array.isArray(choices) || choices.length === 0) throw new MalformedResponse('no choices in the response');
  // parse_logprobs/parse_generations place choices by `index`; one prompt was sent, so index 0 is the answer.
  const choice = choices.find((c) => (c as { index?: unknown })?.index === 0) ?? (choices.length === 1 ? choices[0] : undefined);
  if (choice === null || typeof choice !== 'object') throw new MalformedResponse('no choice with index 0');
  return choice as Record<string, unknown>;
}

export function usageOf(json: unknown): { prompt: number | null; completion: number | null } {
  const u = (json as { usage?: { prompt_tokens?: unknown; completion_tokens?: unknown; input_tokens?: unknown; output_tokens?: unknown } }).usage;
  const n = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : null);
  return { prompt: n(u?.prompt_tokens ?? u?.input_tokens), completion: n(u?.completion_tokens ?? u?.output_tokens) };
}

/** OpenAI's finish_reason; vLLM's stop_reason null under 'stop' means the EOS token ended it. */
export function finishReason(choice: Record<string, unknown>): FinishReason {
  const f = choice.finish_reason;
  if (f === 'length') return 'length';
  if (f === 'stop') return 'stop_reason' in choice && (choice.stop_reason === null || typeof choice.stop_reason === 'number') ? 'eos' : 'stop';
  return `other:${String(f)}`;
}

/** Sampling keys lm-eval passes through from gen_kwargs (`**gen_kwargs` after its pops). */
export function samplingExtras(s: GenerationSettings): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (s.topP !== null) out.top_p = s.topP;
  if (s.topK !== null) out.top_k = s.topK;
  for (const [k, v] of Object.entries(s.extra)) out[k] = v;
  return out;
}

function boolArg(args: ModelArgs, key: string): boolean | null {
  const v = args[key];
  if (v === undefined || v === null) return null;
  if (typeof v !== 'boolean') throw new BadInputError(`--model_args ${key} must be True or False, got ${JSON.stringify(v)}`);
  return v;
}

/** Hosted endpoints need a key; a local server usually takes none (lm-eval's local-completions sends an empty one). */
export function needsKey(root: URL, args: ModelArgs): boolean {
  return args.api_key_env !== undefined || root.hostname === 'api.openai.com';
}

export const openaiCompletionsBackend: BackendFactory = {
  async open(args) {
    checkKnownArgs(args, 'openai-completions', OWN_ARGS);
    const model = requiredString(args, 'model', 'openai-completions', 'gpt2');
    const root = apiRoot(requiredString(args, 'base_url', 'openai-completions', 'http://127.0.0.1:8000/v1/completions'));
    const backendArg = stringArg(args, 'tokenizer_backend') ?? 'huggingface';
    if (backendArg !== 'huggingface' && backendArg !== 'remote') throw new BadInputError(`--model_args tokenizer_backend=${backendArg}: huggingface (a local tokenizer=<folder>) or remote (the server's /tokenize)`);
    // lm-eval's TemplateAPI encodes without special tokens unless add_bos_token=True.
    const addBos = boolArg(args, 'add_bos_token') ?? false;
    const local = backendArg === 'huggingface' ? loadTokenizer(requiredString(args, 'tokenizer', 'openai-completions', 'fixtures/models/gpt2-tiny (a folder with tokenizer.json: the token ids sent and the echo check need it), or tokenizer_backend=remote'), addBos) : null;

    const seed = numberArg(args, 'seed', 1234, { integer: true, min: 0 });
    const { variable, key } = apiKey(args, 'OPENAI_API_KEY');
    if (key === null && needsKey(root, args)) throw new BadInputError(`--model openai-completions: no API key (set ${variable} in the environment)`);
    const client = new HttpClient(root, key === null ? {} : { authorization: `Bearer ${key}` }, httpSettings(args));
    let entry: Record<string, unknown>;
    try {
      entry = await checkServer(client, root, model, 'openai-completions');
    } catch (error) {
      client.close();
      throw error;
    }
    // The model's length: max_length when given; else what the server lists (vLLM's max_model_len), recorded as
    // such; else lm-eval's default of 2048.
    const served = typeof entry.max_model_len === 'number' && Number.isInteger(entry.max_model_len) && entry.max_model_len > 1 ? entry.max_model_len : null;
    const maxLength = numberArg(args, 'max_length', served ?? 2048, { integer: true, min: 2 });
    let tok: CompletionsTokenizer;
    try {
      tok = local !== null ? localTokenizer(local.tok) : await RemoteTokenizer.open(client, root.origin, addBos);
    } catch (error) {
      client.close();
      throw error;
    }
    const lm = new OpenAICompletionsModel(client, root, model, tok, local?.files ?? {}, maxLength, seed);
    if (args.max_length === undefined && served !== null) lm.adjustments.note({ setting: 'max_length', configured: null, used: served, why: "not given; the server's /v1/models max_model_len (lm-eval would use 2048)" });
    return lm;
  },
};
