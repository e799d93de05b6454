import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { buildPipeline } from '../../../src/score/lmeval/filters.ts';

// lm-eval 0.4.13's own MultiChoiceRegexFilter on these responses (scripts/fixtures/make_multi_choice_regex_cases.py).
// 0.4.13 tries the choice texts longest first, so 'Guilty' no longer shadows 'Guilty of Romance'; an empty match
// (a choice that normalises to '') is no match, and a matched text is turned into its letter.
const cases = JSON.parse(readFileSync(new URL('./reference/multi_choice_regex_cases.json', import.meta.url), 'utf8')) as {
  kwargs: Record<string, unknown>;
  choices: string[];
  responses: string[];
  filtered: string[];
}[];

test("multi_choice_regex reads the responses as lm-eval 0.4.13's filter does", () => {
  for (const c of cases) {
    const apply = buildPipeline({ name: 'mcq', filter: [{ function: 'multi_choice_regex', ...c.kwargs }, { function: 'take_first' }] });
    assert.deepEqual(c.responses.map((r) => apply([r], { choices: c.choices })), c.filtered, JSON.stringify(c.choices));
  }
});

test('multi_choice_regex before lm-eval 0.4.13 tried the choice texts in choice order', () => {
  const apply = buildPipeline({ name: 'mcq', filter: [{ function: 'multi_choice_regex', regex_pattern: '\\(([A-D])\\)', ignore_case: true, ignore_punctuation: true }, { function: 'take_first' }] }, { multiChoiceLongestFirst: false });
  // 0.4.12's alternation 'guilty|guilty of romance|…' matches 'guilty' first inside 'guilty of romance'.
  assert.equal(apply(['I think it is guilty of romance.'], { choices: ['Guilty', 'Guilty of Romance', 'Innocent', 'Not guilty'] }), '(A)');
});
