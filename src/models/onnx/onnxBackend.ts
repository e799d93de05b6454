/**
 * `--model onnx`: a causal LM from a local ONNX export, driven through onnxruntime-node directly.
 *
 * Why onnxruntime-node and not @huggingface/transformers (generation-backends.md §2–3, measured
 * on this machine kind): both run the same ORT build and give the same logits (2–4e-6 from torch
 * in fp32), so accuracy does not choose. transformers.js adds ~660 MB of install (onnxruntime-web,
 * sharp) over the ORT binary it wraps; its `generate` has no stop strings, keeps appending tokens
 * to finished rows and cannot generate from a graph without a KV cache; and prefix sharing needs
 * the KV cache in our hands. So the session is ours, in a worker thread (ortWorker.mjs), and
 * lm-eval's request semantics (lmevalRequests.ts) and HF's `generate` loop are written here.
 */
import { availableParallelism } from 'node:os';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { BadInputError, UnsupportedError } from '../../errors.ts';
import { sha256Hex } from '../../util/hash.ts';
import type {
  BackendFactory, GenerateRequest, GenerateResult, GenerationSettings, LanguageModel, LoglikelihoodRequest, LoglikelihoodResult,
  ModelArgs, ModelCapabilities, ModelDescription, RollingRequest, RollingResult,
} from '../lm.ts';
import { encodePair, loglikelihoodInput, rollingWindows, stopSequences } from '../lmevalRequests.ts';
import { checkAppliedSettings, describeSamplingDefaults, samplingWarpers, unsupportedAtLoad } from './generationConfig.ts';
import { generateRows, type LoopModel } from './generationLoop.ts';
import { OnnxTokenAccess } from './onnxTokenAccess.ts';
import type { TokenAccess } from '../tokenAccess.ts';
import { HfTokenizer } from './hfTokenizer.ts';
import { InferenceThread, type GraphInfo, type ScoreRow, type TokenScore } from './inferenceThread.ts';
import { downloadHubModel, looksLikeHubId } from './hubModel.ts';
import { configMaxLength, locateGraph, readModelFolder, type ModelFolder } from './modelFolder.ts';

const KNOWN_ARGS = ['pretrained', 'revision', 'dtype', 'max_length', 'add_bos_token', 'model_file', 'threads', 'prefix_sharing', 'trust_remote_code', 'device'];

function packageVersion(name: string): string {
  try {
    const require = createRequire(import.meta.url);
    return String((JSON.parse(readFileSync(require.resolve(`${name}/package.json`), 'utf8')) as { version: string }).version);
  } catch {
    return 'unknown';
  }
}

const intOf = (args: ModelArgs, key: string): number | null => {
  const v = args[key];
  if (v === undefined || v === null) return null;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 1) throw new BadInputError(`--model_args ${key} must be a positive integer, got ${JSON.stringify(v)}`);
  return v;
};
const boolOf = (args: ModelArgs, key: string): boolean | null => {
  const v = args[key];
  if (v === undefined || v === null) return null;
  if (typeof v !== 'boolean') throw new BadInputError(`--model_args ${key} must be True or False, got ${JSON.stringify(v)}`);
  return v;
};

/** generation_config eos_token_id (int or list), else config's, else the tokenizer's EOS: HF generate's stop ids. */
function eosIds(folder: ModelFolder, tokenizerEos: number | null): Set<number> {
  for (const source of [folder.generationConfig, folder.config]) {
    const v = source?.eos_token_id;
    if (typeof v === 'number') return new Set([v]);
    if (Array.isArray(v) && v.every((x) => typeof x === 'number')) return new Set(v as number[]);
  }
  return new Set(tokenizerEos === null ? [] : [tokenizerEos]);
}

/** A request's sampling seed: the settings' seed with the context folded in, so that two documents draw differently. */
const requestSeed = (settings: GenerationSettings, context: string): number => ((settings.seed ?? 0) + Number.parseInt(sha256Hex(context).slice(0, 8), 16)) >>> 0;

class OnnxModel implements LanguageModel {
  readonly capabilities: ModelCapabilities;
  private readonly vocab: number;
  private readonly eos: Set<number>;
  private readonly eosText: string | null;
  readonly tokenAccess: TokenAccess;

