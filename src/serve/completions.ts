/**
 * `POST /v1/completions` as vLLM answers it (generation-backends.md §4.1–4.2): prompts as a
 * string, strings, token ids or lists of token ids; `echo` returns the prompt (with `max_tokens` 0
 * the prompt only) and, with `logprobs`, its per-token log-probs — first entry null, `top_logprobs`
 * keyed by decoded token text with the token itself included, −inf clamped to −9999, `text_offset`
 * in characters (code points, as Python's len). The values are the backend's own float64 log-softmax
 * of its float32 logits, serialised as JSON numbers (which round-trip doubles exactly), so a client
 * summing `token_logprobs` gets the doubles the onnx backend's loglikelihood sums.
 */
import { randomUUID } from 'node:crypto';
import { cutAtStops, stopSequences } from '../models/lmevalRequests.ts';
import type { LanguageModel } from '../models/lm.ts';
import type { PromptScores, TokenAccess, TokenGeneration, TokenLogprob } from '../models/tokenAccess.ts';
import type { BackendQueue } from './backendQueue.ts';
import { badRequest, boolField, intField, numberField, optionalInt, refuseUnsupported, stopField } from './http.ts';

/** vLLM's default cap on `logprobs` (ModelConfig.max_logprobs). */
export const MAX_LOGPROBS = 20;
const FLOOR = -9999;

export interface Sampling {
  temperature: number;
  topP: number | null;
  topK: number | null;
  seed: number | null;
}

/** temperature (default 1, as OpenAI and vLLM without a generation_config), top_p, vLLM's top_k (−1/0: off), seed. */
export function samplingFields(body: Record<string, unknown>): Sampling {
  const topP = numberField(body, 'top_p', 1, 0, 1);
  const topK = intField(body, 'top_k', -1, -1);
  return { temperature: numberField(body, 'temperature', 1, 0, 2), topP: topP < 1 ? topP : null, topK: topK > 0 ? topK : null, seed: optionalInt(body, 'seed', 0, 2 ** 32 - 1) };
}

const greedy = (s: Sampling): boolean => s.temperature === 0 || s.topK === 1;

/** `prompt` as token-id rows or texts. */
function promptsOf(body: Record<string, unknown>): Array<string | number[]> {
  const p = body.prompt;
  const isIds = (v: unknown): v is number[] => Array.isArray(v) && v.length > 0 && v.every((x) => typeof x === 'number');
  if (typeof p === 'string') return [p];
  if (isIds(p)) return [p];
  if (Array.isArray(p) && p.length > 0 && p.every((x) => typeof x === 'string' || isIds(x))) return p as Array<string | number[]>;
  throw badRequest('prompt must be a string, a list of strings, a list of token ids or a list of lists of token ids (none empty)', 'prompt');
}

export function contextError(maxLength: number, promptTokens: number, completionTokens: number): Error {
  return badRequest(
    `This model's maximum context length is ${maxLength} tokens. However, you requested ${promptTokens + completionTokens} tokens (${promptTokens} in the messages, ${completionTokens} in the completion). Please reduce the length of the messages or completion.`,
    'prompt',
  );
}

export function checkIds(ids: readonly number[], tokens: TokenAccess): void {
  for (const id of ids) {
    if (!Number.isInteger(id) || id < 0 || id > tokens.maxTokenId) throw badRequest(`token id ${id} is outside the vocabulary (0–${tokens.maxTokenId})`, 'prompt');
  }
}

const pyLen = (s: string): number => [...s].length;

export interface CompletionOptions {
  modelName: string;
  /** wrong_echo fault: echo the prompt with the prefix token prepended (a server adding BOS), scored as such. */
  wrongEcho: boolean;
}

interface Choice {
  index: number;
  text: string;
  /** vLLM's `return_token_ids` extra: the prompt's and the completion's ids. */
  prompt_token_ids?: number[];
  token_ids?: number[];
  logprobs: null | { tokens: string[]; token_logprobs: Array<number | null>; top_logprobs: Array<Record<string, number> | null>; text_offset: number[] };
  finish_reason: 'stop' | 'length';
  stop_reason: null;
}

