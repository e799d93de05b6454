/**
 * lm-eval's request semantics over token ids. Expected values are lm-eval 0.4.13's own functions
 * run in CPython (get_rolling_token_windows + make_disjoint_window, postprocess_generated_text's
 * split loop, _encode_pair's str.rstrip move), copied here from that run.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cutAtStops, encodePair, loglikelihoodInput, rollingWindows, stopSequences, type TokenCodec } from '../../src/models/lmevalRequests.ts';

const pairs = (w: ReturnType<typeof rollingWindows>) => w.map((x) => [x.context, x.continuation]);

test('rolling windows: lm-eval\'s windows and their disjoint form', () => {
  const range = (a: number, b: number) => Array.from({ length: b - a + 1 }, (_, i) => a + i);
  assert.deepEqual(pairs(rollingWindows(range(1, 10), 0, 4)), [[[0], [1, 2, 3, 4]], [[4], [5, 6, 7, 8]], [[6, 7, 8], [9, 10]]]);
  assert.deepEqual(pairs(rollingWindows(range(1, 4), 0, 4)), [[[0], [1, 2, 3, 4]]]);
  assert.deepEqual(pairs(rollingWindows(range(1, 5), 0, 4)), [[[0], [1, 2, 3, 4]], [[1, 2, 3, 4], [5]]]);
  assert.deepEqual(pairs(rollingWindows(range(1, 13), 0, 5)), [[[0], [1, 2, 3, 4, 5]], [[5], [6, 7, 8, 9, 10]], [[8, 9, 10], [11, 12, 13]]]);
  assert.deepEqual(pairs(rollingWindows([7], 0, 3)), [[[0], [7]]]);
  assert.deepEqual(rollingWindows([], 0, 3), []);
});

test('stop strings: each splits in turn, as postprocess_generated_text does (not the earliest of all)', () => {
  assert.equal(cutAtStops('xbcd', ['cd', 'bc']), 'xb');
  assert.equal(cutAtStops('a\n\nQuestion: b', ['Question:', '\n\n']), 'a');
  assert.equal(cutAtStops('abc', ['', 'c']), 'ab');
  assert.deepEqual(stopSequences(['\n\n'], '<|endoftext|>'), ['\n\n', '<|endoftext|>']);
  assert.deepEqual(stopSequences(['<|endoftext|>'], '<|endoftext|>'), ['<|endoftext|>']);
});

/** A codec whose tokens are characters, with an optional BOS (id 0), so the split is visible. */
const chars = (bos: boolean): TokenCodec & { calls: Array<[string, boolean | undefined]> } => {
  const calls: Array<[string, boolean | undefined]> = [];
  return {
    calls,
    encode(text, special) {
      calls.push([text, special]);
      const ids = [...text].map((c) => c.codePointAt(0)!);
      return bos && special !== false ? [0, ...ids] : ids;
    },
  };
};

test('(context, continuation): trailing Python whitespace moves to the continuation; the whole is split at the context length', () => {
  const codec = chars(true);
  const { context, continuation } = encodePair(codec, 'Answer: \t', 'yes', 0);
  assert.deepEqual(codec.calls, [['Answer: \tyes', undefined], ['Answer:', undefined]]);
  assert.deepEqual(context, [0, ...[...'Answer:'].map((c) => c.codePointAt(0))]);
  assert.deepEqual(continuation, [...' \tyes'].map((c) => c.codePointAt(0)));
  // U+3000, U+2028 and U+001C are whitespace to str.rstrip.
  assert.deepEqual(encodePair(chars(false), 'a\u3000\u2028\u001c', 'b', 0).continuation, [0x3000, 0x2028, 0x1c, 0x62]);
});

test('an empty context becomes the prefix token, unless the continuation starts with it', () => {
  assert.deepEqual(encodePair(chars(false), '', 'ab', 50256), { context: [50256], continuation: [97, 98] });
  assert.deepEqual(encodePair(chars(false), '', 'ab', 97), { context: [97], continuation: [98] });
});

test('the loglikelihood input is (context + continuation)[-(max_length+1):][:-1]', () => {
  assert.deepEqual(loglikelihoodInput([1, 2, 3], [4, 5], 8), { input: [1, 2, 3, 4], truncated: 0 });
  assert.deepEqual(loglikelihoodInput([1, 2, 3, 4, 5], [6, 7], 4), { input: [3, 4, 5, 6], truncated: 2 });
});