  constructor(
    private readonly folder: ModelFolder,
    private readonly modelId: string,
    private readonly tok: HfTokenizer,
    private readonly thread: InferenceThread,
    private readonly graph: GraphInfo,
    private readonly maxLength: number,
    private readonly batchSize: number,
    private readonly prefixSharing: boolean,
  ) {
    this.capabilities = { logprobs: true, generation: true, chat: tok.facts.chatTemplate !== null, maxLength };
    this.vocab = graph.vocab ?? Number(folder.config.vocab_size);
    this.eos = eosIds(folder, tok.facts.eosTokenId);
    // lm-eval's eos stop string: tok_decode(eot_token_id, skip_special_tokens=False).
    this.eosText = tok.facts.eosTokenId === null ? null : tok.decode([tok.facts.eosTokenId], false);
    this.tokenAccess = new OnnxTokenAccess(this.loopModel(), maxLength, folder.root);
  }

  describe(): ModelDescription {
    return {
      backend: 'onnx',
      modelId: this.modelId,
      dtype: this.folder.dtype,
      files: this.folder.files,
      chatTemplate: this.tok.facts.chatTemplate,
      addsBos: this.tok.facts.addsBos,
      eosToken: this.tok.facts.eosToken,
      tokenizerInfo: {
        pad: [this.tok.facts.padToken, String(this.tok.facts.padTokenId)],
        eos: [this.tok.facts.eosToken, String(this.tok.facts.eosTokenId ?? 'None')],
        bos: [this.tok.facts.bosToken, String(this.tok.facts.bosTokenId ?? 'None')],
        // HFLM.eot_token_id is the tokenizer's eos_token_id.
        eotTokenId: this.tok.facts.eosTokenId,
      },
      runtime: {
        'onnxruntime-node': packageVersion('onnxruntime-node'),
        '@huggingface/tokenizers': packageVersion('@huggingface/tokenizers'),
        onnx_graph: `${this.folder.onnxPath.slice(this.folder.root.length + 1)}; kv cache ${this.graph.kvCache ? 'yes' : 'no'}; position_ids ${this.graph.positionIds ? 'yes' : 'no'}`,
        prefix_sharing: this.prefixSharing && this.graph.kvCache ? 'on' : 'off',
        sampling_defaults: describeSamplingDefaults(this.folder.generationConfig),
      },
    };
  }

  async loglikelihood(requests: readonly LoglikelihoodRequest[]): Promise<LoglikelihoodResult[]> {
    const prefix = this.tok.facts.prefixTokenId;
    const encoded = requests.map((r, i) => {
      const pair = encodePair(this.tok, r.context, r.continuation, prefix);
      if (pair.continuation.length === 0) throw new BadInputError(`request ${i + 1}: the continuation ${JSON.stringify(r.continuation)} encodes to no tokens (lm-eval asserts a non-empty continuation)`);
      if (pair.continuation.length > this.maxLength) throw new BadInputError(`request ${i + 1}: the continuation is ${pair.continuation.length} tokens, longer than the model's length (${this.maxLength})`);
      return { ...pair, ...loglikelihoodInput(pair.context, pair.continuation, this.maxLength) };
    });
    const scores = new Array<TokenScore>(requests.length);
    const full: number[] = [];
    // Requests that share a context, unless truncation cut into it, are scored from one pass over it.
    const shared = new Map<string, number[]>();
    for (const [i, e] of encoded.entries()) {
      if (this.prefixSharing && this.graph.kvCache && e.truncated === 0) {
        const key = e.context.join(',');
        const group = shared.get(key);
        if (group) group.push(i);
        else shared.set(key, [i]);
      } else full.push(i);
    }
    for (const group of shared.values()) {
      const context = encoded[group[0]!]!.context;
      const results = await this.thread.scoreShared(context, group.map((i) => encoded[i]!.continuation), this.vocab);
      group.forEach((i, k) => (scores[i] = results[k]!));
    }
    if (full.length > 0) {
      const rows: ScoreRow[] = full.map((i) => {
        const e = encoded[i]!;
        return { ids: e.input, from: e.input.length - e.continuation.length, targets: e.continuation };
      });
      const results = await this.thread.score(rows, this.vocab);
      full.forEach((i, k) => (scores[i] = results[k]!));
    }
    return encoded.map((e, i) => ({
      logprob: scores[i]!.logprob,
      isGreedy: scores[i]!.greedy,
      usage: { tokensIn: e.input.length, tokensOut: 0, truncatedTokens: e.truncated, latencyMs: scores[i]!.ms },
    }));
  }

