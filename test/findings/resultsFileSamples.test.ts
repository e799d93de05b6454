/**
 * Issue 15 part 2, "a results-file path drops its samples": naming an lm-eval results
 * file reads the samples files a folder import pairs with it, and says so.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../helpers/cli.ts';

const ASDIV_A = 'fixtures/lmeval/pr2236-asdiv/asdiv/meta-llama__Meta-Llama-3-8B-Instruct';
const ASDIV_B = 'fixtures/lmeval/pr2236-asdiv/asdiv_cot/meta-llama__Meta-Llama-3-8B-Instruct';
const RESULTS_A = `${ASDIV_A}/results_2024-08-21T03-44-09.494230.json`;
const RESULTS_B = `${ASDIV_B}/results_2024-08-21T03-41-58.320355.json`;

test('import of a results file (0.4.3+ timestamp) reads its samples: the same run as the folder import', () => {
  const out = join(mkdtempSync(join(tmpdir(), 'lmaudit-companion-')), 'store');
  const r = runCli(['import', RESULTS_A, '--out', out, '--json']);
  assert.equal(r.status, 0, r.stderr);
  const summary = JSON.parse(r.stdout);
  // The run id hashes every source file: 4b64… is results + samples (the README's folder import), not results alone.
  assert.deepEqual(summary.runs.map((x: { run_id: string; format: string }) => [x.run_id, x.format]), [['lmeval-4b64765ee7b225f6', 'lm-eval results+samples']]);
  assert.deepEqual(summary.companions, [
    { path: `${ASDIV_A}/samples_asdiv_2024-08-21T03-44-09.494230.jsonl`, with: RESULTS_A, why: 'the samples file beside results_2024-08-21T03-44-09.494230.json with its timestamp' },
  ]);
  const text = runCli(['import', RESULTS_A, '--out', out, '--replace']);
  assert.match(text.stdout, /also read fixtures\/lmeval\/pr2236-asdiv\/asdiv\/meta-llama__Meta-Llama-3-8B-Instruct\/samples_asdiv_2024-08-21T03-44-09\.494230\.jsonl \(the samples file beside results_2024-08-21T03-44-09\.494230\.json with its timestamp\)/);
});

test('a ≤0.4.2 results file (no timestamp) reads the samples named after its model_args', () => {
  const r = runCli(['rescore', 'fixtures/lmeval/bigrefactor-2023-06/o.json']);
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /^also read fixtures\/lmeval\/bigrefactor-2023-06\/_boolq-seq2seq\.jsonl \(the samples file beside o\.json named after its model_args and a task, as lm-eval ≤0\.4\.2 names them\)/);
  // The matrix of the README's folder rescore, not "no per-item records".
  assert.match(r.stdout, /exact +strip +micro +0\.8125 +0\.1008 +\[0\.6150, 1\.0000\] +16 +13/);
  assert.doesNotMatch(r.stdout, /no per-item records/);
});

test('diff of two results files pairs their samples, so the items are joined (not "no per-item samples")', () => {
  const r = runCli(['diff', RESULTS_A, RESULTS_B]);
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /^A: also read .*samples_asdiv_2024-08-21T03-44-09\.494230\.jsonl/m);
  assert.match(r.stdout, /^B: also read .*samples_asdiv_2024-08-21T03-41-58\.320355\.jsonl/m);
  assert.doesNotMatch(r.stdout, /no per-item samples/);
  assert.match(r.stdout, /50 shared, 0 only in A, 0 only in B\./);
  assert.match(r.stdout, /Responses that differ: 16 of 50\./);
});

test('report on a results file says on stderr which samples it also read, and scores them', () => {
  const r = runCli(['report', RESULTS_A, '--format', 'json']);
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stderr, /also read .*samples_asdiv_2024-08-21T03-44-09\.494230\.jsonl/);
  assert.ok(JSON.parse(r.stdout).matrix.length > 0);
});
