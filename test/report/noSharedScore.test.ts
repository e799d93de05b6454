/**
 * Two runs whose items are joined but share no score name: boolq-seq2seq (fixtures/lmeval/bigrefactor-2023-06,
 * exact_match,none) against asdiv (fixtures/lmeval/pr2236-asdiv/asdiv, acc,none), paired by position. The summary
 * said "no per-item samples" (both runs have them), and the paired note "paired statistics use only the 16 shared
 * items" above no paired statistics at all. The two tasks read other datasets, so no item is shared either: their
 * doc_ids are each dataset's own index (joined on them, boolq's 16 were "shared" with asdiv's first 16).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadSource } from '../../src/audit/source.ts';
import { diffStores } from '../../src/audit/diff.ts';
import { DEFAULT_PAIRED_OPTIONS } from '../../src/audit/pairedStats.ts';
import { scoreSummary } from '../../src/report/diffText.ts';
import { fixturePath } from '../helpers/fixtures.ts';

test('diff: items joined with no score in common say so, not "no per-item samples"', async () => {
  const a = await loadSource([fixturePath('lmeval/bigrefactor-2023-06')], { skipBad: false, fields: {} });
  const b = await loadSource([fixturePath('lmeval/pr2236-asdiv/asdiv')], { skipBad: false, fields: {} });
  const t = (await diffStores(a.store, b.store, { ...DEFAULT_PAIRED_OPTIONS, iterations: 10, examples: 0 })).comparisons[0]!.tasks[0]!;
  assert.equal(t.items?.shared, 0);
  assert.equal(t.items?.docIdNotTried, 'the two tasks read other datasets, each numbering its own');
  assert.deepEqual(t.paired, []);
  assert.equal(scoreSummary(t), 'no per-item score under the same metric and filter in both runs');
  assert.equal(t.pairedNote, 'the two runs record no per-item score under the same metric and filter (and the item sets differ: 16 only in A, 50 only in B)');
});
