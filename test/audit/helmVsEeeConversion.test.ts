/**
 * A HELM run against EEE's conversion of it (fixtures/eee/instance-0.2.1-helm-converter: the same ten MMLU
 * philosophy items of gpt2, whose input.raw is HELM's request.prompt byte for byte). Before: the items never
 * joined (HELM's doc_hash is the bare question's, EEE's the whole prompt's, and doc_id is not tried across
 * harnesses), so the falsifier said "the documents differ (0 shared, 10 only in A, 10 only in B)"; the EEE prompts'
 * five shared examples, counted as template text, were "0 visible" against HELM's recorded 5 and a violation; and
 * ten equal " D" answers were "Responses that differ: 10 of 10" because only HELM recorded a log-probability.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { decodedFixture, fixturePath } from '../helpers/fixtures.ts';
import { runCli } from '../helpers/cli.ts';

test('HELM vs its EEE conversion: every item pairs on the prompt, no response differs, no few-shot or document violation', () => {
  const helm = join(decodedFixture('helm'), 'evaleval-every_eval_ever/tests/data/helm/mmlu:subject=philosophy,method=multiple_choice_joint,model=openai_gpt2');
  const eee = fixturePath('eee/instance-0.2.1-helm-converter/None/mmlu/openai/gpt2/None_samples.jsonl');
  const r = runCli(['diff', helm, eee]);
  assert.equal(r.status, 0, r.stderr);
  const lines = r.stdout.split('\n');
  assert.ok(lines.includes('  10 shared, 0 only in A, 0 only in B.'), r.stdout);
  assert.ok(lines.includes('  Prompts that differ byte-wise: 0 of 10. Responses that differ: 0 of 10.'), r.stdout);
  assert.ok(lines.some((l) => /^fewshot +unknown +the few-shot count unknown in B$/.test(l)), r.stdout);
  assert.ok(lines.some((l) => /^documents +unknown +the limit unknown in B$/.test(l)), r.stdout);
  assert.ok(lines.some((l) => /^prompts +holds +agree$/.test(l)), r.stdout);
  assert.ok(lines.some((l) => /^fewshot_count +ok: 5 +unknown: 0 to 6$/.test(l)), r.stdout);
});
