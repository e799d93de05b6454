/**
 * Reading line-oriented files without holding them whole: a JSONL file may be
 * gigabytes, and a single line may be huge. Lines are yielded with their 1-based number.
 *
 * Bytes are split at '\n' (a trailing '\r' is dropped, as Python's universal newlines do)
 * and checked as UTF-8 before they are decoded: a bad byte is an error naming the line,
 * or, when the caller passes `onInvalid`, a line it is told of and that is not yielded.
 * A whole chunk is checked and decoded at once when it is valid (the common case).
 * A gzipped file (known by its magic number, as lm-eval samples are often shared) is
 * decompressed as it is read; line numbers are the decompressed file's.
 */
import { createReadStream } from 'node:fs';
import { once } from 'node:events';
import { createGunzip } from 'node:zlib';
import { BadInputError } from '../errors.ts';
import { firstInvalidUtf8, foreignEncoding, invalidUtf8Message, UTF16_ADVICE } from './utf8.ts';

const CHUNK = 1 << 20;

export async function* readLines(
  file: string,
  onInvalid?: (line: number, reason: string) => void,
): AsyncGenerator<{ line: number; text: string }> {
  let line = 0;
  /** Bytes after the last '\n' seen, waiting for the rest of their line. */
  let carry: Buffer[] = [];
  let first = true;
  const lineText = (bytes: Buffer): string | null => {
    line++;
    let end = bytes.length;
    if (end > 0 && bytes[end - 1] === 13) end--;
    let start = 0;
    // A UTF-8 byte order mark (Windows tools write one) is not part of the first line.
    if (line === 1 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) start = 3;
    const body = bytes.subarray(start, end);
    const bad = firstInvalidUtf8(body);
    if (bad === null) return body.toString('utf8');
    const reason = invalidUtf8Message(body, bad);
    if (onInvalid === undefined) throw new BadInputError(reason, { file, line });
    onInvalid(line, reason);
    return null;
  };
  try {
    for await (const chunk of fileChunks(file)) {
      if (first) {
        first = false;
        const foreign = foreignEncoding(chunk.subarray(0, 64));
        if (foreign !== null) throw new BadInputError(`the file is ${foreign}; ${UTF16_ADVICE}`, { file });
      }
      const lastNewline = chunk.lastIndexOf(10);
      if (lastNewline < 0) {
        carry.push(chunk);
        continue;
      }
      const head = chunk.subarray(0, lastNewline);
      const whole = carry.length > 0 ? Buffer.concat([...carry, head]) : head;
      carry = lastNewline + 1 < chunk.length ? [chunk.subarray(lastNewline + 1)] : [];
      // Fast path: the whole run of lines is valid UTF-8 and holds no '\r' and no mark to strip.
      if (line > 0 && firstInvalidUtf8(whole) === null && whole.indexOf(13) < 0) {
        for (const text of whole.toString('utf8').split('\n')) yield { line: ++line, text };
        continue;
      }
      let start = 0;
      for (;;) {
        const nl = whole.indexOf(10, start);
        const text = lineText(whole.subarray(start, nl < 0 ? whole.length : nl));
        if (text !== null) yield { line, text };
        if (nl < 0) break;
        start = nl + 1;
      }
    }
    if (carry.length > 0) {
      const text = lineText(Buffer.concat(carry));
      if (text !== null) yield { line, text };
    }
  } catch (error) {
    if (error instanceof BadInputError) throw error;
    throw new BadInputError(`cannot read (${(error as Error).message})`, { file }, { cause: error });
  }
}

/**
 * The file's bytes in chunks, gunzipped on the way when the first chunk starts with gzip's magic
 * number. The first chunk is looked at, not a separate read, so a named pipe is read once.
 * `onRaw` sees the file's own bytes as they are read (to hash them in the same read).
 */
export async function* fileChunks(file: string, onRaw: (bytes: Buffer) => void = () => {}): AsyncGenerator<Buffer> {
  const raw = createReadStream(file, { highWaterMark: CHUNK });
  raw.on('error', () => {});
  const chunks = raw[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
  const next = async (): Promise<IteratorResult<Buffer>> => {
    const r = await chunks.next();
    if (!r.done) onRaw(r.value);
    return r;
  };
  const first = await next();
  if (first.done) return;
  const head = first.value;
  if (!(head.length >= 2 && head[0] === 0x1f && head[1] === 0x8b)) {
    try {
      yield head;
      for (let r = await next(); !r.done; r = await next()) yield r.value;
    } finally {
      raw.destroy();
    }
    return;
  }
  const gunzip = createGunzip({ chunkSize: CHUNK });
  const feeding = (async () => {
    try {
      if (!gunzip.write(head)) await once(gunzip, 'drain');
      for (let r = await next(); !r.done; r = await next()) if (!gunzip.write(r.value)) await once(gunzip, 'drain');
      gunzip.end();
    } catch (error) {
      gunzip.destroy(error as Error);
    }
  })();
  try {
    yield* gunzip as AsyncIterable<Buffer>;
  } finally {
    // A reader that stops early leaves the feeder waiting on a drain that never comes: both streams go.
    raw.destroy();
    gunzip.destroy();
    feeding.catch(() => undefined);
  }
}
