/**
 * The model seam: lm-eval's three batched primitives (`lm_eval/api/model.py`), with the
 * capabilities a backend declares so a request it cannot serve fails before anything
 * is sent. Backends (onnx, dummy, the API backends in api/) implement `LanguageModel`; the
 * runner (src/run/) is the only caller. No HTTP and no task code belong here.
 */
import type { ApiExchange } from '../store/schema.ts';

/** One (context, continuation) pair, scored as lm-eval's `loglikelihood`. */
export interface LoglikelihoodRequest {
  context: string;
  continuation: string;
}

export interface LoglikelihoodResult {
  /** Sum of the continuation tokens' log-probabilities (natural log). */
  logprob: number;
  /** Whether greedy decoding from the context would produce exactly the continuation's tokens. */
  isGreedy: boolean;
  /** What the backend did to the request, for the store (tokens in, truncation). */
  usage: RequestUsage;
}

/** A whole text scored over windows of the model's length, as `loglikelihood_rolling`. */
export interface RollingRequest {
  text: string;
}

export interface RollingResult {
  logprob: number;
  usage: RequestUsage;
}

/**
 * The seed a sampled request's repeat is drawn with: the run's seed for the first, and for each other a 32-bit
 * mix of (seed, repeat) (murmur3's finaliser over seed + repeat · 0x9e3779b9, a bijection of 32-bit words). It
 * was seed + repeat, under which runs at seeds 7 and 8 shared 63 of 64 self-consistency draws a document: a
 * study of seed variance then measured almost none. Here neighbouring seeds share no draw. The one rule for
 * what a run sends (run/schedule.ts) and what a replay looks its answers up by (replay.ts).
 */
export function repeatSeed(seed: number, repeat: number): number {
  if (repeat === 0) return seed;
  let z = (Math.trunc(seed) + Math.imul(repeat, 0x9e3779b9)) >>> 0;
  z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
  z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
  return (z ^ (z >>> 16)) >>> 0;
}

/** Generation settings after lm-eval's handling of `generation_kwargs` and `--gen_kwargs`. */
export interface GenerationSettings {
  /** Stop strings (`until`); the backend adds its EOS string and says so in `GenerateResult.stopUsed`. */
  until: string[];
  /** lm-eval's default is 256. */
  maxGenToks: number;
  doSample: boolean;
  temperature: number | null;
  topP: number | null;
  topK: number | null;
  /** Seed for sampling; null when greedy. */
  seed: number | null;
  /** Any other key the task or user set, kept for provenance; a backend that ignores one must say so. */
  extra: Record<string, unknown>;
}

/** One chat turn as lm-eval's API chat template serialises it. */
export interface ChatMessage {
  role: string;
  content: string;
}

export interface GenerateRequest {
  /** The prompt text; under the API chat template, the messages' JSON (what lm-eval records as the context). */
  context: string;
  /** The messages themselves, when the prompt is a chat for a messages API (capabilities.messages). */
  messages?: ChatMessage[];
  settings: GenerationSettings;
}

/** `other:<provider's reason>` for what a server reports beyond these (content_filter, refusal…). */
export type FinishReason = 'stop' | 'eos' | 'length' | `other:${string}`;

export interface GenerateResult {
  /** The text as lm-eval returns it: cut at the first stop string. */
  text: string;
  finishReason: FinishReason;
  /** The stop list that was actually applied (configured `until` plus what the backend added). */
  stopUsed: string[];
  usage: RequestUsage;
}

export interface RequestUsage {
  tokensIn: number;
  tokensOut: number;
  /** Context tokens dropped from the left to fit the model's length (0 when none). */
  truncatedTokens: number;
  latencyMs: number;
  /** HTTP attempts the answer took (the most over a rolling request's windows); absent for local backends. */
  attempts?: number;
}

export interface ModelCapabilities {
  logprobs: boolean;
  generation: boolean;
  chat: boolean;
  /** The model's context length in tokens (lm-eval's `max_length`). */
  maxLength: number;
  /**
   * Prompts as chat messages (lm-eval's API chat template, JSON messages): 'required' for a
   * messages-only API, 'accepted' when either works; absent for text-only backends.
   */
  messages?: 'required' | 'accepted';
}

