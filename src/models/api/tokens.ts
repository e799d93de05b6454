/**
 * Tokens on the client side of a completions server: the local tokenizer lm-eval's
 * `tokenizer=` names, and the check lm-eval does not make, that the server echoed exactly the
 * tokens sent (a server that adds BOS, tokenises a string itself or ignores `echo` would
 * otherwise be scored silently misaligned).
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import { BadInputError } from '../../errors.ts';
import { HfTokenizer } from '../onnx/hfTokenizer.ts';
import { MalformedResponse } from './http.ts';

export interface LocalTokenizer {
  tok: HfTokenizer;
  /** sha256 of the files read, by name, for the provenance. */
  files: Record<string, string>;
}

/** `tokenizer=` a folder with tokenizer.json (and tokenizer_config.json), or the tokenizer.json itself. */
export function loadTokenizer(path: string, addBosToken: boolean | null): LocalTokenizer {
  if (!existsSync(path)) throw new BadInputError(`--model_args tokenizer=${path}: no such file or folder`);
  const folder = statSync(path).isDirectory();
  const jsonPath = folder ? join(path, 'tokenizer.json') : path;
  const configPath = folder ? join(path, 'tokenizer_config.json') : join(path, '..', 'tokenizer_config.json');
  if (!existsSync(jsonPath)) throw new BadInputError('no tokenizer.json in the folder (the fast-tokenizer file is what lmaudit reads)', { file: path });
  const files: Record<string, string> = {};
  const read = (p: string): Record<string, unknown> => {
    const text = readFileSync(p);
    files[p.split('/').at(-1)!] = createHash('sha256').update(text).digest('hex');
    try {
      return JSON.parse(text.toString('utf8')) as Record<string, unknown>;
    } catch (error) {
      throw new BadInputError(`not JSON (${(error as Error).message})`, { file: p });
    }
  };
  const json = read(jsonPath);
  const config = existsSync(configPath) ? read(configPath) : {};
  try {
    return { tok: new HfTokenizer(json, config, addBosToken), files };
  } catch (error) {
    throw new BadInputError(`cannot build the tokenizer: ${(error as Error).message}`, { file: jsonPath });
  }
}

/**
 * The server echoed other tokens than those sent: scoring would be misaligned. Retried as a
 * malformed answer (a fault may be passing); every attempt is kept as an exchange, and when the
 * attempts run out the run stops with this message.
 */
export class EchoMismatch extends MalformedResponse {}

/**
 * Compares the echoed prompt with the ids sent. Servers give the ids themselves (vLLM's
 * `prompt_token_ids`, or `token_id:N` strings) or each token's text, compared with the local
 * tokenizer's text of each id. Throws EchoMismatch naming the first position that differs.
 */
export function checkEcho(sent: readonly number[], choice: { prompt_token_ids?: unknown; logprobs?: { tokens?: unknown } }, decode: (id: number) => string): void {
  const ids = Array.isArray(choice.prompt_token_ids) ? (choice.prompt_token_ids as unknown[]) : null;
  if (ids !== null) {
    if (ids.length !== sent.length) throw new EchoMismatch(`the server echoed ${ids.length} prompt token ids for ${sent.length} sent`);
    const at = sent.findIndex((id, i) => ids[i] !== id);
    if (at >= 0) throw new EchoMismatch(`echoed token ${at} is id ${String(ids[at])}, sent ${sent[at]}`);
    return;
  }
  const tokens = choice.logprobs?.tokens;
  if (!Array.isArray(tokens)) throw new EchoMismatch('the response has no logprobs.tokens to check the echo against');
  for (let i = 0; i < sent.length; i++) {
    const t = tokens[i];
    const m = typeof t === 'string' ? /^token_id:(\d+)$/.exec(t) : null;
    const same = m !== null ? Number(m[1]) === sent[i] : t === decode(sent[i]!);
    if (!same) throw new EchoMismatch(`echoed token ${i} is ${JSON.stringify(t)}, sent id ${sent[i]} (${JSON.stringify(decode(sent[i]!))})`);
  }
}