  async loglikelihoodRolling(requests: readonly RollingRequest[]): Promise<RollingResult[]> {
    const out: RollingResult[] = [];
    for (const r of requests) {
      const tokens = this.tok.encode(r.text);
      const windows = rollingWindows(tokens, this.tok.facts.prefixTokenId, this.maxLength);
      const rows = windows.map((w) => {
        const { input } = loglikelihoodInput(w.context, w.continuation, this.maxLength);
        return { ids: input, from: input.length - w.continuation.length, targets: w.continuation };
      });
      const results = rows.length === 0 ? [] : await this.thread.score(rows, this.vocab);
      out.push({
        logprob: results.reduce((s, x) => s + x.logprob, 0),
        usage: { tokensIn: tokens.length, tokensOut: 0, truncatedTokens: 0, latencyMs: results.reduce((s, x) => s + x.ms, 0) },
      });
    }
    return out;
  }

  async generateUntil(requests: readonly GenerateRequest[]): Promise<GenerateResult[]> {
    const results = new Array<GenerateResult>(requests.length);
    // lm-eval groups by generation kwargs, then sorts by (−len(tok(context)), context); results return in request order.
    // The seed is not a generation kwarg (each row draws from its own): a sampled request's repeats, which differ
    // only in it, go into one batch and share their prefill.
    const groups = new Map<string, number[]>();
    requests.forEach((r, i) => {
      const key = JSON.stringify({ ...r.settings, seed: null });
      const g = groups.get(key);
      if (g) g.push(i);
      else groups.set(key, [i]);
    });
    for (const indices of groups.values()) {
      const lengths = new Map(indices.map((i) => [i, this.tok.encode(requests[i]!.context).length]));
      indices.sort((a, b) => lengths.get(b)! - lengths.get(a)! || (requests[a]!.context < requests[b]!.context ? -1 : requests[a]!.context > requests[b]!.context ? 1 : 0));
      for (let s = 0; s < indices.length; s += this.batchSize) {
        const chunk = indices.slice(s, s + this.batchSize);
        const texts = await this.generateBatch(chunk.map((i) => requests[i]!));
        chunk.forEach((i, k) => (results[i] = texts[k]!));
      }
    }
    return results;
  }

  checkGeneration(settings: GenerationSettings): void {
    checkAppliedSettings(settings, this.folder.generationConfig, this.generationConfigFile());
    if (this.maxLength - settings.maxGenToks <= 0) {
      throw new BadInputError(`max_gen_toks ${settings.maxGenToks} leaves no room for a context in the model's length (${this.maxLength} tokens); lm-eval refuses this too (set --gen_kwargs max_gen_toks=N below ${this.maxLength})`);
    }
  }

  /** HF `generate` as lm-eval drives it: left-padded contexts cut to max_length − max_gen_toks, stop criteria over a look-back window, EOS rows padded. */
  private async generateBatch(batch: readonly GenerateRequest[]): Promise<GenerateResult[]> {
    const settings = batch[0]!.settings;
    const stops = stopSequences(settings.until, this.eosText);
    const maxNew = settings.maxGenToks;
    this.checkGeneration(settings);
    const maxCtx = this.maxLength - maxNew;
    const contexts = batch.map((r) => {
      const ids = this.tok.encode(r.context);
      return { ids: ids.slice(Math.max(0, ids.length - maxCtx)), truncated: Math.max(0, ids.length - maxCtx) };
    });
    // HF's warpers: the request's, else generation_config.json's, else HF's defaults (top_k 50).
    const warpers = settings.doSample ? samplingWarpers(settings, this.folder.generationConfig, this.generationConfigFile()) : { temperature: settings.temperature, topK: settings.topK, topP: settings.topP };
    const rows = await generateRows(this.loopModel(), contexts.map((c) => c.ids), { stops, maxNew, doSample: settings.doSample, ...warpers }, batch.map((r) => requestSeed(r.settings, r.context)));
    return rows.map((row, b) => ({
      text: row.text,
      finishReason: row.finishReason,
      stopUsed: stops,
      usage: { tokensIn: contexts[b]!.ids.length, tokensOut: row.eosAt >= 0 ? row.eosAt + 1 : row.generated.length, truncatedTokens: contexts[b]!.truncated, latencyMs: row.ms },
    }));
  }

  private generationConfigFile(): string {
    return join(this.folder.root, 'generation_config.json');
  }

  private loopModel(): LoopModel {
    return { thread: this.thread, tok: this.tok, vocab: this.vocab, eos: this.eos };
  }

  /** Token positions (batch × sequence, padding included) and passes run through the graph so far, and CPU time (ortSession.mjs stats). */
  async counters(): Promise<Record<string, number>> {
    const s = await this.thread.stats();
    // The inference thread's CPU time since the model loaded (forward passes, token choice), and in generation's
    // steps after the prefill (a generated token's cost), where the OS tells it.
    const ms = (x: number) => Math.round(x * 1000) / 1000;
    const cpu: Record<string, number> = s.cpuSinceOpenMs === null ? {} : { inference_thread_cpu_ms: ms(s.cpuSinceOpenMs), generation_steps: s.generationSteps, generation_step_cpu_ms: ms(s.generationStepCpuMs) };
    return { forward_tokens: s.forwardTokens, forward_passes: s.forwardPasses, ...cpu };
  }

