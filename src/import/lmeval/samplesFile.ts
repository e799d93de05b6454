/**
 * Reading one samples file in pieces of whole lines (samplesChunk.ts reads each), handed to
 * `join` in file order. A JSONL file streams: a piece is a few MiB, and no more pieces are
 * read ahead than are being worked on. A file written as one JSON array (0.4.0–0.4.2) is one
 * JSON value and is read whole.
 */
import { createHash } from 'node:crypto';
import { open } from 'node:fs/promises';
import { BadInputError } from '../../errors.ts';
import { sha256File } from '../../util/hash.ts';
import { parseOrderedArray } from '../../py/orderedJson.ts';
import { withRecordFieldLine } from '../../util/jsonFieldLine.ts';
import { fileChunks } from '../../util/lines.ts';
import { foreignEncoding, readUtf8File, UTF16_ADVICE } from '../../util/utf8.ts';
import type { FileProbe } from '../types.ts';
import type { ChunkJob, ChunkResult } from './chunkResult.ts';
import type { ChunkProcessor } from './samplesChunk.ts';
import { SpareMemory } from './spareMemory.ts';

/** Bytes in a piece: large enough that a piece's fixed costs vanish, small enough to hold a few at once. */
export const PIECE_BYTES = 4 << 20;

/** What every piece of the file is read with; the request type may be settled by the first record. */
export type FileJob = Omit<ChunkJob, 'bytes' | 'firstLine' | 'lines' | 'spare'>;

/**
 * The first piece when reader threads take the rest. It is read on this thread (a record must say what kind of
 * request the task made before the threads start), while they wait: at PIECE_BYTES this thread ran the reading
 * unoptimised, code the threads then compile again, through 4 MiB of records.
 */
export const FIRST_PIECE_BYTES = 256 << 10;

/** Spare buffers handed with a piece: one for each table's rows and the hashes. */
const SPARES_A_PIECE = 5;

/** Reads pieces as `process` is given them (on this thread or others) and joins results in order. */
export interface PieceReader {
  /** Starts reading a piece; the result is joined in the order pieces were started. */
  read(job: ChunkJob): Promise<ChunkResult>;
  /** Pieces that may be read at once (how far the file is read ahead). */
  readonly parallel: number;
}

/** Reads the file's records into `join` in order; returns the sha256 of the file's bytes (read once for both). */
export async function readSamplesFile(
  probe: FileProbe,
  job: FileJob,
  processor: ChunkProcessor,
  pool: PieceReader | null,
  join: (result: ChunkResult) => void,
): Promise<string> {
  if (probe.head.trimStart().startsWith('[')) {
    const text = await readUtf8File(probe.path);
    const records = parseOrderedArray(text, { file: probe.path });
    try {
      join(processor.processNodes(job, records));
    } catch (error) {
      throw withRecordFieldLine(error, text, probe.path, records.map((r) => r.line));
    }
    return sha256File(probe.path);
  }
  const hash = createHash('sha256');
  const spare = new SpareMemory();
  // `join` writes a piece's rows out: its memory is free after it.
  const joined = (result: ChunkResult) => {
    join(result);
    spare.giveBack(result);
  };
  let requestType = job.requestType;
  const pending: Promise<ChunkResult>[] = [];
  const firstBytes = pool === null || job.requestType !== null ? PIECE_BYTES : FIRST_PIECE_BYTES;
  for await (const { bytes, firstLine, lines } of filePieces(probe.path, (raw) => hash.update(raw), spare, firstBytes)) {
    const piece: ChunkJob = { ...job, requestType, bytes, firstLine, lines, spare: spare.takeSome(SPARES_A_PIECE) };
    // Until a record has said what kind of request the task made, pieces are read here, one at a time.
    if (pool === null || requestType === null) {
      while (pending.length > 0) joined(await pending.shift()!);
      const result = processor.process(piece);
      requestType ??= result.requestType;
      joined(result);
      continue;
    }
    pending.push(pool.read(piece));
    while (pending.length > pool.parallel) joined(await pending.shift()!);
  }
  while (pending.length > 0) joined(await pending.shift()!);
  return hash.digest('hex');
}

/**
 * The file's bytes in pieces of whole lines (the last may end without a newline), each with the number of its first line
 * and its count of lines; the first piece of about `firstBytes`, the others of PIECE_BYTES.
 */
