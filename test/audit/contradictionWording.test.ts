/**
 * A record that contradicts itself without any samples: Llama-3-8B-Instruct's gsm8k_cot_llama results and the 3.1-70B
 * gsm8k_judge_2 results (lm-eval PR #2251, fixtures/external; results only, their samples were never committed) both
 * say fewshot_as_multiturn true with chat_template null. The diff's settings table said "samples contradict the record"
 * of runs that have no samples; the configured-vs-used check read the results files alone.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadSource } from '../../src/audit/source.ts';
import { diffStores } from '../../src/audit/diff.ts';
import { diffLines } from '../../src/report/diffText.ts';
import { externalFixture } from '../helpers/fixtures.ts';

test('diff of two results-only runs: the contradiction is called configured vs used, not the samples', async () => {
  const dir = externalFixture('lm-evaluation-harness/pr2251-gsm8k-resps');
  const OPTIONS = { skipBad: false, fields: {} };
  const A = await loadSource([`${dir}/meta-llama__Meta-Llama-3-8B-Instruct`], OPTIONS);
  const B = await loadSource([`${dir}/meta-llama__Meta-Llama-3.1-70B-Instruct`], OPTIONS);
  const d = await diffStores(A.store, B.store, { iterations: 10 });
  assert.equal(d.comparisons[0]!.tasks[0]!.items, null, 'no per-item samples on either side');
  const row = diffLines(d, null).find((l) => l.startsWith('chat_template '))!;
  assert.match(row, /contradicts .* configured vs used disagree: A: multiturn_without_template: configured true, used chat template null; B: multiturn_without_template: configured true, used chat template null$/);
  assert.ok(!diffLines(d, null).some((l) => l.includes('samples contradict')));
});
