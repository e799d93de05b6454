/**
 * As-recorded rescoring on every real lm-eval output that carries per-sample values:
 * each value is recomputed from the stored raw responses (or named as taken as recorded,
 * with the reason), and the aggregate + stderr equal the printed numbers to 1e-12.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { loadSource } from '../../../src/audit/source.ts';
import { rescoreAsRecorded, type AsRecordedCell } from '../../../src/score/lmeval/asRecorded.ts';

const LMEVAL = fileURLToPath(new URL('../../../../shared/data/external/lm-evaluation-harness/', import.meta.url));
const { store } = await loadSource([LMEVAL], { skipBad: false, fields: {} });
const report = await rescoreAsRecorded(store);
const labelOf = (c: AsRecordedCell) => store.manifest.runs.find((r) => r.run_id === c.run_id)!.label.slice(LMEVAL.length);
const cellsOf = (labelPart: string) => report.cells.filter((c) => labelOf(c).includes(labelPart));

test('every cell with a printed number matches it (value and stderr within 1e-12)', () => {
  const printed = report.cells.filter((c) => c.reported !== null && c.value !== null);
  assert.equal(printed.length, 1 + 1 + 1 + 2 + 12 + 12 + 1);
  for (const c of printed) assert.equal(c.matches_reported, true, `${labelOf(c)} ${c.task} ${c.metric},${c.filter}: ${c.value} ± ${c.stderr} vs ${JSON.stringify(c.reported)}`);
  for (const c of report.cells) assert.deepEqual(c.items.differing, [], `${labelOf(c)} ${c.metric}`);
});

test('asdiv (both batch sizes): all 50 loglikelihood acc values recomputed from is_greedy; 0.92 ± 0.0387561713321444', () => {
  const cells = cellsOf('pr2236-asdiv');
  assert.equal(cells.length, 2);
  for (const c of cells) {
    assert.equal(c.items.reproduced, 50);
    assert.equal(c.items.taken_as_recorded, null);
    assert.equal(c.value, 0.92);
    assert.equal(c.stderr, 0.0387561713321444);
  }
});

test('boolq-seq2seq: 16 exact_match values recomputed (ignore_case+punctuation keep the leading space, so 0.0)', () => {
  const [c] = cellsOf('bigrefactor-2023-06/o.json');
  assert.equal(c!.items.reproduced, 16);
  assert.equal(c!.value, 0);
  assert.equal(c!.stderr, 0);
});

test('wmdp: every doc reproduces as 1.0 under the list target, and the warning shows only 38 of 100 match the gold letter', () => {
  const [c] = cellsOf('pr1668-wmdp');
  assert.equal(c!.items.reproduced, 100);
  assert.equal(c!.value, 1);
  assert.equal(c!.matches_reported, true);
  const w = c!.warnings.find((x) => x.kind === 'list_target')!;
  assert.match(w.message, /100 of 100 documents have a list as target \(e\.g\. \["A","B","C","D"\]\)/);
  assert.match(w.message, /only 38 of 100 answers match the gold/);
  assert.equal(w.evidence.length, 20);
  const group = report.cells.find((x) => x.task === 'wmdp')!;
  assert.equal(group.value, null);
  assert.match(group.why!, /no reproduced cell for wmdp_chem, wmdp_bio/);
});

test('explained exceptions: task code (truthfulqa process_results), an unported metric (mae), and winogrande gold from Python doc_to_text', () => {
  for (const c of [...cellsOf('pr3032-truthfulqa-gen'), ...cellsOf('pr3144-tgpred')]) {
    assert.equal(c.items.reproduced, 0);
    assert.equal(c.items.taken_as_recorded!.count, c.n);
    assert.equal(c.matches_reported, true);
  }
  assert.match(cellsOf('pr3032-truthfulqa-gen')[0]!.items.taken_as_recorded!.why[0]!, /process_results/);
  const [mae] = cellsOf('pr3144-tgpred');
  assert.equal(mae!.value, Infinity);
  assert.ok(Number.isNaN(mae!.stderr as number));
  const [w] = cellsOf('bigrefactor-2023-06/w.json');
  assert.match(w!.items.taken_as_recorded!.why.join(' '), /gold index cannot be read/);
  assert.equal(w!.value, 0.5);
  assert.equal(w!.stderr, 0.5);
});

test('v0.3 write_out winogrande: the "True"/"False" acc strings are recomputed (argmax of logit_i vs truth); the aggregate equals the console log', () => {
  for (const [file, log] of [['mistral/winogrande', 'mistral/mistralEval.txt'], ['mistralShuffle/question_shuffle_winogrande', 'mistralShuffle/winoArcTruQAhella.txt']] as const) {
    const [c] = cellsOf(`pr1567-slurmevals/${file}`);
    assert.equal(c!.items.reproduced, 1267);
    // The printed v0.3 results JSON in the Slurm log (not imported: plain text) holds the aggregate.
    const text = readFileSync(join(LMEVAL, 'pr1567-slurmevals', log), 'utf8');
    const m = /"winogrande": \{\s*"acc": ([0-9.e-]+),\s*"acc_stderr": ([0-9.e-]+)/.exec(text)!;
    assert.equal(c!.value, Number(m[1]));
    assert.ok(Math.abs((c!.stderr as number) - Number(m[2])) <= 1e-12);
  }
});

test('v0.3 write_out truthfulqa_gen: per-item metrics taken as recorded; the means equal the console log to 1e-12', () => {
  const text = readFileSync(join(LMEVAL, 'pr1567-slurmevals/mistral/truthfulGen.txt'), 'utf8');
  const cells = cellsOf('pr1567-slurmevals/mistral/truthfulqa_gen');
  assert.equal(cells.length, 15);
  for (const c of cells) {
    const v = new RegExp(`"${c.metric}": (-?[0-9.e-]+),\\s*"${c.metric}_stderr": ([0-9.e-]+)`).exec(text)!;
    assert.ok(Math.abs(c.value! - Number(v[1])) <= 1e-12, `${c.metric} ${c.value} vs ${v[1]}`);
    assert.ok(Math.abs((c.stderr as number) - Number(v[2])) <= 1e-12, `${c.metric} stderr ${c.stderr} vs ${v[2]}`);
  }
});
