import { createHash } from 'node:crypto';

/** sha256 of the UTF-8 bytes of `text`, lower-case hex (lm-eval's hash for docs, prompts and targets). */
export function sha256Hex(text: string | Uint8Array): string {
  return createHash('sha256').update(text).digest('hex');
}
