/**
 * lambada_openai of two gpt2-tiny runs (fixtures/models/lmeval-reference/gpt2-tiny, 0-shot and 2-shot): lm-eval's
 * per-item `perplexity` values are log-likelihoods, and it reports exp(−mean) of them (312507.8 and 274890.8). The
 * paired row printed their means, -12.652… and -12.524… (Python: statistics.mean of the samples files' values),
 * under the name perplexity,none, and nothing said they were not perplexities or that B − A > 0 is a lower one.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadSource } from '../../src/audit/source.ts';
import { diffStores } from '../../src/audit/diff.ts';
import { narrowToTasks } from '../../src/audit/narrow.ts';
import { DEFAULT_PAIRED_OPTIONS } from '../../src/audit/pairedStats.ts';
import { scoreSummary } from '../../src/report/diffText.ts';
import { fixturePath } from '../helpers/fixtures.ts';

test('diff: a perplexity metric says its paired A and B are mean log-likelihoods', async () => {
  const load = async (folder: string) => narrowToTasks((await loadSource([fixturePath(`models/lmeval-reference/gpt2-tiny/${folder}`)], { skipBad: false, fields: {} })).store, ['lambada_openai']);
  const diff = await diffStores(await load('plain'), await load('diff-fewshot2'), { ...DEFAULT_PAIRED_OPTIONS, iterations: 10, examples: 0 });
  const paired = diff.comparisons[0]!.tasks[0]!.paired;
  const ppl = paired.find((p) => p.score === 'perplexity,none')!;
  assert.equal(ppl.result.meanA.toFixed(9), '-12.652384758');
  assert.equal(ppl.result.meanB.toFixed(9), '-12.524129105');
  assert.match(ppl.result.sentence, / A and B are the means of the per-item values, log-likelihoods of the gold continuation, not perplexities: lm-eval reports perplexity as exp\(−mean\) of them, so a positive B − A is a lower perplexity in B\.$/);
  assert.equal(ppl.values, 'mean log-likelihood');
  // The summary line names what moved: a mean log-likelihood up by 0.1283 (the perplexity went down).
  assert.match(scoreSummary(diff.comparisons[0]!.tasks[0]!), /^2 scores differ \(largest first\): perplexity,none \(mean log-likelihood\) B − A = 0\.1283 /);
  // acc is aggregated by its mean: its sentence says nothing more.
  const acc = paired.find((p) => p.score === 'acc,none')!;
  assert.doesNotMatch(acc.result.sentence, /A and B are the means/);
  assert.equal(acc.values, undefined);
});
