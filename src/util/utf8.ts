/**
 * Text files are UTF-8, checked: Node's decoders replace a bad byte with U+FFFD without a
 * word, which would store an answer Python never read (Python's open(..., encoding='utf-8')
 * raises UnicodeDecodeError). A UTF-16 file is named as such instead of read as mojibake.
 */
import { isUtf8 } from 'node:buffer';
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { BadInputError } from '../errors.ts';

/** What a file's first bytes say of an encoding lmaudit does not read, or null. */
export function foreignEncoding(head: Uint8Array): string | null {
  if (head[0] === 0xff && head[1] === 0xfe) return 'UTF-16 (little-endian, with a byte order mark)';
  if (head[0] === 0xfe && head[1] === 0xff) return 'UTF-16 (big-endian, with a byte order mark)';
  // Text in UTF-16 without a mark: every other byte of ASCII characters is zero.
  const n = Math.min(head.length, 64) & ~1;
  if (n >= 4) {
    let evenZero = 0;
    let oddZero = 0;
    for (let i = 0; i < n; i += 2) {
      if (head[i] === 0) evenZero++;
      if (head[i + 1] === 0) oddZero++;
    }
    const pairs = n / 2;
    if (oddZero === pairs && evenZero === 0) return 'UTF-16 (little-endian, no byte order mark)';
    if (evenZero === pairs && oddZero === 0) return 'UTF-16 (big-endian, no byte order mark)';
  }
  return null;
}

export const UTF16_ADVICE = 'lmaudit reads UTF-8 text: convert it first (iconv -f UTF-16 -t UTF-8, or Python: open(f, encoding="utf-16"))';

/** Offset of the first byte that breaks UTF-8 in `bytes`, or null when all of it is valid. */
export function firstInvalidUtf8(bytes: Uint8Array): number | null {
  if (isUtf8(bytes)) return null;
  let i = 0;
  while (i < bytes.length) {
    const b = bytes[i]!;
    const need = b < 0x80 ? 0 : b >= 0xc2 && b <= 0xdf ? 1 : b >= 0xe0 && b <= 0xef ? 2 : b >= 0xf0 && b <= 0xf4 ? 3 : -1;
    if (need < 0) return i;
    for (let k = 1; k <= need; k++) {
      const c = bytes[i + k];
      if (c === undefined || (c & 0xc0) !== 0x80) return i;
    }
    // Overlongs and surrogates: the second byte's range narrows after E0, ED, F0, F4.
    const c1 = bytes[i + 1]!;
    if ((b === 0xe0 && c1 < 0xa0) || (b === 0xed && c1 > 0x9f) || (b === 0xf0 && c1 < 0x90) || (b === 0xf4 && c1 > 0x8f)) return i;
    i += need + 1;
  }
  return null;
}

/** The message for a bad byte at `offset` of a line (or file). */
export function invalidUtf8Message(bytes: Uint8Array, offset: number): string {
  const shown = Array.from(bytes.subarray(offset, offset + 4), (b) => b.toString(16).padStart(2, '0')).join(' ');
  return `not valid UTF-8: byte ${offset + 1} of the line starts an invalid sequence (${shown}); Python's json/open would refuse it too`;
}

/** A whole text file as a string, refusing UTF-16 and invalid UTF-8 with the line named. */
export async function readUtf8File(file: string): Promise<string> {
  const bytes = await readFile(file).catch((e: Error) => {
    throw new BadInputError(`cannot read (${e.message})`, { file });
  });
  return decodeUtf8(bytes, file);
}

export function decodeUtf8(bytes: Buffer, file: string, member?: string): string {
  const foreign = foreignEncoding(bytes.subarray(0, 64));
  if (foreign !== null) throw new BadInputError(`the ${member === undefined ? 'file' : 'member'} is ${foreign}; ${UTF16_ADVICE}`, { file, member });
  const bad = firstInvalidUtf8(bytes);
  if (bad !== null) {
    let line = 1;
    let start = 0;
    for (let i = 0; i < bad; i++) {
      if (bytes[i] === 10) {
        line++;
        start = i + 1;
      }
    }
    throw new BadInputError(invalidUtf8Message(bytes.subarray(start), bad - start), { file, member, line });
  }
  return bytes.toString('utf8');
}

/**
 * sha256 of a file's bytes and the offset of its first invalid UTF-8 byte (null when it
 * is all valid), in one streamed pass: the check costs a fraction of the hash.
 */
export async function hashCheckingUtf8(path: string): Promise<{ sha256: string; invalidAt: number | null; line: number | null }> {
  const hash = createHash('sha256');
  let carry = Buffer.alloc(0);
  let offset = 0;
  let invalidAt: number | null = null;
  for await (const chunk of createReadStream(path, { highWaterMark: 8 << 20 }) as AsyncIterable<Buffer>) {
    hash.update(chunk);
    if (invalidAt !== null) continue;
    const bytes = carry.length > 0 ? Buffer.concat([carry, chunk]) : chunk;
    // Hold back a sequence the chunk may have cut: from the last byte that starts a character.
    let cut = bytes.length;
    for (let i = bytes.length - 1; i >= Math.max(0, bytes.length - 4); i--) {
      if ((bytes[i]! & 0xc0) !== 0x80) {
        cut = bytes[i]! < 0x80 ? bytes.length : i;
        break;
      }
    }
    const bad = firstInvalidUtf8(bytes.subarray(0, cut));
    if (bad !== null) invalidAt = offset + bad;
    carry = Buffer.from(bytes.subarray(cut));
    offset += cut;
  }
  if (invalidAt === null && carry.length > 0 && firstInvalidUtf8(carry) !== null) invalidAt = offset;
  return { sha256: hash.digest('hex'), invalidAt, line: invalidAt === null ? null : await lineAt(path, invalidAt) };
}

/** The 1-based line holding byte `offset` of a file. */
async function lineAt(path: string, offset: number): Promise<number> {
  let line = 1;
  let seen = 0;
  for await (const chunk of createReadStream(path, { highWaterMark: 8 << 20, end: Math.max(0, offset - 1) }) as AsyncIterable<Buffer>) {
    for (let i = chunk.indexOf(10); i >= 0 && seen + i < offset; i = chunk.indexOf(10, i + 1)) line++;
    seen += chunk.length;
  }
  return line;
}

/** Length in UTF-8 bytes. */
export function utf8Length(text: string): number {
  return Buffer.byteLength(text, 'utf8');
}
