/**
 * `--model dummy`: a deterministic backend without a model (lm-eval has one of the same
 * name), for tests and for trying the run pipeline. Every answer is a function of the
 * request and `seed`, so two runs (or a run and its resumption) give identical responses.
 * `latency_ms` sleeps per batch, to stand in for inference time; `fail_after` makes the
 * n-th batch call throw (to test a run that stops on a backend error).
 */
import { createHash } from 'node:crypto';
import { BadInputError } from '../errors.ts';
import type {
  BackendFactory,
  GenerateRequest,
  GenerateResult,
  LanguageModel,
  LoglikelihoodRequest,
  LoglikelihoodResult,
  ModelArgs,
  ModelDescription,
  RollingRequest,
  RollingResult,
} from './lm.ts';

const EOS = '<|endoftext|>';
/** A ChatML template, so that `--apply_chat_template` works with the dummy model. */
const CHAT_TEMPLATE =
  "{% for message in messages %}{{ '<|im_start|>' + message['role'] + '\\n' + message['content'] + '<|im_end|>' + '\\n' }}{% endfor %}{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}{% endif %}";
const KNOWN_ARGS = ['seed', 'latency_ms', 'max_length', 'fail_after'];

/** sha256 of the parts, each followed by NUL, as one string: one update is cheaper than two per part (lmaudit serve hashes per request). */
function hash32(...parts: string[]): number {
  return createHash('sha256').update(`${parts.join('\u0000')}\u0000`).digest().readUInt32BE(0);
}

/** Whitespace-separated pieces: the dummy model's "tokens". */
const tokens = (text: string): number => text.split(/\s+/).filter(Boolean).length;

function intArg(args: ModelArgs, key: string, fallback: number): number {
  const v = args[key];
  if (v === undefined) return fallback;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 0) throw new BadInputError(`--model_args ${key} must be a non-negative integer, got ${JSON.stringify(v)}`);
  return v;
}

class DummyModel implements LanguageModel {
  readonly capabilities;
  private calls = 0;
  constructor(
    private readonly seed: string,
    private readonly latencyMs: number,
    private readonly maxLength: number,
    private readonly failAfter: number,
  ) {
    this.capabilities = { logprobs: true, generation: true, chat: true, maxLength };
    // (Sampling, when asked, is a seeded hash too: as deterministic as greedy.)
  }

  describe(): ModelDescription {
    return {
      backend: 'dummy',
      modelId: `dummy(seed=${this.seed})`,
      dtype: null,
      files: {},
      chatTemplate: CHAT_TEMPLATE,
      addsBos: false,
      eosToken: EOS,
      runtime: {},
    };
  }

  private async call(n: number): Promise<number> {
    this.calls++;
    if (this.failAfter > 0 && this.calls > this.failAfter) throw new Error(`dummy backend: failing batch ${this.calls} as fail_after=${this.failAfter} asks`);
    if (this.latencyMs > 0) await new Promise((resolve) => setTimeout(resolve, this.latencyMs));
    return n === 0 ? 0 : this.latencyMs / n;
  }

  async loglikelihood(requests: readonly LoglikelihoodRequest[]): Promise<LoglikelihoodResult[]> {
    const latencyMs = await this.call(requests.length);
    return requests.map((r) => {
      const h = hash32(this.seed, 'll', r.context, r.continuation);
      const tokensIn = tokens(r.context) + tokens(r.continuation);
      return {
        logprob: -((h % 100_000) / 7919) - tokens(r.continuation) * 0.25,
        isGreedy: h % 5 === 0,
        usage: { tokensIn, tokensOut: 0, truncatedTokens: Math.max(0, tokensIn - this.maxLength), latencyMs },
      };
    });
  }

  async loglikelihoodRolling(requests: readonly RollingRequest[]): Promise<RollingResult[]> {
    const latencyMs = await this.call(requests.length);
    return requests.map((r) => ({
      logprob: -tokens(r.text) * (1 + (hash32(this.seed, 'roll', r.text) % 1000) / 1000),
      usage: { tokensIn: tokens(r.text), tokensOut: 0, truncatedTokens: 0, latencyMs },
    }));
  }

  async generateUntil(requests: readonly GenerateRequest[]): Promise<GenerateResult[]> {
    const latencyMs = await this.call(requests.length);
    return requests.map((r) => {
      const h = hash32(this.seed, 'gen', r.context, r.settings.doSample ? String(r.settings.seed) : '');
      const n = h % 20;
      const full = ` The answer is ${n}.\n#### ${n}\n\nQuestion: more text follows`;
      const stops = [...r.settings.until, EOS];
      let cut = full.length;
      for (const s of stops) {
        const at = s === '' ? -1 : full.indexOf(s);
        if (at >= 0 && at < cut) cut = at;
      }
      let text = full.slice(0, cut);
      let finishReason: GenerateResult['finishReason'] = cut < full.length ? 'stop' : 'eos';
      const words = text.split(/(?<=\s)(?=\S)/);
      if (words.length > r.settings.maxGenToks) {
        text = words.slice(0, r.settings.maxGenToks).join('');
        finishReason = 'length';
      }
      const tokensIn = tokens(r.context);
      const room = this.maxLength - r.settings.maxGenToks;
      return {
        text,
        finishReason,
        stopUsed: stops,
        usage: { tokensIn: Math.min(tokensIn, Math.max(room, 0)), tokensOut: tokens(text), truncatedTokens: Math.max(0, tokensIn - room), latencyMs },
      };
    });
  }

  async close(): Promise<void> {}
}

export const dummyBackend: BackendFactory = {
  async open(args: ModelArgs): Promise<LanguageModel> {
    for (const key of Object.keys(args)) {
      if (!KNOWN_ARGS.includes(key)) throw new BadInputError(`--model_args: the dummy backend takes ${KNOWN_ARGS.join(', ')}; got '${key}'`);
    }
    return new DummyModel(String(args.seed ?? 0), intArg(args, 'latency_ms', 0), intArg(args, 'max_length', 2048), intArg(args, 'fail_after', 0));
  },
};
