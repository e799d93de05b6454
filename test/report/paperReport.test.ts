/**
 * Reports a paper can use (issue 25 §6): the falsifier's shared clause said once, paths relative
 * to the working directory, a rescoring row that repeats a recorded one printed once, and a
 * difference that comes entirely from a subset of the documents said in words.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { runCli, repoRoot } from '../helpers/cli.ts';
import { slowOnly } from '../helpers/slow.ts';

const tmp = () => mkdtempSync(join(tmpdir(), 'lmaudit-paper-'));

test('wmdp (4 tasks): the shared clause is said once, what all tasks recorded once, per task only what differs', () => {
  const r = runCli(['report', 'fixtures/lmeval/pr1668-wmdp']);
  assert.equal(r.status, 0, r.stderr);
  const section = r.stdout.slice(r.stdout.indexOf('## Falsifier'));
  assert.equal(section.match(/comparable only to a run with the same/g)!.length, 1);
  const lines = section.split('\n').filter((l) => l.startsWith('- **'));
  // results.json: every task records few-shot 0, limit 100 and harness 4a1e48ce; none records a chat template or dtype;
  // only wmdp_cyber has a samples file, so only it records its prompts. lm-eval ≤0.4.2 wrote no version: "≤0.4.2" is
  // lmaudit's inference from the file's shape, and the sentence must not call it recorded.
  assert.equal(lines[0], '- **lmeval-62f1232fc84d495f · all 4 tasks**: Every task recorded the few-shot count 0; the limit 100; the harness version "≤0.4.2" (inferred, not recorded), the harness commit "4a1e48ce"; did not record its chat-template settings, or numeric precisions (dtype), so a comparison cannot check them.');
  assert.ok(lines[4]!.endsWith('the token limit 10; the prompt of each item.'), lines[4]);
  for (const line of lines.slice(2, 4)) assert.ok(line.endsWith('did not record its prompt bytes, so a comparison cannot check them.'), line);
  assert.deepEqual(lines.slice(1).map((l) => l.match(/^- \*\*[^·]+· ([^*]+)\*\*/)![1]), ['wmdp', 'wmdp\\_bio', 'wmdp\\_chem', 'wmdp\\_cyber']);
  // The group recorded no task version: only its own clauses are listed.
  assert.equal(lines[1], '- **lmeval-62f1232fc84d495f · wmdp** (unknown): Recorded the generation settings {"cli":{"until":".","max\\_gen\\_toks":10}}; did not record its task versions or datasets, system instructions, extraction rules or metrics, or prompt bytes, so a comparison cannot check them.');
  for (const line of lines.slice(1)) assert.ok(!line.includes('the limit 100') && !line.includes('4a1e48ce'), line);
  // Before: four ~600-character sentences; now the section is much shorter than four of them.
  assert.ok(section.length < 4 * 600 + 400, `falsifier section: ${section.length} characters`);
});

test("a run whose items carry their prompts recorded its prompt bytes: the falsifier does not say it did not", () => {
  // lm-eval samples files hold each prompt (arguments); every single-run falsifier used to say "did not record its
  // … prompt bytes, so a comparison cannot check them", an lmaudit run store's too.
  const r = runCli(['report', 'fixtures/models/lmeval-reference/gpt2-tiny/predict-only']);
  assert.equal(r.status, 0, r.stderr);
  const lines = r.stdout.slice(r.stdout.indexOf('## Falsifier')).split('\n').filter((l) => l.startsWith('- **'));
  assert.equal(lines[0], '- **lmeval-7de1a1883d550317 · all 2 tasks**: Every task recorded whether a chat template was applied false (inferred, not recorded), the chat template null, fewshot\\_as\\_multiturn null; the system instruction null, the task description ""; the limit 3; the prompt of each item; the dtype "torch.float32"; the harness version "0.4.13".');
  for (const line of lines) assert.ok(!line.includes('prompt bytes'), line);
});

test('headings and captions print paths relative to the working directory, in md, tex and html', () => {
  const dir = tmp();
  const abs = join(repoRoot, 'fixtures/external/pythia');
  for (const format of ['md', 'tex', 'html']) {
    const out = join(dir, `r.${format}`);
    const r = runCli(['report', `${abs}/zero-shot`, '--against', `${abs}/five-shot`, '--tasks', 'lambada_openai', '--out', out]);
    assert.equal(r.status, 0, r.stderr);
    const text = readFileSync(out, 'utf8');
    assert.ok(!text.includes(repoRoot), `${format}: no absolute path of the machine`);
    assert.ok(text.includes(format === 'tex' ? 'fixtures/\\allowbreak{}external' : 'fixtures/external/pythia/zero-shot'), format);
  }
  // The JSON report keeps the paths as recorded (machine data).
  const json = runCli(['report', `${abs}/zero-shot`, '--tasks', 'lambada_openai', '--format', 'json']);
  assert.ok(json.stdout.includes(`${abs}/zero-shot`));
});

