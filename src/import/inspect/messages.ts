/**
 * Text of Inspect chat messages and model output, as Inspect's scorers see it:
 * a string content is itself; a list of content parts gives its `text` parts
 * joined with "\n". Reasoning parts are never part of the text.
 */
import { arr, obj, type Json } from './migrate.ts';

export function messageText(message: unknown): string {
  const content = obj(message)?.content;
  if (typeof content === 'string') return content;
  return (arr(content) ?? [])
    .map(obj)
    .filter((part): part is Json => part?.type === 'text' && typeof part.text === 'string')
    .map((part) => part.text as string)
    .join('\n');
}

/** The completion scorers read: `output.completion` when non-empty, else the first choice's message text. */
export function completionOf(sample: Json): { text: string; from: 'output.completion' | 'output.choices[0]' | 'none' } {
  const output = obj(sample.output);
  if (typeof output?.completion === 'string' && output.completion !== '') return { text: output.completion, from: 'output.completion' };
  const first = obj(arr(output?.choices)?.[0]);
  if (first !== undefined) return { text: messageText(first.message), from: 'output.choices[0]' };
  return { text: '', from: 'none' };
}

/** The sample input as text: a string input is itself; messages give their texts joined with "\n". */
export function inputText(input: unknown): string {
  if (typeof input === 'string') return input;
  return (arr(input) ?? []).map(messageText).join('\n');
}

/** Messages before the first assistant message: what the model was sent on its first turn. */
export function promptMessages(sample: Json): Json[] {
  const messages = (arr(sample.messages) ?? []).map(obj).filter((m): m is Json => m !== undefined);
  const firstReply = messages.findIndex((m) => m.role === 'assistant');
  return firstReply === -1 ? messages : messages.slice(0, firstReply);
}

/** Inspect's Target: a string target is a one-element list. */
export function targetList(target: unknown): string[] {
  if (typeof target === 'string') return [target];
  return (arr(target) ?? []).map((t) => (typeof t === 'string' ? t : JSON.stringify(t)));
}
