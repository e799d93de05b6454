/**
 * Issue 28 §2: as-recorded recomputes loglikelihood_rolling's metrics of an imported lm-eval run from the recorded
 * log-likelihood and the document's words and UTF-8 bytes (lm-eval's process_results), and aggregates them with
 * weighted_perplexity / bits_per_byte. Reference: the real lm-eval 0.4.13 run in fixtures/models/lmeval-reference
 * (gpt2-tiny/extra), whose results file printed the three numbers below.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadSource } from '../../../src/audit/source.ts';
import { rescoreAsRecorded } from '../../../src/score/lmeval/asRecorded.ts';
import { fixturePath } from '../../helpers/fixtures.ts';

test('lambada_rolling (real lm-eval run): word_perplexity, byte_perplexity and bits_per_byte recomputed item for item, aggregates equal the results file', async () => {
  const { store } = await loadSource([fixturePath('models/lmeval-reference/gpt2-tiny/extra')], { skipBad: false, fields: {} });
  const report = await rescoreAsRecorded(store);
  const printed: Record<string, number> = { word_perplexity: 5479248.567678061, byte_perplexity: 17.224179735309832, bits_per_byte: 4.106363374189729 };
  for (const [metric, value] of Object.entries(printed)) {
    const cell = report.cells.find((c) => c.task === 'lambada_rolling' && c.metric === metric)!;
    assert.equal(cell.items.reproduced, 20, metric);
    assert.equal(cell.items.taken_as_recorded, null, metric);
    assert.deepEqual(cell.items.differing, [], metric);
    // Python 3.11's sum() folds left, as lmaudit does here: the same double.
    assert.equal(cell.value, value, metric);
    assert.equal(cell.stderr, 'N/A', metric);
    assert.equal(cell.matches_reported, true, metric);
  }
});