test('Mistral winogrande pair: acc,none and rescored:acc/none (the same numbers) are one statistics row; the sentence says why', () => {
  const dir = tmp();
  const from = join(repoRoot, 'fixtures/external/lm-evaluation-harness/pr1567-slurmevals');
  for (const [folder, name] of [['mistral', 'winogrande_write_out_info.json'], ['mistralShuffle', 'question_shuffle_winogrande_write_out_info.json']] as const) {
    mkdirSync(join(dir, folder));
    writeFileSync(join(dir, folder, name), gunzipSync(readFileSync(join(from, folder, `${name}.gz`))));
  }
  const r = runCli(['report', join(dir, 'mistral/winogrande_write_out_info.json'), '--against', join(dir, 'mistralShuffle/question_shuffle_winogrande_write_out_info.json')]);
  assert.equal(r.status, 0, r.stderr);
  const rows = r.stdout.split('\n').filter((l) => /^\| (acc,none|rescored:acc\/none) \| 1267 \|/.test(l));
  // 516 right only in A, 135 only in B (test/audit/reference/paired_reference.py).
  assert.deepEqual(rows, ['| acc,none | 1267 | 0.7814 | 0.4807 | -0.3007 | \\[-0.3378, -0.266\\] | 516/135, p = 2.32e-53 | yes | ']);
  assert.ok(r.stdout.includes('- rescored:acc/none (a rescoring cell) gives the same paired numbers as acc,none, so its row is not printed again.'));
  assert.equal(r.stdout.match(/^- (acc,none|rescored:acc\/none): 651 flips/gm)!.length, 1);
});

// A slow cross-check since the plain suite passed 5 minutes on a slower 2-core machine: .ci/run runs it.
test('a full run against --limit 20: the summary says the difference comes entirely from the documents only the full run scored', { skip: slowOnly }, () => {
  const dir = tmp();
  for (const [name, limit] of [['full', '60'], ['l20', '20']]) {
    const r = runCli(['run', '--model', 'dummy', '--tasks', 'arc_easy', '--limit', limit, '--out', join(dir, name)]);
    assert.equal(r.status, 0, r.stderr);
  }
  const report = runCli(['report', join(dir, 'full'), '--against', join(dir, 'l20')]);
  assert.equal(report.status, 0, report.stderr);
  // The dummy backend answers each document the same way in both runs; its reported acc over 60 and over 20 documents differ.
  const line = report.stdout.split('\n').find((l) => l.startsWith('- arc\\_easy: '));
  assert.match(line!, /^- arc\\_easy: The reported acc,none \(A [0-9.]+, B [0-9.]+\), acc\\_norm,none \(A [0-9.]+, B [0-9.]+\) differ, but on the 20 shared documents the two runs score the same document for document: the difference comes entirely from the 40 document\(s\) only A scored \(limit 60 in A, 20 in B\)\.$/);
  const diff = runCli(['diff', join(dir, 'full'), join(dir, 'l20')]);
  assert.match(diff.stdout, /^ {4}arc_easy: .*; on the 20 shared documents the two runs score the same document for document: the difference comes entirely from the 40 document\(s\) only A scored \(limit 60 in A, 20 in B\)$/m);
});

test('a v0.3 results file records no harness version: the falsifier calls "v0.3.x" inferred, not recorded', () => {
  // Pythia-160m 0-shot (fixtures/external/pythia): config and versions only; "v0.3.x" comes from the file's shape.
  const r = runCli(['report', join(repoRoot, 'fixtures/external/pythia/zero-shot'), '--tasks', 'lambada_openai']);
  assert.equal(r.status, 0, r.stderr);
  const line = r.stdout.slice(r.stdout.indexOf('## Falsifier')).split('\n').find((l) => l.startsWith('- **'))!;
  assert.equal(line, '- **lmeval-eb2253988d550149 · lambada\\_openai** (unknown): Recorded the task version 0; the few-shot count 0; the limit null; the harness version "v0.3.x" (inferred, not recorded); did not record its chat-template settings, system instructions, extraction rules or metrics, generation settings, prompt bytes, or numeric precisions (dtype), so a comparison cannot check them.');
});

test('a run that names the documents it scored but no limit recorded its document set', () => {
  // EEE's Inspect converter wrote ARC's sample_ids [1, 2, 3] (fixtures/eee/inspect-converter-0.2.0) and no limit; the
  // falsifier said it 'did not record its … document sets'.
  const r = runCli(['report', 'fixtures/eee/inspect-converter-0.2.0/data/ai2_arc']);
  assert.equal(r.status, 0, r.stderr);
  const line = r.stdout.slice(r.stdout.indexOf('## Falsifier')).split('\n').find((l) => l.startsWith('- **'))!;
  assert.ok(line.includes('; the document ids \\[1,2,3\\]; did not record its '), line);
  assert.ok(!/did not record its [^.]*document sets/.test(line), line);
});
