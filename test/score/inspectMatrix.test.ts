import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadSource } from '../../src/audit/source.ts';
import { computeMatrix } from '../../src/score/matrix.ts';
import { fixturePath } from '../helpers/fixtures.ts';

test("an Inspect log's matrix reads it with its own scorer beside lm-eval's readings; that cell is the log's own accuracy and stderr", async () => {
  const log = fixturePath('inspect/logs/2025-02-11T15-18-04-05-00_popularity_mj7khqpMM4GBCfVQozKgzB.eval');
  const { store } = await loadSource([log], { skipBad: false, fields: {} });
  const [scope] = await computeMatrix(store, {});
  assert.deepEqual(scope!.sweep.extractors.slice(0, 1), ['inspect-match']);
  assert.equal(scope!.sweep.normalizers[0], 'none');
  const own = scope!.cells.find((c) => c.extractor === 'inspect-match' && c.normalizer === 'none' && c.aggregation === 'micro')!;
  // results.scores[0].metrics of the log: accuracy 0.8, stderr 0.13333333333333333 (Inspect's own numbers).
  const reported = store.manifest.runs[0]!.reported;
  assert.deepEqual(reported, { popularity: { 'accuracy,match': 0.8, 'stderr,match': 0.13333333333333333 } });
  assert.equal(own.score, 0.8);
  assert.ok(Math.abs(own.stderr! - 0.13333333333333333) < 1e-15);
  // lm-eval's exact_match normalisation (no strip) reads the same answers differently.
  const lmeval = scope!.cells.find((c) => c.extractor === 'exact' && c.normalizer === 'lm-eval-exact-match' && c.aggregation === 'micro')!;
  assert.equal(lmeval.score, 0);
});
