import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildPipeline } from '../../../src/score/lmeval/filters.ts';

// lm-eval 0.4.13's RegexFilter with fallback ' [none] ' (scripts/fixtures/make_regex_fallback_cases.py): a selected
// match whose groups are all empty falls back to the fallback stripped; no match at all gives it as written.
const CASES = [
  { pattern: '(A)|(B)?', responses: ['zzz', 'A', '', 'xB'], filtered: ['[none]', 'A', '[none]', '[none]'] },
  { pattern: '(x)', responses: ['zzz', 'x'], filtered: [' [none] ', 'x'] },
];

test("regex filter: a match of empty groups falls back to the stripped fallback, as lm-eval's RegexFilter", () => {
  for (const c of CASES) {
    const apply = buildPipeline({ name: 'r', filter: [{ function: 'regex', regex_pattern: c.pattern, group_select: 0, fallback: ' [none] ' }, { function: 'take_first' }] });
    assert.deepEqual(c.responses.map((r) => apply([r], null)), c.filtered, c.pattern);
  }
});
