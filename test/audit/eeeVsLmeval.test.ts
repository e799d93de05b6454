/**
 * An lm-eval run against its own EEE conversion (fixtures/eee/lmeval-converted, made by EEE's lm-eval
 * converter from fixtures/eee/converter-inputs/lm_eval): the settings the converter renamed compare by meaning
 * (harness, backend, revision, generation kwargs, stop sequences), the items align on lm-eval's doc_hash
 * (which the converter keeps in metadata), prompts and responses are the same bytes, and the recorded
 * per-item scores pair under lm-eval's metric and filter name.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fixturePath } from '../helpers/fixtures.ts';
import { runCli } from '../helpers/cli.ts';

test('lmaudit diff: an lm-eval run vs its EEE conversion — only where the records are differs; every item aligned and the same', () => {
  const r = runCli(['diff', fixturePath('eee/converter-inputs/lm_eval'), fixturePath('eee/lmeval-converted')]);
  assert.equal(r.status, 0, r.stderr);
  const lines = r.stdout.split('\n');
  // Run level: only the record files differ (the lm-eval run's files vs the EEE files); per task, no setting differs.
  assert.ok(lines.includes('  …/lm_eval/results_2026-01-21T03-44-18.458309.json vs …/mem_Qwen3-93M_minerva_math_rep_0_sbst_1.0000_epch_1_ot_1/1796517907.676485: run level differs: records.files'), r.stdout);
  assert.ok(lines.includes('    math_perturbed_full: no task setting differs; falsifier unknown; exact_match,none B − A = 0 (not distinguishable at n = 10); the other 6 paired scores are equal too'), r.stdout);
  // The prompts are byte-identical, so the prompt as sent is a text both hold: 10 pairs by it too (doc_hash wins the tie).
  assert.ok(lines.includes('Items: joined on doc_hash (pairs by doc_hash 10, by content 0, by a shared text 10, not by doc_id (two harnesses number documents each their own way)).'), r.stdout);
  assert.ok(lines.includes('  10 shared, 0 only in A, 0 only in B.'));
  assert.ok(lines.includes('  Prompts that differ byte-wise: 0 of 10. Responses that differ: 0 of 10.'));
  assert.ok(lines.some((l) => /^exact_match,none +10 +0 +0 +0 +\[0, 0\] +0\/0, p=1 +no$/.test(l)), r.stdout);
  assert.ok(lines.some((l) => /^generation +holds +agree$/.test(l)), 'generation settings agree once the converter\'s renaming is undone');
});