export async function completion(body: Record<string, unknown>, model: LanguageModel, queue: BackendQueue, options: CompletionOptions): Promise<unknown> {
  refuseUnsupported(body);
  const prompts = promptsOf(body);
  const echo = boolField(body, 'echo', false);
  const maxTokens = intField(body, 'max_tokens', 16, 0);
  if (maxTokens === 0 && !echo) throw badRequest('max_tokens 0 returns nothing without echo; send echo true (the prompt and its log-probs) or max_tokens ≥ 1', 'max_tokens');
  const logprobs = optionalInt(body, 'logprobs', 0, MAX_LOGPROBS);
  const sampling = samplingFields(body);
  const stop = stopField(body);
  const tokens = model.tokenAccess;
  if (tokens === undefined) return textCompletion(prompts, { echo, maxTokens, logprobs, sampling, stop }, model, queue, options.modelName);
  const addSpecial = boolField(body, 'add_special_tokens', true);
  const eosText = tokens.eosTokenId === null ? null : tokens.decode([tokens.eosTokenId], false);
  const rows = prompts.map((p) => {
    const ids = typeof p === 'string' ? tokens.encode(p, addSpecial) : p;
    if (ids.length === 0) throw badRequest('the prompt encodes to no tokens', 'prompt');
    checkIds(ids, tokens);
    return options.wrongEcho ? wrongEchoIds(ids, tokens, maxTokens) : ids;
  });
  for (const ids of rows) if (ids.length + maxTokens > tokens.maxLength) throw contextError(tokens.maxLength, ids.length, maxTokens);
  const texts = prompts.map((p, i) => (typeof p === 'string' && !options.wrongEcho ? p : tokens.decode(rows[i]!, false)));
  const k = logprobs ?? 0;
  const returnIds = boolField(body, 'return_token_ids', false);

  let generations: TokenGeneration[];
  let scores: PromptScores[] | null = null;
  if (maxTokens === 0) {
    generations = rows.map(() => ({ ids: [], text: '', finishReason: 'length' }));
    if (logprobs !== null) scores = await queue.score(rows, k);
  } else if (maxTokens === 1 && greedy(sampling)) {
    // One pass gives the prompt's scores and the greedy next token (what lm-eval's max_tokens 1 asks).
    scores = await queue.score(rows, k);
    generations = scores.map((s) => oneGreedyToken(s.top.at(-1)![0]!, tokens, stopSequences(stop, eosText)));
  } else {
    generations = await queue.generate(rows, {
      maxNewTokens: maxTokens, stop: stopSequences(stop, eosText), doSample: !greedy(sampling),
      temperature: sampling.temperature, topP: sampling.topP, topK: sampling.topK, seed: sampling.seed,
    });
    if (logprobs !== null) scores = await queue.score(rows.map((ids, i) => [...ids, ...generations[i]!.ids]), k);
  }

  const answer = (ids: number[], i: number): Choice => {
    const gen = generations[i]!;
    const text = (echo ? texts[i]! : '') + gen.text;
    const finish = gen.finishReason === 'length' ? 'length' : 'stop';
    if (scores === null) return { index: i, text, logprobs: null, finish_reason: finish, stop_reason: null };
    const s = scores[i]!;
    const all = [...ids, ...gen.ids];
    // Positions reported: the prompt's (with echo) then the generated tokens'.
    const from = echo ? 0 : ids.length;
    const out = { tokens: [] as string[], token_logprobs: [] as Array<number | null>, top_logprobs: [] as Array<Record<string, number> | null>, text_offset: [] as number[] };
    let offset = 0;
    for (let p = from; p < all.length; p++) {
      const piece = tokens.decode([all[p]!], false);
      out.tokens.push(piece);
      out.text_offset.push(offset);
      offset += pyLen(piece);
      if (p === 0) {
        out.token_logprobs.push(null);
        out.top_logprobs.push(null);
        continue;
      }
      const lp = p - 1 < s.logprobs.length ? s.logprobs[p - 1]! : (s.top[p - 1]!.find((t) => t.id === all[p]) ?? { logprob: -Infinity }).logprob;
      out.token_logprobs.push(Math.max(lp, FLOOR));
      out.top_logprobs.push(topDict(s.top[p - 1]!.slice(0, k), all[p]!, lp, tokens));
    }
    return { index: i, text, logprobs: out, finish_reason: finish, stop_reason: null };
  };
  const choices: Choice[] = rows.map((ids, i) => {
    const choice = answer(ids, i);
    return returnIds ? { ...choice, prompt_token_ids: [...ids], token_ids: [...generations[i]!.ids] } : choice;
  });
  const promptTokens = rows.reduce((n, r) => n + r.length, 0);
  const completionTokens = generations.reduce((n, g) => n + g.ids.length, 0);
  return {
    id: `cmpl-${randomUUID().replaceAll('-', '')}`,
    object: 'text_completion',
    created: Math.floor(Date.now() / 1000),
    model: options.modelName,
    choices,
    usage: { prompt_tokens: promptTokens, completion_tokens: completionTokens, total_tokens: promptTokens + completionTokens },
  };
}

