/**
 * Issue 15 part 2, "the summary hides what changed": the per-task summary line names every
 * score that moved, largest |B − A| first, not the first metric alone. B is a copy of the
 * truthfulqa_gen fixture (lm-eval 0.4.8, 20 docs) with three recorded per-sample values changed.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../helpers/cli.ts';

const A = 'fixtures/lmeval/pr3032-truthfulqa-gen';
const SAMPLES = 'samples_truthfulqa_gen_2025-05-31T14-30-51.983293.jsonl';
const RESULTS = 'truthfulqa_gen_neo125_2025-05-31T14-30-51.983293.json';

function edited(): string {
  const dir = join(mkdtempSync(join(tmpdir(), 'lmaudit-summary-')), 'b');
  mkdirSync(dir);
  copyFileSync(join(A, RESULTS), join(dir, RESULTS));
  const lines = readFileSync(join(A, SAMPLES), 'utf8').split('\n');
  const doc0 = JSON.parse(lines[0]!);
  assert.equal(doc0.rouge1_acc, 1);
  assert.equal(doc0.bleu_max, 41.11336169005198);
  doc0.rouge1_acc = 0; // −1 on one of 20 items: mean −0.05
  doc0.bleu_max = 1.11336169005198; // −40 on one of 20 items: mean −2
  const doc1 = JSON.parse(lines[1]!);
  doc1.rouge2_diff = doc1.rouge2_diff + 4; // +4 on one of 20 items: mean +0.2
  lines[0] = JSON.stringify(doc0);
  lines[1] = JSON.stringify(doc1);
  writeFileSync(join(dir, SAMPLES), lines.join('\n'));
  return dir;
}

test('the summary names every score that moved, largest first (bleu_acc, the first key, did not move)', () => {
  const r = runCli(['diff', A, edited(), '--iterations', '200']);
  assert.equal(r.status, 0, r.stderr);
  const line = r.stdout.split('\n').find((l) => l.startsWith('    truthfulqa_gen: '));
  assert.ok(line, r.stdout);
  assert.match(line!, /; 3 scores differ \(largest first\): bleu_max,none B − A = -2 \(not distinguishable at n = 20\); rouge2_diff,none B − A = 0\.2 \(not distinguishable at n = 20\); rouge1_acc,none B − A = -0\.05 \(not distinguishable at n = 20\)$/);
  assert.doesNotMatch(line!, /bleu_acc/);
});

test('with nothing moved, the line says the other paired scores are equal too', () => {
  const r = runCli(['diff', 'fixtures/lmeval/pr2236-asdiv/asdiv', 'fixtures/lmeval/pr2236-asdiv/asdiv_cot', '--iterations', '200']);
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /^ {4}asdiv: no task setting differs; falsifier holds; acc,none B − A = 0 \(not distinguishable at n = 50\); the other paired score is equal too$/m);
});
