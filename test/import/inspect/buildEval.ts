/**
 * Test helper: writes `.eval` archives with yazl (the ZIP writer) and
 * @bokuweb/zstd-wasm (the zstd compressor). yazl only knows stored and deflate,
 * so a zstd member is added as stored bytes and its entry is then told the
 * truth (method 93, the uncompressed size and the CRC-32 of the uncompressed
 * data) as yazl pushes it, before it writes any header.
 */
import { crc32 } from 'node:zlib';
import { writeFile } from 'node:fs/promises';
import yazl from 'yazl';
import { compress, init } from '@bokuweb/zstd-wasm';

export interface MemberSpec {
  name: string;
  data: Buffer | string;
  method?: 'stored' | 'deflate' | 'zstd' | 'zstd-2-frames';
  /** Lie about the uncompressed size (zip-bomb tests). */
  declaredSize?: number;
}

let zstdReady: Promise<void> | null = null;

interface YazlEntry {
  uncompressedSize: number;
  crc32: number;
  getCompressionMethod(): number;
  getLocalFileHeader(): Buffer;
}

export async function buildEval(path: string, members: MemberSpec[], options: { zip64?: boolean } = {}): Promise<Buffer> {
  zstdReady ??= init();
  await zstdReady;
  const zip = new yazl.ZipFile();
  const entries = (zip as unknown as { entries: YazlEntry[] }).entries;
  // addBuffer may write the local header at once, so an entry is corrected as it is pushed, before any header is written.
  let pending: ((entry: YazlEntry) => void) | null = null;
  const push = entries.push.bind(entries);
  entries.push = (...items: YazlEntry[]) => {
    for (const item of items) pending?.(item);
    pending = null;
    return push(...items);
  };
  for (const m of members) {
    const raw = Buffer.isBuffer(m.data) ? m.data : Buffer.from(m.data, 'utf8');
    const method = m.method ?? 'deflate';
    const zip64 = { forceZip64Format: options.zip64 ?? false };
    const declared = m.declaredSize;
    const lie = (entry: YazlEntry) => {
      if (declared === undefined) return;
      // yazl writes sizes into the local header as 32-bit; 0xffffffff there defers to the central directory (ZIP64).
      const localHeader = entry.getLocalFileHeader.bind(entry);
      entry.getLocalFileHeader = () => {
        entry.uncompressedSize = Math.min(declared, 0xffffffff);
        const header = localHeader();
        entry.uncompressedSize = declared;
        return header;
      };
      entry.uncompressedSize = declared;
    };
    if (method === 'zstd' || method === 'zstd-2-frames') {
      const half = method === 'zstd' ? raw.length : Math.floor(raw.length / 2);
      const frames = [compress(raw.subarray(0, half), 3)];
      if (half < raw.length) frames.push(compress(raw.subarray(half), 3));
      const data = Buffer.concat(frames.map((f) => Buffer.from(f)));
      // yazl has set size and CRC from the compressed bytes by the time it pushes the entry; tell it the truth.
      pending = (entry) => {
        entry.getCompressionMethod = () => 93;
        entry.uncompressedSize = raw.length;
        entry.crc32 = crc32(raw) >>> 0;
        lie(entry);
      };
      zip.addBuffer(data, m.name, { compress: false, ...zip64 });
    } else {
      pending = lie;
      zip.addBuffer(raw, m.name, { compress: method === 'deflate', ...zip64 });
    }
  }
  zip.end({ forceZip64Format: options.zip64 ?? false, comment: '' });
  const chunks: Buffer[] = [];
  for await (const chunk of zip.outputStream) chunks.push(chunk as Buffer);
  const bytes = Buffer.concat(chunks);
  await writeFile(path, bytes);
  return bytes;
}
