/**
 * A piece's rows for one store table, as UTF-8 in memory of their own (samplesChunk.ts fills one a table).
 */

export const EMPTY = new Uint8Array(0);

const OF_ANY_KIND: unknown[] = [''].slice(1);

/**
 * An empty array V8 already takes to hold any value. One made by `[]` starts as an array of small
 * integers and changes kind at the first string or object pushed: the arrays a piece makes afresh
 * then met the code compiled for the first piece's (changed) arrays, which V8 threw away and compiled
 * again ("wrong map", "not a Smi" in --trace-deopt), several times a thread.
 */
export function listOfAny<T>(): T[] {
  return OF_ANY_KIND.slice() as T[];
}

/** The first memory a table's rows get when no spare is at hand (mapped as it is written, so an unused part costs nothing). */
export const ROWS_FIRST_BYTES = 1 << 20;

/**
 * Row text encoded as UTF-8 as each record's rows are made, into memory of its own that is handed
 * to the joining thread (not copied). Encoding at once, rather than joining a piece's rows at its
 * end, lets a line's text (which its rows' slices would hold) die young: kept for a whole piece,
 * every line outlived the young generation and was promoted, marked and compacted.
 * `length` is the text's length so far in bytes.
 */
export class RowBytes {
  private buffer: Buffer | null = null;
  length = 0;
  /** Memory the rows outgrew (its text copied on), free to be written again. */
  readonly outgrown: ArrayBuffer[] = listOfAny();

  /** `source` gives memory of at least the bytes asked for (an object, not a closure: a closure made a piece would be another call target each piece, which compiled code does not expect). */
  constructor(private readonly source: { memory(bytes: number): Buffer }) {}

  /** Adds one row's (or several rows') pieces (`ascii`: known to be ASCII); returns their length in UTF-16 units. */
  add(pieces: readonly string[], ascii: boolean): number {
    if (pieces.length === 0) return 0;
    const text = pieces.length === 1 ? pieces[0]! : pieces.join('');
    // At most three bytes a UTF-16 unit (one when ASCII).
    const most = this.length + (ascii ? 1 : 3) * text.length;
    if (this.buffer === null || most > this.buffer.length) {
      const grown = this.source.memory(Math.max(most, 2 * (this.buffer?.length ?? 0)));
      if (this.buffer !== null) {
        this.buffer.copy(grown, 0, 0, this.length);
        this.outgrown.push(this.buffer.buffer as ArrayBuffer);
      }
      this.buffer = grown;
    }
    this.length += this.buffer.write(text, this.length, ascii ? 'latin1' : 'utf8');
    return text.length;
  }

  /** The text as UTF-8: a view of the whole memory, handed over as it is. */
  bytes(): Uint8Array {
    return this.length === 0 || this.buffer === null ? EMPTY : new Uint8Array(this.buffer.buffer, 0, this.length);
  }
}
