/**
 * Reading an Inspect `.eval` archive: a ZIP whose members are JSON, compressed
 * with DEFLATE (before 0.3.206), zstd (method 93, since) or stored. yauzl reads
 * the central directory (ZIP64 included) and refuses absolute and `../` names;
 * members are read into memory one at a time by name, never extracted to disk.
 *
 * Hostile archives are bounded: a member declaring more than `maxMemberBytes`
 * is refused before any of it is read, decompression stops as soon as output
 * exceeds the declared size, and the CRC-32 of every member is checked (yauzl
 * does not), so a truncated or tampered member is an error, not bad data.
 */
import { crc32 } from 'node:zlib';
import yauzl from 'yauzl';
import type { Entry, ZipFile } from 'yauzl';
import { BadInputError } from '../../errors.ts';
import { parsePythonJson } from '../../util/json.ts';
import { decodeUtf8 } from '../../util/utf8.ts';
import { decodeZstd, ZstdRefusal } from './zstdMember.ts';

export const ZIP_METHOD = { stored: 0, deflate: 8, zstd: 93 } as const;

/**
 * 256 MiB. A member is one JSON text, decoded into one string and parsed whole: V8's
 * longest string is 2^29 - 24 characters, and a parsed log takes a few times its text in
 * memory, so a larger member could not be read within the import's 1 GiB anyway. Refused
 * from the size the archive declares, before a byte is inflated (a member declaring
 * 1 GiB was inflated first: 6.4 s and 2.1 GB).
 */
export const DEFAULT_MAX_MEMBER_BYTES = 256 * 2 ** 20;

/** DEFLATE cannot expand its input more than 1032 times (RFC 1951's longest match per 258 bytes). */
const DEFLATE_MAX_RATIO = 1032;

export interface EvalArchive {
  readonly path: string;
  /** Member names in central-directory order, each once (a repeated name keeps its last entry). */
  readonly names: readonly string[];
  has(name: string): boolean;
  /** The member's bytes, decompressed and CRC-checked. */
  read(name: string): Promise<Buffer>;
  close(): void;
}

export interface ArchiveOptions {
  maxMemberBytes?: number;
}

export async function openEvalArchive(path: string, options: ArchiveOptions = {}): Promise<EvalArchive> {
  const maxBytes = options.maxMemberBytes ?? DEFAULT_MAX_MEMBER_BYTES;
  let zip: ZipFile;
  try {
    zip = await yauzl.openPromise(path, { lazyEntries: true, autoClose: false, validateEntrySizes: true });
  } catch (error) {
    throw new BadInputError(`not a readable ZIP archive (${(error as Error).message}); the file may be truncated`, { file: path });
  }
  const entries = new Map<string, Entry>();
  try {
    await new Promise<void>((resolve, reject) => {
      zip.on('entry', (entry: Entry) => {
        // Inspect re-writes a re-queued sample under the same name; the last central-directory entry wins.
        entries.delete(entry.fileName);
        entries.set(entry.fileName, entry);
        zip.readEntry();
      });
      zip.on('end', () => resolve());
      zip.on('error', reject);
      zip.readEntry();
    });
  } catch (error) {
    zip.close();
    throw new BadInputError(`refused ZIP archive (${(error as Error).message})`, { file: path });
  }
  return {
    path,
    names: [...entries.keys()],
    has: (name) => entries.has(name),
    async read(name) {
      const entry = entries.get(name);
      if (entry === undefined) throw new BadInputError('no such member', { file: path, member: name });
      return readMember(zip, entry, path, maxBytes);
    },
    close: () => zip.close(),
  };
}

async function readMember(zip: ZipFile, entry: Entry, file: string, maxBytes: number): Promise<Buffer> {
  const where = { file, member: entry.fileName };
  if (entry.isEncrypted()) throw new BadInputError('member is encrypted', where);
  if (entry.uncompressedSize > maxBytes) {
    throw new BadInputError(`member declares ${entry.uncompressedSize} bytes uncompressed, above the limit of ${maxBytes} (a zip bomb?)`, where);
  }
  const method = entry.compressionMethod;
  if (method === ZIP_METHOD.stored && entry.compressedSize !== entry.uncompressedSize) {
    throw new BadInputError(`stored member declares ${entry.uncompressedSize} bytes but holds ${entry.compressedSize}`, where);
  }
  if (method === ZIP_METHOD.deflate && entry.uncompressedSize > DEFLATE_MAX_RATIO * entry.compressedSize + 1024) {
    throw new BadInputError(`member declares ${entry.uncompressedSize} bytes from ${entry.compressedSize} deflated, more than DEFLATE can produce`, where);
  }
  if (method !== ZIP_METHOD.stored && method !== ZIP_METHOD.deflate && method !== ZIP_METHOD.zstd) {
    throw new BadInputError(`unsupported compression method ${method} (expected stored, deflate or zstd)`, where);
  }
  let data: Buffer;
  try {
    if (method === ZIP_METHOD.zstd) {
      // Compressed bytes are bounded by the file itself; the walk in decodeZstd bounds the output.
      const raw = await collect(await zip.openReadStreamPromise(entry, { decodeFileData: false }), entry.compressedSize, where);
      data = decodeZstd(raw, entry.uncompressedSize);
    } else {
      // yauzl's validateEntrySizes stops a deflate stream that outgrows its declared size.
      data = await collect(await zip.openReadStreamPromise(entry), entry.uncompressedSize, where);
    }
  } catch (error) {
    if (error instanceof BadInputError) throw error;
    const reason = error instanceof ZstdRefusal ? error.message : `cannot decompress (${(error as Error).message})`;
    throw new BadInputError(reason, where);
  }
  if (data.length !== entry.uncompressedSize) {
    throw new BadInputError(`member is ${data.length} bytes, but the archive declares ${entry.uncompressedSize}`, where);
  }
  if ((crc32(data) >>> 0) !== (entry.crc32 >>> 0)) throw new BadInputError('CRC-32 mismatch: the member is corrupt or truncated', where);
  return data;
}

function collect(stream: NodeJS.ReadableStream, limit: number, where: { file: string; member: string }): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let total = 0;
    stream.on('data', (chunk: Buffer) => {
      total += chunk.length;
      if (total > limit) {
        (stream as unknown as { destroy?: () => void }).destroy?.();
        reject(new BadInputError(`member produces more than the ${limit} bytes it declares (a zip bomb?)`, where));
        return;
      }
      chunks.push(chunk);
    });
    stream.on('end', () => resolve(Buffer.concat(chunks, total)));
    stream.on('error', reject);
  });
}

/** A member parsed as JSON (NaN/Infinity tokens allowed), naming the member when it is not JSON. */
export async function readMemberJson(archive: EvalArchive, name: string): Promise<unknown> {
  const bytes = await archive.read(name);
  return parsePythonJson(decodeUtf8(bytes, archive.path, name), { file: archive.path, member: name });
}
