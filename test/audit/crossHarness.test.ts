/**
 * Inspect vs lm-eval on the same item. The Inspect log is real (mmlu-summary-choices.eval:
 * gpt-4o on one college-physics question); the lm-eval side is a 0.4.x samples record
 * for the same question, built here from the shipped MMLU data (cais/mmlu college_physics
 * test doc 100), because no real lm-eval run of that question exists in the data.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadSource } from '../../src/audit/source.ts';
import { diffStores } from '../../src/audit/diff.ts';
import { repoRoot } from '../helpers/cli.ts';
import { externalFixture } from '../helpers/fixtures.ts';

const sha = (s: string) => createHash('sha256').update(s).digest('hex');

function lmevalSamples(): string {
  const lines = readFileSync(join(repoRoot, 'fixtures/benchmarks/cais/mmlu/college_physics/test.jsonl'), 'utf8').split('\n');
  const doc = JSON.parse(lines[100]!) as { question: string; choices: string[]; answer: number };
  assert.match(doc.question, /^Positronium is an atom/);
  const prompt = `The following are multiple choice questions (with answers) about college physics.\n\n${doc.question}\nA. ${doc.choices[0]}\nB. ${doc.choices[1]}\nC. ${doc.choices[2]}\nD. ${doc.choices[3]}\nAnswer:`;
  const lls = ['-2.5', '-1.25', '-0.5', '-3.0'];
  const record = {
    doc_id: 100,
    doc,
    target: String(doc.answer),
    arguments: Object.fromEntries(['A', 'B', 'C', 'D'].map((l, i) => [`gen_args_${i}`, { arg_0: prompt, arg_1: ` ${l}` }])),
    resps: lls.map((ll, i) => [[ll, i === 2 ? 'True' : 'False']]),
    filtered_resps: lls.map((ll, i) => [ll, i === 2 ? 'True' : 'False']),
    filter: 'none',
    metrics: ['acc'],
    doc_hash: sha(JSON.stringify(doc, null, 2)),
    prompt_hash: sha(prompt),
    target_hash: sha(String(doc.answer)),
    acc: doc.answer === 2 ? 1.0 : 0.0,
  };
  const dir = mkdtempSync(join(tmpdir(), 'lmaudit-cross-'));
  const file = join(dir, 'samples_mmlu_college_physics_2025-01-01T00-00-00.000000.jsonl');
  writeFileSync(file, `${JSON.stringify(record)}\n`);
  return file;
}

test('Inspect log vs lm-eval record: items align on the question text, and the settings table says what each harness recorded', async () => {
  const inspect = await loadSource([externalFixture('inspect/mmlu-summary-choices.eval')], { skipBad: false, fields: {} });
  const lmeval = await loadSource([lmevalSamples()], { skipBad: false, fields: {} });
  const diff = await diffStores(inspect.store, lmeval.store, { iterations: 200 });
  const task = diff.comparisons[0]!.tasks[0]!;
  // Each harness hashes and numbers its own way: only the shared question text pairs the items.
  assert.equal(task.items!.key, 'doc_text');
  assert.equal(task.items!.shared, 1);
  assert.deepEqual([task.items!.pairsByKey.doc_hash, task.items!.pairsByKey.doc_id], [0, 0]);
  const harness = diff.comparisons[0]!.tasks[0]!.settings;
  const verdicts = new Map(harness.items.flatMap((i) => i.fields.map((f) => [`${i.item}.${f.field}`, f.verdict])));
  // What one harness recorded and the other did not is 'unknown in …', never guessed equal.
  assert.equal(verdicts.get('harness.name'), 'differs');
  assert.equal(verdicts.get('harness.commit'), 'unknown in B'); // Inspect records its git commit; a samples file does not
  assert.equal(verdicts.get('repeats.reducer'), 'unknown in B'); // Inspect's epoch reducer has no lm-eval counterpart here
  assert.equal(verdicts.get('fewshot.count'), 'unknown in both');
  assert.equal(verdicts.get('samples.document_count'), 'same'); // one item each
  assert.equal(verdicts.get('samples.document_ids'), 'differs'); // Inspect's sample 1 is lm-eval's doc 100
});
