/**
 * Context assembly (lm_eval/api/utils.py and ConfigurableTask.fewshot_context /
 * build_qa_turn / multiple_input_context; lmeval-prompts.md §7). Messages carry a
 * plain-text delimiter that the chat path drops.
 */
import { firstChar, isSpaceChar as isPySpace, lastChar } from '../py/str.ts';

export interface Message {
  role: 'system' | 'user' | 'assistant';
  content: string;
  delimiter: string;
}

export type ChatMessage = { role: string; content: string };

const msg = (role: Message['role'], content: string, delimiter = ''): Message => ({ role, content, delimiter });

export function maybeDelimit(prefix: string | null | undefined, suffix: string | null | undefined, delimiter = ' '): string {
  if (!prefix) return suffix || '';
  if (!suffix) return prefix || '';
  return isPySpace(lastChar(prefix)) || isPySpace(firstChar(suffix)) ? prefix + suffix : prefix + delimiter + suffix;
}

export function requiresDelimiter(prefix: string, suffix: string): boolean {
  if (prefix === '') return false;
  return !(isPySpace(lastChar(prefix)) || isPySpace(firstChar(suffix)));
}

export function endsWithWhitespace(s: string | null): boolean {
  return !!s && isPySpace(lastChar(s));
}

/** Thrown for lm-eval's assertions (context or answer not a string); the builder names task and doc. */
export class PromptShapeError extends Error {}

/** Python truthiness for the values an answer or gen_prefix can take. */
function truthy(v: unknown): boolean {
  if (v === null || v === undefined || v === '' || v === false || v === 0) return false;
  if (Array.isArray(v)) return v.length > 0;
  if (typeof v === 'object' && Object.getPrototypeOf(v) === Object.prototype) return Object.keys(v).length > 0;
  return true;
}

export function buildQaTurn(opts: {
  q: unknown;
  c?: unknown[] | null;
  a?: unknown;
  genPrefix?: string | null;
  tgtDelim?: string;
  fewDelim?: string;
  pyStr: (v: unknown) => string;
}): Message[] {
  const { q, c = null, a = null, genPrefix = null, tgtDelim = ' ', fewDelim = '\n\n' } = opts;
  if (typeof q !== 'string') throw new PromptShapeError(`Context is not a string! : ${opts.pyStr(q)}`);
  const hasAnswer = a !== null && a !== undefined && a !== '';
  const userDelim = hasAnswer && !genPrefix ? tgtDelim : genPrefix && requiresDelimiter(q, genPrefix) ? tgtDelim : '';
  const out = [msg('user', q, userDelim)];
  if (hasAnswer) {
    let text: unknown;
    if (c !== null && c.length > 0 && typeof a === 'number') text = c.at(a);
    else if (Array.isArray(a)) text = a[0];
    else text = a;
    if (typeof text !== 'string') throw new PromptShapeError(`Answer is not a string! : ${opts.pyStr(a)}`);
    out.push(msg('assistant', maybeDelimit(genPrefix, text, ' '), fewDelim));
  } else if (genPrefix) {
    out.push(msg('assistant', genPrefix));
  }
  return out;
}

export function messagesToText(messages: readonly Message[]): string {
  let out = '';
  for (const m of messages) out += m.content + m.delimiter;
  return out;
}

export function toChat(messages: readonly Message[]): ChatMessage[] {
  return messages.map((m) => ({ role: m.role, content: m.content }));
}

/** `multiturn_to_singleturn`: few-shot turns collapse into one user message (system and a final gen_prefix kept apart). */
export function multiturnToSingleturn(all: readonly Message[]): ChatMessage[] {
  const system = all[0]?.role === 'system' ? all[0] : null;
  const messages = (system ? all.slice(1) : all).map((m) => ({ ...m }));
  let res: ChatMessage[];
  const last = messages.at(-1)!;
  if (last.role === 'assistant') {
    const user = messages.slice(0, -1);
    user.at(-1)!.delimiter = '';
    res = [{ role: 'user', content: messagesToText(user) }, { role: last.role, content: last.content }];
  } else {
    last.delimiter = '';
    res = [{ role: 'user', content: messagesToText(messages) }];
  }
  return system ? [{ role: system.role, content: system.content }, ...res] : res;
}

export { truthy };
