/**
 * `POST /v1/chat/completions`, `POST /tokenize` and `POST /detokenize` as vLLM answers them: the
 * messages rendered with the model's chat template (`add_generation_prompt` true unless told),
 * encoded without special tokens (the template writes them), generated with `max_tokens` or
 * `max_completion_tokens` (default: the rest of the context), `stop`, `temperature`, `seed`.
 */
import { randomUUID } from 'node:crypto';
import { compileChatTemplate, type ChatTemplate } from '../prompt/chatTemplate.ts';
import type { ChatMessage } from '../prompt/context.ts';
import { stopSequences } from '../models/lmevalRequests.ts';
import type { LanguageModel } from '../models/lm.ts';
import type { TokenAccess } from '../models/tokenAccess.ts';
import type { BackendQueue } from './backendQueue.ts';
import { checkIds, contextError, samplingFields } from './completions.ts';
import { badRequest, boolField, optionalInt, refuseUnsupported, stopField } from './http.ts';

function messagesOf(body: Record<string, unknown>): ChatMessage[] {
  const m = body.messages;
  if (!Array.isArray(m) || m.length === 0) throw badRequest('messages must be a non-empty list of {role, content}', 'messages');
  return m.map((msg, i) => {
    const role = (msg as { role?: unknown })?.role;
    let content = (msg as { content?: unknown })?.content;
    if (typeof role !== 'string') throw badRequest(`messages[${i}].role must be a string`, 'messages');
    // OpenAI's content parts: text parts are joined; other kinds (images, audio) are not served.
    if (Array.isArray(content)) {
      if (!content.every((part) => part?.type === 'text' && typeof part.text === 'string')) throw badRequest(`messages[${i}].content: only text parts are served`, 'messages');
      content = content.map((part: { text: string }) => part.text).join('\n');
    }
    if (typeof content !== 'string') throw badRequest(`messages[${i}].content must be a string or a list of text parts`, 'messages');
    return { role, content } as ChatMessage;
  });
}

/** Templates compiled from a backend's description, once per model: parsing the Jinja source took more CPU than the rest of a request. */
const describedTemplates = new WeakMap<LanguageModel, ChatTemplate>();

/** The model's chat template: the tokenizer's (with its special tokens), else the template the backend describes. */
export function modelChatTemplate(model: LanguageModel): ChatTemplate {
  const own = model.tokenAccess?.chatTemplate() ?? null;
  if (own !== null) return own;
  const compiled = describedTemplates.get(model);
  if (compiled !== undefined) return compiled;
  const description = model.describe();
  if (description.chatTemplate === null) throw badRequest('this model has no chat template, so /v1/chat/completions cannot render messages; use /v1/completions', 'messages');
  const template = compileChatTemplate(description.chatTemplate, { origin: `${description.backend} backend` });
  describedTemplates.set(model, template);
  return template;
}

function render(body: Record<string, unknown>, model: LanguageModel): string {
  return modelChatTemplate(model).render(messagesOf(body), boolField(body, 'add_generation_prompt', true));
}

export async function chatCompletion(body: Record<string, unknown>, model: LanguageModel, queue: BackendQueue, modelName: string): Promise<unknown> {
  refuseUnsupported(body);
  if (body.logprobs === true) throw badRequest('logprobs on chat completions are not served; use /v1/completions with echo for scores', 'logprobs');
  const prompt = render(body, model);
  const sampling = samplingFields(body);
  const stop = stopField(body);
  const asked = optionalInt(body, 'max_completion_tokens', 1) ?? optionalInt(body, 'max_tokens', 1);
  const tokens = model.tokenAccess;
  let text: string;
  let finish: 'stop' | 'length';
  let promptTokens: number;
  let completionTokens: number;
  if (tokens !== undefined) {
    const ids = tokens.encode(prompt, false);
    const maxTokens = asked ?? tokens.maxLength - ids.length;
    if (maxTokens < 1 || ids.length + maxTokens > tokens.maxLength) throw contextError(tokens.maxLength, ids.length, Math.max(maxTokens, 1));
    const eosText = tokens.eosTokenId === null ? null : tokens.decode([tokens.eosTokenId], false);
    const [gen] = await queue.generate([ids], {
      maxNewTokens: maxTokens, stop: stopSequences(stop, eosText), doSample: !(sampling.temperature === 0 || sampling.topK === 1),
      temperature: sampling.temperature, topP: sampling.topP, topK: sampling.topK, seed: sampling.seed,
    });
    text = gen!.text;
    finish = gen!.finishReason === 'length' ? 'length' : 'stop';
    promptTokens = ids.length;
    completionTokens = gen!.ids.length;
  } else {
    const [gen] = await queue.generateText([{
      context: prompt,
      settings: { until: stop, maxGenToks: asked ?? 256, doSample: sampling.temperature > 0, temperature: sampling.temperature, topP: sampling.topP, topK: sampling.topK, seed: sampling.seed, extra: {} },
    }]);
    text = gen!.text;
    finish = gen!.finishReason === 'length' ? 'length' : 'stop';
    promptTokens = gen!.usage.tokensIn;
    completionTokens = gen!.usage.tokensOut;
  }
  return {
    id: `chatcmpl-${randomUUID().replaceAll('-', '')}`,
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model: modelName,
    choices: [{ index: 0, message: { role: 'assistant', content: text }, logprobs: null, finish_reason: finish }],
    usage: { prompt_tokens: promptTokens, completion_tokens: completionTokens, total_tokens: promptTokens + completionTokens },
  };
}

function needTokens(model: LanguageModel): TokenAccess {
  if (model.tokenAccess === undefined) throw badRequest(`the ${model.describe().backend} backend has no tokenizer to tokenize with`);
  return model.tokenAccess;
}

/** vLLM's /tokenize: `{prompt, add_special_tokens=true}` or `{messages, add_generation_prompt=true, add_special_tokens=false}`. */
export function tokenize(body: Record<string, unknown>, model: LanguageModel): unknown {
  const tokens = needTokens(model);
  let ids: number[];
  if (body.messages !== undefined) ids = tokens.encode(render(body, model), boolField(body, 'add_special_tokens', false));
  else if (typeof body.prompt === 'string') ids = tokens.encode(body.prompt, boolField(body, 'add_special_tokens', true));
  else throw badRequest('send prompt (a string) or messages', 'prompt');
  return { count: ids.length, max_model_len: tokens.maxLength, tokens: ids, token_strs: null };
}

/** vLLM's /tokenizer_info (what lm-eval's RemoteTokenizer reads: eos/bos/pad tokens and the chat template). */
export function tokenizerInfo(model: LanguageModel): unknown {
  const tokens = needTokens(model);
  return {
    eos_token: tokens.specialTokens.eos,
    bos_token: tokens.specialTokens.bos,
    pad_token: tokens.specialTokens.pad,
    chat_template: tokens.chatTemplate()?.source ?? null,
    model_max_length: tokens.maxLength,
  };
}

/** vLLM's /detokenize: `{tokens}` → `{prompt}` (special tokens kept, as vLLM decodes). */
export function detokenize(body: Record<string, unknown>, model: LanguageModel): unknown {
  const tokens = needTokens(model);
  const ids = body.tokens;
  if (!Array.isArray(ids) || !ids.every((x) => typeof x === 'number')) throw badRequest('tokens must be a list of token ids', 'tokens');
  checkIds(ids as number[], tokens);
  return { prompt: tokens.decode(ids as number[], false) };
}
