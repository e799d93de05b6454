/**
 * The model seam: lm-eval's three batched primitives (`lm_eval/api/model.py`), with the
 * capabilities a backend declares so a request it cannot serve fails before anything
 * is sent. Backends (onnx here; the API backends later) implement `LanguageModel`; the
 * runner (src/run/) is the only caller. No HTTP and no task code belong here.
 */

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

export interface GenerateRequest {
  context: string;
  settings: GenerationSettings;
}

export type FinishReason = 'stop' | 'eos' | 'length';

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
}

export interface ModelCapabilities {
  logprobs: boolean;
  generation: boolean;
  chat: boolean;
  /** The model's context length in tokens (lm-eval's `max_length`). */
  maxLength: number;
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
  /** Library versions (e.g. onnxruntime). */
  runtime: Record<string, string>;
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
  /** Frees workers and sessions; the process must be able to exit afterwards. */
  close(): Promise<void>;
  // ---- token-level access, for `lmaudit serve` (src/models/tokenAccess.ts); absent where a backend does not tokenise locally.
  readonly tokenAccess?: import('./tokenAccess.ts').TokenAccess;
}

/** `--model_args k=v,…` after parsing (values as lm-eval's `handle_arg_string` types them). */
export type ModelArgs = Record<string, string | number | boolean | null>;

export interface BackendFactory {
  /** Opens the model; bad arguments or files throw `BadInputError` naming the flag or file. */
  open(args: ModelArgs, options: { batchSize: number }): Promise<LanguageModel>;
}
