/**
 * Memory a samples import hands round instead of allocating again: the buffers a piece was
 * read into and its rows written to come back once the piece is joined (its rows written to
 * their files), and the next pieces are read and written into them. Fresh memory costs a page
 * fault a page the first time it is written; for a 248 MiB file, half a GiB of it.
 */
import type { ChunkResult } from './chunkResult.ts';

/** The most buffers kept (a piece uses about six: its bytes and five tables' rows). */
const MOST_KEPT = 16;

export class SpareMemory {
  private readonly buffers: ArrayBuffer[] = [];

  /** A buffer of at least `bytes`, or null (then the caller allocates). */
  take(bytes: number): ArrayBuffer | null {
    let best = -1;
    for (let i = 0; i < this.buffers.length; i++) {
      const size = this.buffers[i]!.byteLength;
      if (size >= bytes && (best < 0 || size < this.buffers[best]!.byteLength)) best = i;
    }
    return best < 0 ? null : this.buffers.splice(best, 1)[0]!;
  }

  /** Up to `n` buffers, the largest first, for a piece's rows. */
  takeSome(n: number): ArrayBuffer[] {
    this.buffers.sort((a, b) => b.byteLength - a.byteLength);
    return this.buffers.splice(0, n);
  }

  /** A joined piece's memory: its bytes, its rows (written by now) and the spares it did not use. */
  giveBack(result: ChunkResult): void {
    for (const b of [...result.spent, result.instances.buffer, result.responses.buffer, result.scores.buffer, result.filtered.buffer, result.hashes.buffer]) {
      if (b.byteLength < 1 << 16 || this.buffers.includes(b as ArrayBuffer)) continue;
      this.buffers.push(b as ArrayBuffer);
    }
    if (this.buffers.length > MOST_KEPT) {
      this.buffers.sort((a, b) => b.byteLength - a.byteLength);
      this.buffers.length = MOST_KEPT;
    }
  }
}
