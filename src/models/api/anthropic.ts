/**
 * `--model anthropic`: the Messages API (POST /v1/messages; lm-eval's anthropic-chat at 0.4.13
 * for the payload), generation only. The system turn goes in `system`, the rest as messages; a
 * plain-text prompt is one user turn. Recorded as used ≠ configured: stop strings left out
 * because the API refuses whitespace-only ones (they are still cut locally, so the text is the
 * same), and any sampling parameter the model rejected (a 400 naming it), which is then left out.
 */
import { BadInputError } from '../../errors.ts';
import { cutAtStops } from '../lmevalRequests.ts';
import type { BackendFactory, ChatMessage, FinishReason, GenerateRequest, GenerateResult, LanguageModel, LoglikelihoodResult, ModelArgs, ModelDescription, RollingResult } from '../lm.ts';
import { apiKey, apiRoot, checkKnownArgs, httpSettings, numberArg, requiredString, stringArg } from './args.ts';
import { HttpClient, MalformedResponse } from './http.ts';
import { BATCH_PER_CONCURRENT, usageOf } from './openaiCompletions.ts';
import { Adjustments, checkServer, runConcurrently } from './server.ts';

const OWN_ARGS = ['anthropic_version', 'thinking', 'thinking_budget'];
/** What lm-eval's AnthropicChat sends. */
const DEFAULT_VERSION = '2023-06-01';
const SAMPLING = ['temperature', 'top_p', 'top_k'] as const;

export class AnthropicModel implements LanguageModel {
  readonly capabilities = { logprobs: false, generation: true, chat: true, maxLength: 0, messages: 'accepted' as const };
  readonly preferredBatchSize: number;
  private readonly adjustments = new Adjustments();
  /** Sampling parameters the model refused; no longer sent. */
  private readonly rejected = new Set<string>();
  private readonly models = new Set<string>();

  constructor(
    private readonly client: HttpClient,
    private readonly root: URL,
    private readonly model: string,
    private readonly version: string,
    private readonly thinking: Record<string, unknown> | null,
  ) {
    this.preferredBatchSize = client.settings.numConcurrent * BATCH_PER_CONCURRENT;
  }

  describe(): ModelDescription {
    const served = [...this.models];
    if (served.some((m) => m !== this.model)) this.adjustments.note({ setting: 'model', configured: this.model, used: served, why: 'the responses name another model' });
    return {
      backend: 'anthropic', modelId: this.model, dtype: null, files: {}, chatTemplate: null, addsBos: false, eosToken: null,
      servedBy: this.root.origin,
      runtime: { server: this.root.origin, protocol: 'Anthropic /v1/messages', 'anthropic-version': this.version, thinking: JSON.stringify(this.thinking) },
      adjustments: this.adjustments.list(),
    };
  }

  drainExchanges() {
    return this.client.drainExchanges();
  }

  loglikelihood(): Promise<LoglikelihoodResult[]> {
    return Promise.reject(new BadInputError('anthropic cannot score log-likelihoods (the Messages API gives no log-probabilities)'));
  }

  loglikelihoodRolling(): Promise<RollingResult[]> {
    return this.loglikelihood() as never;
  }

