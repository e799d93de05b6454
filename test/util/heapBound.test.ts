/** Issue 27 §2: as-recorded rescoring holds the JavaScript heap near what it keeps (HeapBound), not V8's twice that. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { getHeapStatistics } from 'node:v8';
import { HeapBound } from '../../src/util/heapBound.ts';

const MB = 1 << 20;
const used = () => getHeapStatistics().used_heap_size;

test('a heap grown past its slack is collected at the next 1,024th check, and a heap within it is not checked in between', () => {
  const bound = new HeapBound(16 * MB);
  // 64 MB of garbage V8 has no reason to collect yet: arrays of doubles (on the heap), too large for the young generation.
  let garbage: number[][] | null = Array.from({ length: 8 }, () => new Array<number>(MB).fill(0.5));
  const grown = used();
  garbage = null;
  assert.equal(garbage, null);
  // The first 1,023 checks only count; the 1,024th finds the heap 64 MB past its ceiling and collects.
  for (let i = 0; i < 1023; i++) bound.check();
  const beforeCollection = used();
  bound.check();
  const after = used();
  assert.ok(grown - after > 48 * MB, `heap ${grown} -> ${after} bytes: the 64 MB of garbage was not collected`);
  assert.ok(beforeCollection - after > 48 * MB, `heap ${beforeCollection} -> ${after} bytes: collected before the 1,024th check`);
});

test('a bound collects again only once the heap has grown its slack past what the last collection kept', () => {
  const bound = new HeapBound(256 * MB);
  const keep: number[][] = [];
  for (let i = 0; i < 4; i++) keep.push(Array.from({ length: 100_000 }, (_, j) => j + 0.5));
  const before = used();
  for (let i = 0; i < 1024; i++) bound.check();
  // Nothing near 256 MB was allocated: no collection, so what was allocated since is still counted.
  assert.ok(used() >= before - MB, `heap ${before} -> ${used()}: a collection ran within the slack`);
  assert.equal(keep.length, 4);
});
