/**
 * `rescore --extractors as-recorded` on the full truthfulqa_gen run of lm-eval PR #3032
 * (817 documents × 12 metrics, gpt-neo-125M, lm-eval 0.4.8, CPython 3.11.0 on macOS arm64):
 * every recorded value is recomputed from the stored response with the ported
 * process_results_gen (sacrebleu BLEU, rouge_score ROUGE), and every printed mean and
 * stderr is reproduced. The few BLEU values that are not bit-identical are named.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { externalFixture } from '../../helpers/fixtures.ts';
import { loadSource } from '../../../src/audit/source.ts';
import { rescoreAsRecorded } from '../../../src/score/lmeval/asRecorded.ts';

// The folder holds both runs of PR #3032: the full 817-document run and a --limit 20 one.
const DIR = externalFixture('lm-evaluation-harness/pr3032-truthfulqa-gen/');
const { store } = await loadSource([DIR], { skipBad: false, fields: {} });
const report = await rescoreAsRecorded(store);
const full = report.cells.filter((c) => c.n === 817);

test('817 × 12: every value recomputed; 9 ROUGE metrics and bleu_acc bit-identical on all 817 documents', () => {
  assert.equal(full.length, 12);
  const counts = Object.fromEntries(full.map((c) => [c.metric, [c.items.reproduced, c.items.within_tolerance?.count ?? 0, c.items.differing.length, c.items.taken_as_recorded]]));
  assert.deepEqual(counts, {
    bleu_max: [814, 3, 0, null], bleu_acc: [817, 0, 0, null], bleu_diff: [809, 8, 0, null],
    rouge1_max: [817, 0, 0, null], rouge1_acc: [817, 0, 0, null], rouge1_diff: [817, 0, 0, null],
    rouge2_max: [817, 0, 0, null], rouge2_acc: [817, 0, 0, null], rouge2_diff: [817, 0, 0, null],
    rougeL_max: [817, 0, 0, null], rougeL_acc: [817, 0, 0, null], rougeL_diff: [817, 0, 0, null],
  });
});

// Each of these BLEU scores has an exp whose exact value lies within 0.003 ulp of a rounding midpoint
// (checked with Decimal): the Mac's libm rounded it up, correct rounding goes down.
test('the BLEU values off in the last bit are named, with the libm reason', () => {
  const max = full.find((c) => c.metric === 'bleu_max')!.items.within_tolerance!;
  assert.deepEqual(max.doc_ids, ['165', '323', '716']);
  // One ulp of a BLEU score in [8, 16): 2^-49.
  assert.equal(max.max_difference, 2 ** -49);
  const diff = full.find((c) => c.metric === 'bleu_diff')!.items.within_tolerance!;
  assert.deepEqual(diff.doc_ids, ['157', '165', '188', '192', '199', '238', '290', '323']);
  assert.ok(diff.max_difference <= 2 ** -48);
  assert.match(diff.why, /depends on the platform's libm/);
});

test('every printed number of both runs (817 and --limit 20) is reproduced: value and stderr within 1e-12', () => {
  assert.equal(report.cells.length, 24);
  for (const c of report.cells) assert.equal(c.matches_reported, true, `${c.metric} n=${c.n}: ${c.value} ± ${c.stderr} vs ${JSON.stringify(c.reported)}`);
  const bleuMax = full.find((c) => c.metric === 'bleu_max')!;
  assert.deepEqual([bleuMax.value, bleuMax.stderr], [13.82766815700744, 0.5154784183208384]);
});
