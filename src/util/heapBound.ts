/**
 * Holds this thread's JavaScript heap near what it keeps while a long stream runs through it. V8 lets
 * the old generation grow to about twice what survived its last full collection before collecting
 * again: a stream whose rows survive a scavenge or two (DuckDB's chunks of rows, a record's parsed
 * document) leaves hundreds of megabytes of garbage there: as-recorded rescoring of the 2.2 GiB file's
 * store swung between 125 and 465 MB of heap. The process's peak is what the bound is for.
 *
 * A full collection is asked for when the heap has grown `slack` past what the last one kept. V8
 * exposes `gc` only behind a flag: it is set at run time and the function taken from a new context,
 * which is where V8 puts it. Node warns that a flag set at run time may do nothing; then `gc` is
 * absent and the bound does nothing, the stream running as before.
 */
import { getHeapStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

let collect: (() => void) | null | undefined;

function fullCollection(): (() => void) | null {
  if (collect === undefined) {
    setFlagsFromString('--expose-gc');
    const gc: unknown = runInNewContext('typeof gc === "function" ? gc : null');
    collect = typeof gc === 'function' ? (gc as () => void) : null;
  }
  return collect;
}

export class HeapBound {
  private calls = 0;
  private ceiling: number;

  /** `slack`: bytes the heap may grow past what it held at the start or after the last collection. */
  constructor(private readonly slack: number) {
    this.ceiling = getHeapStatistics().used_heap_size + slack;
  }

  /**
   * Once a large piece of work is done with what it held: collects if the heap holds more than half the slack past
   * what the last collection kept. On the 2.2 GiB file's store, as-recorded's 12 cells of 909,854 values were garbage
   * once aggregated, yet 370 MB of heap stayed beside the checks that follow (DuckDB's scans of the whole run, 200-270
   * MB), and the aggregations' arrays took the process from 610 to 890 MiB before any collection ran.
   */
  settle(): void {
    if (getHeapStatistics().used_heap_size <= this.ceiling - this.slack / 2) return;
    fullCollection()?.();
    this.ceiling = getHeapStatistics().used_heap_size + this.slack;
  }

  /** Called once a row: every 1,024 calls, collects if the heap has grown past its ceiling. */
  check(): void {
    if (++this.calls % 1024 !== 0 || getHeapStatistics().used_heap_size <= this.ceiling) return;
    const gc = fullCollection();
    if (gc === null) return;
    gc();
    this.ceiling = getHeapStatistics().used_heap_size + this.slack;
  }
}
