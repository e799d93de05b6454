/**
 * Reading one samples file in pieces of whole lines (samplesChunk.ts reads each), handed to
 * `join` in file order. A JSONL file streams: a piece is a few MiB, and no more pieces are
 * read ahead than are being worked on. A file written as one JSON array (0.4.0–0.4.2) is one
 * JSON value and is read whole.
 */
import { createHash } from 'node:crypto';
import { BadInputError } from '../../errors.ts';
import { sha256File } from '../../util/hash.ts';
import { parseOrderedArray } from '../../py/orderedJson.ts';
import { fileChunks } from '../../util/lines.ts';
import { foreignEncoding, readUtf8File, UTF16_ADVICE } from '../../util/utf8.ts';
import type { FileProbe } from '../types.ts';
import type { ChunkJob, ChunkProcessor, ChunkResult } from './samplesChunk.ts';

/** Bytes in a piece: large enough that a piece's fixed costs vanish, small enough to hold a few at once. */
export const PIECE_BYTES = 4 << 20;

/** What every piece of the file is read with; the request type may be settled by the first record. */
export type FileJob = Omit<ChunkJob, 'bytes' | 'firstLine' | 'lines'>;

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
    join(processor.processNodes(job, parseOrderedArray(text, { file: probe.path })));
    return sha256File(probe.path);
  }
  const hash = createHash('sha256');
  let requestType = job.requestType;
  const pending: Promise<ChunkResult>[] = [];
  for await (const { bytes, firstLine, lines } of filePieces(probe.path, (raw) => hash.update(raw))) {
    const piece: ChunkJob = { ...job, requestType, bytes, firstLine, lines };
    // Until a record has said what kind of request the task made, pieces are read here, one at a time.
    if (pool === null || requestType === null) {
      while (pending.length > 0) join(await pending.shift()!);
      const result = processor.process(piece);
      requestType ??= result.requestType;
      join(result);
      continue;
    }
    pending.push(pool.read(piece));
    while (pending.length > pool.parallel) join(await pending.shift()!);
  }
  while (pending.length > 0) join(await pending.shift()!);
  return hash.digest('hex');
}

/** The file's bytes in pieces of whole lines (the last may end without a newline), each with the number of its first line and its count of lines. */
export async function* filePieces(file: string, onRaw?: (bytes: Buffer) => void): AsyncGenerator<{ bytes: Buffer; firstLine: number; lines: number }> {
  let held: Buffer[] = [];
  let heldBytes = 0;
  let line = 1;
  let first = true;
  const piece = (bytes: Buffer) => {
    const firstLine = line;
    for (let i = bytes.indexOf(10); i >= 0; i = bytes.indexOf(10, i + 1)) line++;
    // A last line without its newline is a line too.
    const lines = line - firstLine + (bytes.length > 0 && bytes[bytes.length - 1] !== 10 ? 1 : 0);
    return { bytes, firstLine, lines };
  };
  try {
    for await (const chunk of fileChunks(file, onRaw)) {
      if (first) {
        first = false;
        const foreign = foreignEncoding(chunk.subarray(0, 64));
        if (foreign !== null) throw new BadInputError(`the file is ${foreign}; ${UTF16_ADVICE}`, { file });
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
      yield piece(all.subarray(0, cut));
    }
    if (heldBytes > 0) yield piece(Buffer.concat(held, heldBytes));
  } catch (error) {
    if (error instanceof BadInputError) throw error;
    throw new BadInputError(`cannot read (${(error as Error).message})`, { file }, { cause: error });
  }
}
