/**
 * EEE's answer_attribution says which value was extracted from which output. A log-likelihood item generates no
 * text (output.raw is []): the export wrote its first filtered response, lm-eval's (log-likelihood, is_greedy) of
 * choice 0, as extracted from output.raw. arc_easy doc 0 of the gpt2-tiny fixture run read
 * `extracted_value: '["-131.59622192382812","False"]'` while the model's pick was choice 3 (-86.05): no answer of
 * it. Such an item now has no attribution; its choices' log-likelihoods stay in metadata.logprobs.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fixturePath } from '../helpers/fixtures.ts';
import { runCli } from '../helpers/cli.ts';

test('EEE export: a log-likelihood item has no answer attribution; a generated one keeps its extraction', () => {
  const out = join(mkdtempSync(join(tmpdir(), 'eee-ll-')), 'eee');
  const r = runCli(['export', fixturePath('models/lmeval-reference/gpt2-tiny/plain'), '--format', 'eee', '--out', out]);
  assert.equal(r.status, 0, r.stderr);
  const folders = readdirSync(join(out, 'data')).map((benchmark) => join(out, 'data', benchmark, 'hf/gpt2-tiny'));
  const records = folders.flatMap((folder) => readdirSync(folder).filter((f) => f.endsWith('_samples.jsonl')).flatMap((f) => readFileSync(join(folder, f), 'utf8').split('\n').filter((l) => l !== '').map((l) => JSON.parse(l))));
  const arc = records.find((x) => x.evaluation_result_id === 'arc_easy/acc,none' && x.sample_id === '0');
  assert.deepEqual(arc.output, { raw: [] });
  assert.deepEqual(arc.answer_attribution, []);
  // The samples file's filtered_resps of doc 0, as [request_idx, log-likelihood, is_greedy].
  // [request_idx, log-likelihood, is_greedy, continuation]: lm-eval's samples file's resps and arguments for doc 0.
  assert.equal(arc.metadata.logprobs, '[[0,-131.59622192382812,false," Sunlight is the source of energy for nearly all ecosystems."],[1,-121.14139556884766,false," Most ecosystems are found on land instead of in water."],[2,-101.10962677001953,false," Carbon dioxide is more available than other gases."],[3,-86.05464935302734,false," The producers in all ecosystems are plants."]]');
  assert.ok(records.filter((x) => x.evaluation_name === 'lambada_openai' || x.evaluation_name === 'arc_easy').every((x) => x.answer_attribution.length === 0));
  // gsm8k generated text: its strict-match extraction stays (the samples file's filtered_resps of doc 0: "[invalid]").
  const gsm = records.find((x) => x.evaluation_result_id === 'gsm8k/exact_match,strict-match' && x.sample_id === '0');
  assert.deepEqual(gsm.answer_attribution, [{ turn_idx: 0, source: 'output.raw', extracted_value: '[invalid]', extraction_method: 'strict-match', is_terminal: true }]);
});