  close(): Promise<void> {
    return this.thread.close();
  }
}

export const onnxBackend: BackendFactory = {
  async open(args, options) {
    for (const key of Object.keys(args)) {
      if (!KNOWN_ARGS.includes(key)) throw new BadInputError(`--model_args: the onnx backend takes ${KNOWN_ARGS.join(', ')}; got '${key}'`);
    }
    const pretrained = args.pretrained;
    if (typeof pretrained !== 'string' || pretrained === '') throw new BadInputError('--model_args pretrained=<folder> is required: a local ONNX export (config.json, tokenizer.json, model.onnx or onnx/model.onnx)');
    if (args.device !== undefined && args.device !== null && args.device !== 'cpu') throw new UnsupportedError(`--model_args device=${String(args.device)}: the onnx backend runs on onnxruntime's CPU execution provider only (lmaudit does not use the CUDA provider, installed or not: see the README's "GPU"); a model on a GPU is evaluated through a server (--model openai-completions)`);
    const dtype = typeof args.dtype === 'string' ? args.dtype : null;
    const modelFile = typeof args.model_file === 'string' ? args.model_file : null;
    // A path that exists is a folder, whatever it looks like (as transformers decides); otherwise an id is fetched from the hub.
    const local = existsSync(pretrained) || !looksLikeHubId(pretrained);
    const root = local ? resolve(pretrained) : await downloadHubModel(pretrained, typeof args.revision === 'string' ? args.revision : 'main', dtype, modelFile);
    const threads = intOf(args, 'threads') ?? availableParallelism();
    // The session loads (and optimises) the graph in the worker while this thread hashes the files and
    // builds the tokenizer: for a 120 MB graph that is 0.8 s and 0.45 s side by side instead of one after the other.
    const onnxPath = join(root, locateGraph(root, dtype, modelFile).graph);
    const thread = new InferenceThread(threads);
    const loading = thread.open(onnxPath, threads).then(
      (graph) => ({ graph }),
      (error: unknown) => ({ error: error as Error }),
    );
    let folder: ModelFolder;
    let tok: HfTokenizer;
    try {
      folder = await readModelFolder(root, dtype, modelFile);
      const unsupported = unsupportedAtLoad(folder.generationConfig);
      if (unsupported !== null) {
        throw new UnsupportedError(`${folder.root}/generation_config.json sets ${unsupported.key}=${JSON.stringify(unsupported.value)}, which HF's generate applies and this backend does not; remove it to run without it`);
      }
      try {
        tok = new HfTokenizer(folder.tokenizerJson, folder.tokenizerConfig, boolOf(args, 'add_bos_token'));
      } catch (error) {
        throw new BadInputError(`cannot build the tokenizer: ${(error as Error).message}`, { file: `${folder.root}/tokenizer.json` });
      }
      const vocabSize = folder.config.vocab_size;
      if (typeof vocabSize === 'number' && tok.facts.maxId >= vocabSize) {
        throw new BadInputError(`the tokenizer's ids go up to ${tok.facts.maxId}, past the model's vocabulary (config.json vocab_size ${vocabSize}): this tokenizer does not belong to this model`, { file: `${folder.root}/tokenizer.json` });
      }
    } catch (error) {
      await loading;
      await thread.close();
      throw error;
    }
    const loaded = await loading;
    if ('error' in loaded) {
      await thread.close();
      throw new BadInputError(`onnxruntime cannot load the model: ${loaded.error.message}`, { file: folder.onnxPath });
    }
    const graph = loaded.graph;
    const vocab = graph.vocab ?? folder.config.vocab_size;
    if (typeof vocab !== 'number' || tok.facts.maxId >= vocab) {
      await thread.close();
      throw new BadInputError(`the tokenizer's ids go up to ${tok.facts.maxId}, past the graph's ${String(vocab)} logits: this tokenizer does not belong to this model`, { file: `${folder.root}/tokenizer.json` });
    }
    const maxLength = intOf(args, 'max_length') ?? configMaxLength(folder.config, tok.facts.modelMaxLength);
    return new OnnxModel(folder, pretrained, tok, thread, graph, maxLength, Math.max(1, options.batchSize), boolOf(args, 'prefix_sharing') ?? true);
  },
};
