/** XXH64 against Python's xxhash.xxh64(...).hexdigest() (values computed with xxhash in the lm-eval venv). */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { xxh64 } from '../../src/util/xxh64.ts';

test('xxh64 gives what Python xxhash gives: empty, short, one 32-byte stripe and more, UTF-8', () => {
  assert.equal(xxh64(''), 'ef46db3751d8e999');
  assert.equal(xxh64('a'), 'd24ec4f1a98c6e5b');
  assert.equal(xxh64('hello world'), '45ab6734b21e6968');
  assert.equal(xxh64('x'.repeat(33)), 'b3fa465f554208a6');
  assert.equal(xxh64('The quick brown fox jumps over the lazy dog, twice over: Ünïcödé ✓'), '00c8cb996b254d2d');
});
