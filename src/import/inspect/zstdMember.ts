/**
 * zstd (ZIP method 93) member decoding with bounded memory. fzstd allocates a
 * window buffer as large as each frame header declares (up to 2 GiB), so the
 * frame headers are walked first and any frame whose window exceeds the member's
 * own limit is refused before fzstd sees it. Inspect splits members larger than
 * 200 MiB into several concatenated frames, so every frame is walked and decoded.
 */
import { Decompress } from 'fzstd';

const ZSTD_MAGIC = 0xfd2fb528;
const SKIPPABLE_MASK = 0xfffffff0;
const SKIPPABLE_MAGIC = 0x184d2a50;

/** Why a zstd stream was refused; the caller turns it into a BadInputError naming the member. */
export class ZstdRefusal extends Error {}

interface FrameInfo {
  windowSize: number;
  contentSize: number | null;
}

function readLE(data: Uint8Array, at: number, bytes: number): number {
  let value = 0;
  for (let i = bytes - 1; i >= 0; i--) value = value * 256 + data[at + i]!;
  return value;
}

/** Walks every frame (header, blocks, checksum) without decoding; throws ZstdRefusal on a malformed or oversized frame. */
export function walkZstdFrames(data: Uint8Array, maxWindow: number): FrameInfo[] {
  const frames: FrameInfo[] = [];
  let at = 0;
  while (at < data.length) {
    if (data.length - at < 8) throw new ZstdRefusal('truncated zstd frame');
    const magic = readLE(data, at, 4);
    if (((magic & SKIPPABLE_MASK) >>> 0) === SKIPPABLE_MAGIC) {
      at += 8 + readLE(data, at + 4, 4);
      continue;
    }
    if (magic !== ZSTD_MAGIC) throw new ZstdRefusal(`not a zstd frame at byte ${at}`);
    const flags = data[at + 4]!;
    const singleSegment = (flags >> 5) & 1;
    const dictBytes = [0, 1, 2, 4][flags & 3]!;
    const fcsFlag = flags >> 6;
    const fcsBytes = fcsFlag === 0 ? singleSegment : 1 << fcsFlag;
    let cursor = at + 5;
    let windowSize = 0;
    if (!singleSegment) {
      const descriptor = data[cursor++]!;
      const base = 2 ** (10 + (descriptor >> 3));
      windowSize = base + (base / 8) * (descriptor & 7);
    }
    cursor += dictBytes;
    let contentSize: number | null = null;
    if (fcsBytes > 0) {
      contentSize = readLE(data, cursor, fcsBytes) + (fcsBytes === 2 ? 256 : 0);
      cursor += fcsBytes;
    }
    if (singleSegment) windowSize = contentSize ?? 0;
    if (windowSize > maxWindow || (contentSize !== null && contentSize > maxWindow)) {
      throw new ZstdRefusal(`zstd frame declares ${Math.max(windowSize, contentSize ?? 0)} bytes, above the member limit of ${maxWindow}`);
    }
    for (;;) {
      if (cursor + 3 > data.length) throw new ZstdRefusal('truncated zstd block');
      const header = readLE(data, cursor, 3);
      const last = header & 1;
      const type = (header >> 1) & 3;
      const size = header >> 3;
      if (type === 3) throw new ZstdRefusal('reserved zstd block type');
      cursor += 3 + (type === 1 ? 1 : size);
      if (cursor > data.length) throw new ZstdRefusal('truncated zstd block');
      if (last) break;
    }
    if (flags & 4) cursor += 4;
    if (cursor > data.length) throw new ZstdRefusal('truncated zstd checksum');
    frames.push({ windowSize, contentSize });
    at = cursor;
  }
  if (frames.length === 0) throw new ZstdRefusal('no zstd frame');
  return frames;
}

/** Decodes all frames, refusing output beyond `maxBytes` as soon as it is produced. */
export function decodeZstd(data: Uint8Array, maxBytes: number): Buffer {
  walkZstdFrames(data, maxBytes);
  const chunks: Uint8Array[] = [];
  let total = 0;
  const stream = new Decompress((chunk) => {
    total += chunk.length;
    if (total > maxBytes) throw new ZstdRefusal(`decompresses to more than ${maxBytes} bytes`);
    // fzstd reuses no output buffers, but copy anyway: the chunk may view its window.
    chunks.push(chunk.slice());
  });
  try {
    stream.push(data, true);
  } catch (error) {
    if (error instanceof ZstdRefusal) throw error;
    throw new ZstdRefusal(`corrupt zstd data (${(error as Error).message})`);
  }
  return Buffer.concat(chunks, total);
}
