/**
 * A percentile bootstrap excludes 0 whenever a handful of differences share a sign: HELM's BBQ runs of Claude 3.5
 * Sonnet and GPT-4o (fixtures/helm, two instances) printed num_prompt_tokens "B − A = -14.5 … [-16, -13] …
 * distinguishable: yes" at n = 2. No two-sided test at 5% can say that of two items: the exact sign test's smallest
 * p is 2 · 0.5² = 0.5 (McNemar, the same test on 0/1 scores, already said p = 0.5 for the finish_reason fields there).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { decodedFixture } from '../helpers/fixtures.ts';
import { loadSource } from '../../src/audit/source.ts';
import { diffStores } from '../../src/audit/diff.ts';
import { pairedComparison } from '../../src/audit/pairedStats.ts';

const bbq = (model: string) => decodedFixture('helm', `stanford-crfm-helm/benchmark_output_TRUE_latest/runs/v3/bbq:subject=all,method=multiple_choice_joint,model=${model}`);

test('two items whose differences share a sign are not distinguishable from noise', async () => {
  const options = { skipBad: false, fields: {} };
  const [a, b] = [await loadSource([bbq('anthropic_claude-3-5-sonnet-20240620')], options), await loadSource([bbq('openai_gpt-4o-2024-05-13')], options)];
  const d = await diffStores(a.store, b.store, { iterations: 2000 });
  const tokens = d.comparisons[0]!.tasks[0]!.paired.find((p) => p.score === 'field:num_prompt_tokens,split=test')!.result;
  assert.deepEqual([tokens.n, tokens.difference, tokens.ci], [2, -14.5, [-16, -13]]);
  assert.equal(tokens.distinguishable, false);
  assert.equal(
    tokens.sentence,
    "The difference (B − A = -14.5) is not distinguishable from noise at n = 2: the paired bootstrap 95% interval [-16.0, -13.0] excludes 0, but only 2 item(s) differ, too few for any two-sided test at 0.05: the exact sign test's smallest p on them is 0.5.",
  );
});

test('six differing items of one sign can be (2 · 0.5⁶ = 0.031 < 0.05); five cannot (0.0625)', () => {
  const zeros = (k: number) => new Array<number>(k).fill(0);
  const six = pairedComparison(zeros(6), [0.5, 0.7, 0.2, 0.9, 0.4, 0.6]);
  assert.equal(six.distinguishable, true);
  const five = pairedComparison(zeros(5), [0.5, 0.7, 0.2, 0.9, 0.4]);
  assert.ok(five.ci[0] > 0, 'the bootstrap interval alone excludes 0');
  assert.equal(five.distinguishable, false);
  // Identical items (difference 0) carry no sign: five differing among 40 are still five.
  assert.equal(pairedComparison(zeros(40), [...zeros(35), 0.5, 0.7, 0.2, 0.9, 0.4]).distinguishable, false);
});

test('table interactions: three items that move alike are not distinguishable, though their interval is [1, 1]', async () => {
  const { interactionsOf } = await import('../../src/audit/tableInteractions.ts');
  const part = (text: string) => ({ field: 'fewshot.count', text });
  // Under reading 0 the change adds 1 on each item, under reading 1 nothing: d = 1, 1, 1; sd 0, so the closed-form
  // interval is [1, 1]; the sign test's smallest p on 3 items is 0.25.
  const a = { label: '0-shot', parts: [part('0-shot')], items: new Map([['1', [0, 0]], ['2', [0, 0]], ['3', [0, 0]]]) };
  const b = { label: '5-shot', parts: [part('5-shot')], items: new Map([['1', [1, 0]], ['2', [1, 0]], ['3', [1, 0]]]) };
  const [x] = interactionsOf([a, b], ['r0', 'r1']);
  assert.deepEqual([x!.n, x!.difference, x!.ci95], [3, 1, [1, 1]]);
  assert.equal(x!.distinguishable, false);
});
