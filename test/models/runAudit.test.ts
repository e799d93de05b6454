/**
 * A run made by `lmaudit run --model onnx` is audited like any imported run: rescore, diff
 * and report read its store, and the lm-eval files it wrote import to the same numbers.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ONE_THREAD, runCli } from '../helpers/cli.ts';
import { slowOnly } from '../helpers/slow.ts';

const RUN = ['run', '--model', 'onnx', '--model_args', `pretrained=fixtures/models/gpt2-tiny,${ONE_THREAD}`, '--tasks', 'arc_easy,gsm8k', '--limit', '6', '--gen_kwargs', 'max_gen_toks=16'];

// A slow cross-check since the plain suite passed 5 minutes on a slower 2-core machine: .ci/run runs it.
test('rescore, diff and report read a store lmaudit run wrote; its lm-eval files import to the same as-recorded numbers', { skip: slowOnly }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'lmaudit-run-audit-'));
  const a = runCli([...RUN, '--batch_size', '1', '--out', join(dir, 'a'), '--output_path', join(dir, 'files')], { env: { LMAUDIT_PROGRESS_SECONDS: '3600' } });
  assert.equal(a.status, 0, a.stderr);
  const b = runCli([...RUN, '--batch_size', '4', '--out', join(dir, 'b')], { env: { LMAUDIT_PROGRESS_SECONDS: '3600' } });
  assert.equal(b.status, 0, b.stderr);

  const asRecorded = JSON.parse(runCli(['rescore', join(dir, 'a'), '--extractors', 'as-recorded', '--json']).stdout);
  const fromFiles = JSON.parse(runCli(['rescore', join(dir, 'files', readdirSync(join(dir, 'files'))[0]!), '--extractors', 'as-recorded', '--json']).stdout);
  type Cell = { task: string; filter: string; metric: string; n: number; value: number | string; stderr: number | string; matches_reported: boolean; items: { reproduced: number } };
  const cells = (j: { as_recorded: Array<{ cells: Cell[] }> }) =>
    j.as_recorded.flatMap((run) => run.cells.map((r) => [r.task, r.filter, r.metric, r.n, r.value, r.stderr, r.items.reproduced, r.matches_reported])).sort();
  assert.ok(cells(asRecorded).length >= 4);
  assert.deepEqual(cells(fromFiles), cells(asRecorded));
  for (const row of cells(asRecorded)) {
    assert.equal(row[7], true, `${row.join(' ')} does not match what the run printed`);
    assert.equal(row[6], row[3], `${row.join(' ')}: not every item reproduced`);
  }

  // The two runs differ in batch size only: the diff says so, and the scores agree.
  const diff = runCli(['diff', join(dir, 'a'), join(dir, 'b')]);
  assert.ok(diff.status === 0 || diff.status === 1, diff.stderr);
  assert.match(diff.stdout, /run level differs: model\.batch_size\n/);
  assert.equal(diff.stdout.match(/Prompts that differ byte-wise: 0 of 6\./g)?.length, 2);
  // Every clause holds but the harness's: lmaudit records its version, not a commit, so whether the two builds'
  // commits agree is unknown in both, and a clause unknown in both runs is unknown, never "holds" (issue 25 §6).
  assert.match(diff.stdout, /Falsifier \(unknown\): [^\n]*the records cannot tell whether the harness versions or commits agree\./);
  assert.match(diff.stdout, /harness +unknown +the harness commit unknown in both/);
  assert.doesNotMatch(diff.stdout, /Falsifier \(violated\)/);
  assert.doesNotMatch(diff.stdout, /contradicts/);

  const report = runCli(['report', join(dir, 'a'), '--format', 'md']);
  assert.equal(report.status, 0, report.stderr);
  // Markdown escapes the underscore.
  assert.match(report.stdout, /^\| arc\\_easy \| acc,none 0 ± 0; acc\\_norm,none 0 ± 0 \|/m);
  assert.match(report.stdout, /backend="onnx"; model\\_id="fixtures\/models\/gpt2-tiny"; dtype="fp32"/);
});

test('tasks scored by their own code run too (truthfulqa mc2 and gen through the ports): mc2 by hand from the stored log-likelihoods, every value re-derived as recorded', () => {
  const dir = mkdtempSync(join(tmpdir(), 'lmaudit-run-tqa-'));
  const r = runCli(['run', '--model', 'onnx', '--model_args', `pretrained=fixtures/models/gpt2-tiny,${ONE_THREAD}`, '--tasks', 'truthfulqa_mc2,truthfulqa_gen', '--limit', '3', '--gen_kwargs', 'max_gen_toks=16', '--out', join(dir, 'store'), '--output_path', join(dir, 'files')], { env: { LMAUDIT_PROGRESS_SECONDS: '3600' } });
  assert.equal(r.status, 0, r.stderr);
  const files = join(dir, 'files', readdirSync(join(dir, 'files'))[0]!);
  const mc2 = readFileSync(join(files, readdirSync(files).find((f) => f.startsWith('samples_truthfulqa_mc2_'))!), 'utf8').trimEnd().split('\n').map((l) => JSON.parse(l) as { doc: { mc2_targets: { labels: number[] } }; resps: [string, string][][]; acc: number });
  assert.equal(mc2.length, 3);
  for (const s of mc2) {
    // lm-eval's process_results_mc2: the true answers come first; split at the first 0 label, p = exp(ll).
    const split = s.doc.mc2_targets.labels.indexOf(0);
    const p = s.resps.map((x) => Math.exp(Number(x[0]![0])));
    const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
    const expected = sum(p.slice(0, split)) / (sum(p.slice(0, split)) + sum(p.slice(split)));
    // Correctly rounded exp against Math.exp, summed over a handful of choices: 1e-12 relative.
    assert.ok(Math.abs(s.acc - expected) <= 1e-12 * Math.max(1, Math.abs(expected)), `${s.acc} vs ${expected}`);
  }
  const json = JSON.parse(runCli(['rescore', join(dir, 'store'), '--extractors', 'as-recorded', '--json']).stdout) as { as_recorded: Array<{ cells: Array<{ task: string; metric: string; n: number; matches_reported: boolean; items: { reproduced: number } }> }> };
  const cells = json.as_recorded.flatMap((x) => x.cells);
  assert.equal(cells.filter((c) => c.task === 'truthfulqa_gen').length, 12);
  for (const c of cells) {
    assert.equal(c.matches_reported, true, `${c.task} ${c.metric}`);
    assert.equal(c.items.reproduced, c.n, `${c.task} ${c.metric}: items taken as recorded instead of recomputed`);
  }
});

test('a multiple-input task (winogrande: one context per choice) runs: acc by hand from the stored log-likelihoods, gold from doc_to_text', () => {
  const dir = mkdtempSync(join(tmpdir(), 'lmaudit-run-wg-'));
  const r = runCli(['run', '--model', 'onnx', '--model_args', `pretrained=fixtures/models/qwen3-tiny,${ONE_THREAD}`, '--tasks', 'winogrande', '--limit', '8', '--out', join(dir, 'store'), '--output_path', join(dir, 'files')], { env: { LMAUDIT_PROGRESS_SECONDS: '3600' } });
  assert.equal(r.status, 0, r.stderr);
  const files = join(dir, 'files', readdirSync(join(dir, 'files'))[0]!);
  const samples = readFileSync(join(files, readdirSync(files).find((f) => f.startsWith('samples_winogrande_'))!), 'utf8').trimEnd().split('\n').map((l) => JSON.parse(l) as { doc: { answer: string }; arguments: Record<string, { arg_0: string; arg_1: string }>; resps: [string, string][][]; acc: number });
  assert.equal(samples.length, 8);
  for (const s of samples) {
    // Two contexts (the sentence cut at the blank, each option filled in), one continuation: multiple input.
    assert.notEqual(s.arguments.gen_args_0!.arg_0, s.arguments.gen_args_1!.arg_0);
    assert.equal(s.arguments.gen_args_0!.arg_1, s.arguments.gen_args_1!.arg_1);
    const lls = s.resps.map((x) => Number(x[0]![0]));
    const gold = Number(s.doc.answer) - 1;
    assert.equal(s.acc, lls.indexOf(Math.max(...lls)) === gold ? 1 : 0);
  }
});