/** The top-k by decoded text (the first, best, of two ids that decode alike wins) with the token itself added. */
function topDict(top: readonly TokenLogprob[], id: number, logprob: number, tokens: TokenAccess): Record<string, number> {
  const dict: Record<string, number> = {};
  for (const t of top) {
    const key = tokens.decode([t.id], false);
    if (!(key in dict)) dict[key] = Math.max(t.logprob, FLOOR);
  }
  const own = tokens.decode([id], false);
  if (!(own in dict)) dict[own] = Math.max(logprob, FLOOR);
  return dict;
}

function oneGreedyToken(best: TokenLogprob, tokens: TokenAccess, stops: string[]): TokenGeneration {
  if (best.id === tokens.eosTokenId) return { ids: [best.id], text: '', finishReason: 'eos' };
  const full = tokens.decode([best.id], true);
  const text = cutAtStops(full, stops);
  return { ids: [best.id], text, finishReason: text !== full ? 'stop' : 'length' };
}

/** The prompt as a server that adds BOS would see it; a prompt with no room for one more token loses its first token instead. */
function wrongEchoIds(ids: readonly number[], tokens: TokenAccess, maxTokens: number): number[] {
  const prefix = tokens.eosTokenId ?? 0;
  if (ids.length + 1 + maxTokens <= tokens.maxLength) return [prefix, ...ids];
  return ids.length > 1 ? ids.slice(1) : [ids[0] === prefix ? (prefix + 1) % (tokens.maxTokenId + 1) : prefix];
}

/** A backend without token access (the dummy): text prompts, generation only. */
async function textCompletion(
  prompts: Array<string | number[]>,
  req: { echo: boolean; maxTokens: number; logprobs: number | null; sampling: Sampling; stop: string[] },
  model: LanguageModel,
  queue: BackendQueue,
  modelName: string,
): Promise<unknown> {
  if (req.logprobs !== null) throw badRequest(`the ${model.describe().backend} backend has no per-token log-probs; leave logprobs out`, 'logprobs');
  if (prompts.some((p) => typeof p !== 'string')) throw badRequest(`the ${model.describe().backend} backend has no tokenizer: send prompts as text`, 'prompt');
  const texts = prompts as string[];
  const results = req.maxTokens === 0 ? null : await queue.generateText(texts.map((context) => ({
    context,
    settings: { until: req.stop, maxGenToks: req.maxTokens, doSample: !greedy(req.sampling), temperature: req.sampling.temperature, topP: req.sampling.topP, topK: req.sampling.topK, seed: req.sampling.seed, extra: {} },
  })));
  const choices = texts.map((p, i) => ({
    index: i,
    text: (req.echo ? p : '') + (results?.[i]?.text ?? ''),
    logprobs: null,
    finish_reason: results === null || results[i]!.finishReason === 'length' ? 'length' : 'stop',
    stop_reason: null,
  }));
  const promptTokens = results?.reduce((n, r) => n + r.usage.tokensIn, 0) ?? 0;
  const completionTokens = results?.reduce((n, r) => n + r.usage.tokensOut, 0) ?? 0;
  return {
    id: `cmpl-${randomUUID().replaceAll('-', '')}`,
    object: 'text_completion',
    created: Math.floor(Date.now() / 1000),
    model: modelName,
    choices,
    usage: { prompt_tokens: promptTokens, completion_tokens: completionTokens, total_tokens: promptTokens + completionTokens },
  };
}