export async function* filePieces(file: string, onRaw: (bytes: Buffer) => void = () => {}, spare?: SpareMemory, firstBytes = PIECE_BYTES): AsyncGenerator<{ bytes: Buffer; firstLine: number; lines: number }> {
  let line = 1;
  const piece = (bytes: Buffer) => {
    const firstLine = line;
    for (let i = bytes.indexOf(10); i >= 0; i = bytes.indexOf(10, i + 1)) line++;
    // A last line without its newline is a line too.
    const lines = line - firstLine + (bytes.length > 0 && bytes[bytes.length - 1] !== 10 ? 1 : 0);
    return { bytes, firstLine, lines };
  };
  try {
    for await (const bytes of wholeLines(file, onRaw, spare, firstBytes)) yield piece(bytes);
  } catch (error) {
    if (error instanceof BadInputError) throw error;
    throw new BadInputError(`cannot read (${(error as Error).message})`, { file }, { cause: error });
  }
}

/**
 * Pieces of whole lines, each in memory of its own (it may be handed to another thread). A
 * plain file is read straight into each piece's memory, the bytes after its last newline
 * carried into the next; a gzip file streams through the decompressor.
 */
async function* wholeLines(file: string, onRaw: (bytes: Buffer) => void, spare: SpareMemory | undefined, firstBytes: number): AsyncGenerator<Buffer> {
  const handle = await open(file, 'r');
  let carried: Buffer = Buffer.alloc(0);
  try {
    for (let first = true; ; first = false) {
      // A line longer than a piece makes the next piece larger.
      const wanted = Math.max(first ? firstBytes : PIECE_BYTES, 2 * carried.length);
      const reused = spare?.take(wanted) ?? null;
      const buffer = reused === null ? Buffer.allocUnsafeSlow(wanted) : Buffer.from(reused);
      const size = buffer.length;
      carried.copy(buffer);
      let filled = carried.length;
      for (let got = -1; got !== 0 && filled < size; filled += got) ({ bytesRead: got } = await handle.read(buffer, filled, size - filled, null));
      if (first) {
        if (filled >= 2 && buffer[0] === 0x1f && buffer[1] === 0x8b) {
          await handle.close();
          yield* streamedWholeLines(file, onRaw);
          return;
        }
        checkEncoding(buffer.subarray(0, filled), file);
      }
      onRaw(buffer.subarray(carried.length, filled));
      if (filled < size) {
        if (filled > 0) yield buffer.subarray(0, filled);
        return;
      }
      const cut = buffer.lastIndexOf(10, filled - 1) + 1;
      if (cut === 0) {
        // No newline yet: one long line, carried until it ends.
        carried = buffer;
        continue;
      }
      carried = Buffer.from(buffer.subarray(cut, filled));
      yield buffer.subarray(0, cut);
    }
  } finally {
    await handle.close().catch(() => undefined);
  }
}

/** wholeLines for a stream of decompressed chunks. */
async function* streamedWholeLines(file: string, onRaw: (bytes: Buffer) => void): AsyncGenerator<Buffer> {
  let held: Buffer[] = [];
  let heldBytes = 0;
  let checked = false;
  for await (const chunk of fileChunks(file, onRaw)) {
    if (!checked) {
      checked = true;
      checkEncoding(chunk, file);
    }
    held.push(chunk);
    heldBytes += chunk.length;
    if (heldBytes < PIECE_BYTES) continue;
    const all = Buffer.concat(held, heldBytes);
    const cut = all.lastIndexOf(10) + 1;
    // No newline yet: one long line, held until it ends.
    if (cut === 0) {
      held = [all];
      continue;
    }
    // The rest is copied out: the piece's memory may be handed to another thread.
    held = cut < all.length ? [Buffer.from(all.subarray(cut))] : [];
    heldBytes = all.length - cut;
    yield all.subarray(0, cut);
  }
  if (heldBytes > 0) yield Buffer.concat(held, heldBytes);
}

/** A file in UTF-16 or UTF-32 is refused with advice (from its first bytes). */
function checkEncoding(head: Buffer, file: string): void {
  const foreign = foreignEncoding(head.subarray(0, 64));
  if (foreign !== null) throw new BadInputError(`the file is ${foreign}; ${UTF16_ADVICE}`, { file });
}