  async generateUntil(requests: readonly GenerateRequest[]): Promise<GenerateResult[]> {
    return runConcurrently(requests.length, async (i) => {
      const r = requests[i]!;
      const s = r.settings;
      const messages: ChatMessage[] = r.messages ?? [{ role: 'user', content: r.context }];
      const system = messages.filter((m) => m.role === 'system').map((m) => m.content).join('\n\n');
      const turns = messages.filter((m) => m.role !== 'system').map((m) => ({ role: m.role, content: m.content }));
      const sentStops = s.until.filter((x) => x.trim() !== '');
      if (sentStops.length < s.until.length) this.adjustments.note({ setting: 'stop_sequences', configured: s.until, used: sentStops, why: 'the Messages API refuses whitespace-only stop sequences; they are applied locally instead' });
      const sampling: Record<string, unknown> = { temperature: s.temperature ?? 0, ...(s.topP !== null ? { top_p: s.topP } : {}), ...(s.topK !== null ? { top_k: s.topK } : {}) };
      const body = (): Record<string, unknown> => {
        const b: Record<string, unknown> = { model: this.model, max_tokens: s.maxGenToks, messages: turns };
        if (system !== '') b.system = system;
        if (sentStops.length > 0) b.stop_sequences = sentStops;
        for (const [k, v] of Object.entries(sampling)) if (!this.rejected.has(k)) b[k] = v;
        if (this.thinking !== null) b.thinking = this.thinking;
        return b;
      };
      const onRefused = (status: number, text: string): unknown | null => {
        if (status !== 400) return null;
        const named = SAMPLING.find((p) => p in sampling && !this.rejected.has(p) && new RegExp(`\\b${p}\\b`).test(text));
        if (named === undefined) return null;
        this.rejected.add(named);
        this.adjustments.note({ setting: named, configured: sampling[named], used: 'not sent (model default)', why: `the model rejected it: HTTP 400 naming ${named}` });
        return body();
      };
      const { value, attempts, latencyMs } = await this.client.post('messages', body(), (json) => parseMessage(json, (m) => this.models.add(m)), { index: i, endpoint: 'messages' }, onRefused);
      return {
        text: cutAtStops(value.text, s.until),
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

/** Only `text` blocks are the answer (thinking blocks come first and carry no text field). */
function parseMessage(json: unknown, model: (m: string) => void): { text: string; finish: FinishReason; usage: ReturnType<typeof usageOf> } {
  const j = json as { content?: unknown; stop_reason?: unknown; model?: unknown };
  if (!Array.isArray(j.content)) throw new MalformedResponse('no content blocks in the message');
  if (typeof j.model === 'string') model(j.model);
  const text = j.content.filter((b) => (b as { type?: unknown })?.type === 'text').map((b) => String((b as { text?: unknown }).text ?? '')).join('');
  const reason = j.stop_reason;
  const finish: FinishReason = reason === 'end_turn' ? 'eos' : reason === 'stop_sequence' ? 'stop' : reason === 'max_tokens' ? 'length' : `other:${String(reason)}`;
  return { text, finish, usage: usageOf(json) };
}

function thinkingConfig(args: ModelArgs): Record<string, unknown> | null {
  const kind = stringArg(args, 'thinking');
  const budget = args.thinking_budget === undefined ? null : numberArg(args, 'thinking_budget', 0, { integer: true, min: 1024 });
  if (budget !== null) return { type: 'enabled', budget_tokens: budget };
  if (kind === null) return null;
  if (!['adaptive', 'disabled', 'enabled'].includes(kind)) throw new BadInputError(`--model_args thinking=${kind}: one of adaptive, disabled, enabled (enabled needs thinking_budget=N)`);
  if (kind === 'enabled') throw new BadInputError('--model_args thinking=enabled needs thinking_budget=N (at least 1024 tokens)');
  return { type: kind };
}

export const anthropicBackend: BackendFactory = {
  async open(args) {
    checkKnownArgs(args, 'anthropic', OWN_ARGS);
    const model = requiredString(args, 'model', 'anthropic', 'claude-sonnet-4-5');
    const root = apiRoot(stringArg(args, 'base_url') ?? 'https://api.anthropic.com/v1/messages');
    const version = stringArg(args, 'anthropic_version') ?? DEFAULT_VERSION;
    const thinking = thinkingConfig(args);
    const { variable, key } = apiKey(args, 'ANTHROPIC_API_KEY');
    if (key === null) throw new BadInputError(`--model anthropic: no API key (set ${variable} in the environment)`);
    const client = new HttpClient(root, { 'x-api-key': key, 'anthropic-version': version }, httpSettings(args));
    try {
      await checkServer(client, root, model, 'anthropic');
    } catch (error) {
      client.close();
      throw error;
    }
    return new AnthropicModel(client, root, model, version, thinking);
  },
};
