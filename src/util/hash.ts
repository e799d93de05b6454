import { createHash, hash } from 'node:crypto';
import { createReadStream } from 'node:fs';

/**
 * sha256 of the UTF-8 bytes of `text`, lower-case hex (lm-eval's hash for docs, prompts and targets).
 * One-shot: a Hash object per call cost an import 5 µs a record, three calls a record.
 */
export function sha256Hex(text: string | Uint8Array): string {
  return hash('sha256', text, 'hex');
}

/**
 * sha256 of a file's bytes, lower-case hex. Read in large pieces: with the stream's 64 KiB
 * default, a 100 MB file costs 1,600 event-loop turns on a thread an import shares with
 * DuckDB's readers.
 */
export async function sha256File(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path, { highWaterMark: 8 << 20 })) hash.update(chunk as Buffer);
  return hash.digest('hex');
}
