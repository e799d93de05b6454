/**
 * `--model openai-chat`: lm-eval's `local-chat-completions` (openai_completions.py
 * LocalChatCompletion at 0.4.13): generation only, through /v1/chat/completions, with the
 * messages the prompt engine built under the API chat template (system message and multi-turn
 * few-shot as they are). Unlike lm-eval it sends the whole stop list (lm-eval keeps the first
 * four) and never changes temperature or drops `stop` because of a model's name; the stop
 * strings are also cut locally with lm-eval's rule.
 */
import { BadInputError } from '../../errors.ts';
import { cutAtStops } from '../lmevalRequests.ts';
import type { BackendFactory, GenerateRequest, GenerateResult, LanguageModel, LoglikelihoodResult, ModelDescription, RollingResult } from '../lm.ts';
import { apiKey, apiRoot, checkKnownArgs, httpSettings, numberArg, requiredString, stringArg } from './args.ts';
import { HttpClient, MalformedResponse } from './http.ts';
import { BATCH_PER_CONCURRENT, finishReason, firstChoice, needsKey, samplingExtras, usageOf } from './openaiCompletions.ts';
import { Adjustments, checkServer, runConcurrently } from './server.ts';

export class OpenAIChatModel implements LanguageModel {
  readonly capabilities = { logprobs: false, generation: true, chat: true, maxLength: 0, messages: 'required' as const };
  readonly preferredBatchSize: number;
  private readonly adjustments = new Adjustments();
  private readonly models = new Set<string>();

  constructor(
    private readonly client: HttpClient,
    private readonly root: URL,
    private readonly model: string,
    private readonly seed: number,
    /** max_tokens (lm-eval's local-chat-completions) or max_completion_tokens (its openai-chat-completions; OpenAI's reasoning models). */
    private readonly maxTokensField: string,
  ) {
    this.preferredBatchSize = client.settings.numConcurrent * BATCH_PER_CONCURRENT;
  }

  describe(): ModelDescription {
    const served = [...this.models];
    if (served.some((m) => m !== this.model)) this.adjustments.note({ setting: 'model', configured: this.model, used: served, why: 'the responses name another model' });
    return {
      backend: 'openai-chat', modelId: this.model, dtype: null, files: {}, chatTemplate: null, addsBos: false, eosToken: null,
      servedBy: this.root.origin,
      runtime: { server: this.root.origin, protocol: 'OpenAI /v1/chat/completions', ...(served.length > 0 ? { served_model: served.join(', ') } : {}) },
      adjustments: this.adjustments.list(),
    };
  }

  drainExchanges() {
    return this.client.drainExchanges();
  }

  loglikelihood(): Promise<LoglikelihoodResult[]> {
    return Promise.reject(new BadInputError('openai-chat cannot score log-likelihoods (chat completions give no prompt log-probabilities); use openai-completions'));
  }

  loglikelihoodRolling(): Promise<RollingResult[]> {
    return this.loglikelihood() as never;
  }

  async generateUntil(requests: readonly GenerateRequest[]): Promise<GenerateResult[]> {
    return runConcurrently(requests.length, async (i) => {
      const r = requests[i]!;
      if (r.messages === undefined) throw new BadInputError('openai-chat needs chat messages: run with --apply_chat_template');
      const s = r.settings;
      const body = { messages: r.messages, model: this.model, [this.maxTokensField]: s.maxGenToks, temperature: s.temperature ?? 0, stop: s.until, seed: s.seed ?? this.seed, ...samplingExtras(s) };
      const { value, attempts, latencyMs } = await this.client.post('chat/completions', body, (json) => {
        const choice = firstChoice(json);
        const m = (json as { model?: unknown }).model;
        if (typeof m === 'string') this.models.add(m);
        const message = choice.message as { content?: unknown } | undefined;
        if (message === undefined || (message.content !== null && typeof message.content !== 'string')) throw new MalformedResponse('the choice has no message.content');
        return { content: message.content as string | null, finish: finishReason(choice), usage: usageOf(json) };
      }, { index: i, endpoint: 'chat/completions' });
      // A null content (a reasoning model out of tokens) is lm-eval's placeholder, "" by default; finish_reason says why.
      const raw = value.content ?? '';
      return {
        text: cutAtStops(raw, s.until),
        finishReason: value.finish,
        stopUsed: [...s.until],
        usage: { tokensIn: value.usage.prompt ?? 0, tokensOut: value.usage.completion ?? 0, truncatedTokens: 0, latencyMs, attempts },
      };
    });
  }

  async close(): Promise<void> {
    this.client.close();
  }
}

export const openaiChatBackend: BackendFactory = {
  async open(args) {
    checkKnownArgs(args, 'openai-chat', ['max_tokens_field']);
    const model = requiredString(args, 'model', 'openai-chat', 'gpt-4o-mini');
    const root = apiRoot(requiredString(args, 'base_url', 'openai-chat', 'http://127.0.0.1:8000/v1/chat/completions'));
    const seed = numberArg(args, 'seed', 1234, { integer: true, min: 0 });
    const maxTokensField = stringArg(args, 'max_tokens_field') ?? 'max_tokens';
    if (maxTokensField !== 'max_tokens' && maxTokensField !== 'max_completion_tokens') throw new BadInputError(`--model_args max_tokens_field=${maxTokensField}: max_tokens or max_completion_tokens`);
    const { variable, key } = apiKey(args, 'OPENAI_API_KEY');
    if (key === null && needsKey(root, args)) throw new BadInputError(`--model openai-chat: no API key (set ${variable} in the environment)`);
    const client = new HttpClient(root, key === null ? {} : { authorization: `Bearer ${key}` }, httpSettings(args));
    try {
      await checkServer(client, root, model, 'openai-chat');
    } catch (error) {
      client.close();
      throw error;
    }
    return new OpenAIChatModel(client, root, model, seed, maxTokensField);
  },
};