/** What the store's provenance needs to know about the model actually used. */
export interface ModelDescription {
  backend: string;
  modelId: string;
  dtype: string | null;
  /** sha256 of each model file read (weights, config, tokenizer), by relative path. */
  files: Record<string, string>;
  /** The chat template text the tokenizer config carries, when it has one. */
  chatTemplate: string | null;
  /** Whether a BOS token is prepended when encoding (as the tokenizer config says). */
  addsBos: boolean;
  eosToken: string | null;
  /**
   * lm-eval's add_tokenizer_info for a model with a tokenizer: [text, str(id)] of the pad, EOS and BOS tokens
   * (Python's None and 'None' where there is none) and the end-of-text id. Absent: the backend has no tokenizer here.
   */
  tokenizerInfo?: { pad: [string | null, string]; eos: [string | null, string]; bos: [string | null, string]; eotTokenId: number | null };
  /** Library versions (e.g. onnxruntime). */
  runtime: Record<string, string>;
  /**
   * Where the model runs when it is not this process's: the server's origin (API backends). The
   * provenance then records no hardware for the model, which the server does not report.
   */
  servedBy?: string;
  /**
   * What a server changed against what was configured (another model answered, max_tokens 0
   * refused so 1 was sent, a sampling parameter left out because the model rejects it), as seen
   * so far: the runner describes the model again after the requests.
   */
  adjustments?: ModelAdjustment[];
}

export interface ModelAdjustment {
  setting: string;
  configured: unknown;
  used: unknown;
  why: string;
}

export interface LanguageModel {
  readonly capabilities: ModelCapabilities;
  describe(): ModelDescription;
  loglikelihood(requests: readonly LoglikelihoodRequest[]): Promise<LoglikelihoodResult[]>;
  loglikelihoodRolling(requests: readonly RollingRequest[]): Promise<RollingResult[]>;
  generateUntil(requests: readonly GenerateRequest[]): Promise<GenerateResult[]>;
  /** Refuses generation settings it cannot serve (a typed error), before anything is sent or stored. */
  checkGeneration?(settings: GenerationSettings): void;
  /** Work counters a backend keeps (e.g. token positions through the graph), for the provenance and the bench. */
  counters?(): Promise<Record<string, number>>;
  /** Requests the backend wants per call to keep its concurrency busy (API backends: num_concurrent × k). */
  readonly preferredBatchSize?: number;
  /** HTTP exchanges kept since the last call (API backends), for the store's exchanges parts. */
  drainExchanges?(): ApiExchange[];
  /** Frees workers and sessions; the process must be able to exit afterwards. */
  close(): Promise<void>;
  // ---- token-level access, for `lmaudit serve` (src/models/tokenAccess.ts); absent where a backend does not tokenise locally.
  readonly tokenAccess?: import('./tokenAccess.ts').TokenAccess;
}

/**
 * A batch that failed after some of its requests were answered: `completed` holds those answers
 * (undefined for the others), so the runner can store them before it stops.
 */
export class PartialBatchError<T> extends Error {
  constructor(
    message: string,
    readonly completed: ReadonlyArray<T | undefined>,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/**
 * model_args that say how requests travel, not what is asked (an API server's address, concurrency,
 * limits, retries, the sample of exchanges kept): a resumed run may change them.
 */
export const TRANSPORT_MODEL_ARGS: readonly string[] = [
  'base_url', 'num_concurrent', 'max_requests_per_minute', 'timeout', 'max_retries', 'backoff_ms', 'max_backoff_ms', 'max_retry_after', 'record_exchanges', 'api_key_env',
];

/** `--model_args k=v,…` after parsing (values as lm-eval's `handle_arg_string` types them). */
export type ModelArgs = Record<string, string | number | boolean | null>;

export interface BackendFactory {
  /** Opens the model; bad arguments or files throw `BadInputError` naming the flag or file. */
  open(args: ModelArgs, options: { batchSize: number }): Promise<LanguageModel>;
}
