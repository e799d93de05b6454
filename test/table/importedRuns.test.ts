/**
 * The audit table on imported real runs where several configurations of one model exist, held to
 * test/table/reference/table_reference.py (plain Python over the same per-item scores, or the
 * numbers the results files report): Mistral-7B winogrande and truthfulqa_gen, standard vs
 * question-shuffled prompts, the asdiv runs, and Pythia-160m 0-shot vs 5-shot.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { loadSource } from '../../src/audit/source.ts';
import { buildTables, type AuditTable, type TableCell } from '../../src/audit/table.ts';
import { externalFixture, fixturePath } from '../helpers/fixtures.ts';

interface RefCell { score: number; stderr: number | null; ci95: [number, number] | null; n?: number }
const REF = JSON.parse(readFileSync(new URL('./reference/table_reference.json', import.meta.url), 'utf8')) as {
  mistral: { rows: Record<string, RefCell>; column_spread: number; gap_times: number; reach: string[] };
  asdiv: Record<string, RefCell>;
  pythia: Record<string, { metrics: string[]; rows: Record<string, Record<string, RefCell>>; span: number; highest: [string, string]; lowest: [string, string]; reach: [string, string][] }>;
  truthfulqa: {
    metrics: string[];
    rows: Record<string, Record<string, RefCell>>;
    row_spreads: Record<string, number>;
    column_spreads: Record<string, number>;
    span: number;
    highest: [string, string];
    lowest: [string, string];
    gap_times: number;
    reach: [string, string][];
    interactions: {
      readings: [string, string];
      n: number;
      effects: [number, number];
      effect_stderr: [number, number];
      effect_ci95: [[number, number], [number, number]];
      difference: number;
      stderr: number;
      ci95: [number, number];
    }[];
  };
};
const OPTIONS = { skipBad: false, fields: {} };
// Python and lmaudit sum the same values in the same order; 1e-12 (relative) leaves room only for the last bits
// of a square root or a division done in another order.

function close(actual: number | null | undefined, expected: number | null | undefined, what: string): void {
  if (expected === null || expected === undefined) return assert.equal(actual ?? null, null, what);
  assert.ok(actual !== null && actual !== undefined && Math.abs(actual - expected) <= 1e-12 * Math.max(1, Math.abs(expected)), `${what}: ${actual} vs ${expected}`);
}

function sameCell(c: TableCell | null, ref: RefCell, what: string): void {
  assert.ok(c !== null, what);
  close(c.score, ref.score, `${what} score`);
  close(c.stderr, ref.stderr, `${what} stderr`);
  close(c.ci95?.[0], ref.ci95?.[0], `${what} ci low`);
  close(c.ci95?.[1], ref.ci95?.[1], `${what} ci high`);
  if (ref.n !== undefined) assert.equal(c.n, ref.n, `${what} n`);
}

test('Mistral-7B winogrande, standard vs shuffled prompts: one table, rows labelled by the task that differs, spreads, gap and reach as in Python', async () => {
  const dir = externalFixture('lm-evaluation-harness/pr1567-slurmevals');
  const { store } = await loadSource([`${dir}/mistral/winogrande_write_out_info.json`, `${dir}/mistralShuffle/question_shuffle_winogrande_write_out_info.json`], OPTIONS);
  const [t, ...more] = await buildTables(store, { aggregation: 'micro', gap: 0.033, target: 0.48, tolerance: 0 });
  assert.equal(more.length, 0);
  assert.equal(t!.task, 'winogrande / question_shuffle_winogrande');
  // acc_norm, acc_bytes and greedy need choice texts and greedy flags write_out never recorded: left out, with why.
  assert.deepEqual(t!.columns.map((c) => c.key), ['acc/none']);
  assert.ok(t!.notes.some((n) => /^acc_norm\/none: left out, no row could compute it/.test(n)));
  assert.deepEqual(t!.rows.map((r) => r.label), ['winogrande', 'question_shuffle_winogrande']);
  assert.deepEqual(t!.rows.map((r) => r.parts.map((p) => p.field)), [['task.name'], ['task.name']]);
  for (const r of t!.rows) sameCell(r.cells[0]!, REF.mistral.rows[r.label]!, r.label);
  close(t!.column_spreads[0]!.difference, REF.mistral.column_spread, 'column spread');
  close(t!.extremes!.difference, REF.mistral.column_spread, 'span');
  assert.deepEqual(t!.extremes!.separated_by, ['task.name']);
  close(t!.gap!.times, REF.mistral.gap_times, 'gap');
  assert.match(t!.gap!.sentence, /fits inside the 30\.1-point spread 9\.1 times/);
  assert.deepEqual(t!.reach!.cells.map((c) => c.label), REF.mistral.reach);
  assert.equal(t!.interactions.length, 0, 'one reading rule: no pair of readings to interact');
  const config = t!.costs.find((c) => c.model_calls)!;
  // write_out records no cache use: how many responses reached the model is not known.
  assert.equal(config.detail, 'each row is a run with its own requests: 5068 responses recorded, whether each was sent to the model or answered from a cache is not recorded');
  assert.deepEqual(t!.costs.filter((c) => !c.model_calls).map((c) => c.axis), ['reading rule (columns: extractor × normaliser)', 'aggregation (micro)']);
});

test('the asdiv runs (Llama-3-8B-Instruct, two runs of one task): rows told apart by the batch size their provenance records', async () => {
  const base = fixturePath('lmeval/pr2236-asdiv');
  const { store } = await loadSource([`${base}/asdiv`, `${base}/asdiv_cot`], OPTIONS);
  const [t] = await buildTables(store, { aggregation: 'micro', tolerance: 0, target: 0.9 });
  assert.deepEqual(t!.columns.map((c) => c.key), ['greedy/none']);
  assert.equal(t!.rows.length, 2);
  for (const r of t!.rows) assert.deepEqual(r.parts.map((p) => p.field), ['model.batch_size']);
  const byFile = (r: AuditTable['rows'][number]) => (store.manifest.runs.find((x) => x.run_id === r.run_id)!.label.includes('asdiv_cot') ? 'asdiv_cot' : 'asdiv');
  for (const r of t!.rows) sameCell(r.cells[0]!, REF.asdiv[byFile(r)]!, byFile(r));
  assert.equal(t!.extremes!.difference, 0);
  assert.equal(t!.reach!.cells.length, 2, '0.9 lies inside both intervals [0.844, 0.996]');
  // asdiv is a loglikelihood task with one continuation per document: whether it is the greedy one is the only
  // reading (lm-eval's acc is that flag), so there is no second reading rule and no interaction is formed.
  assert.equal(t!.interactions.length, 0);
});

test('Pythia-160m 0-shot vs 5-shot (results files only): every shared task is a table of the reported rates, as Python reads them', async () => {
  const { store } = await loadSource([externalFixture('pythia/zero-shot/160m_step143000.json'), externalFixture('pythia/five-shot/160m-5shot_step143000.json')], OPTIONS);
  const tables = await buildTables(store, { aggregation: 'micro', target: 0.5, tolerance: 0.005 });
  const shared = Object.keys(REF.pythia);
  assert.equal(shared.length, 65);
  let reached = 0;
  for (const task of shared) {
    const ref = REF.pythia[task]!;
    const t = tables.find((x) => x.task === task && x.rows.length === 2);
    assert.ok(t, task);
    assert.deepEqual(t.columns.map((c) => c.key), ref.metrics.map((m) => `reported ${m}`), task);
    const shots = t.rows.map((r) => r.parts.find((p) => p.field === 'fewshot.count')!.text);
    assert.deepEqual(shots, ['0-shot', '5-shot'], task);
    t.rows.forEach((r, i) => ref.metrics.forEach((m, k) => {
      const expected = ref.rows[shots[i]!]![m];
      if (expected === undefined) assert.equal(r.cells[k], null, `${task} ${m}`);
      else sameCell(r.cells[k]!, expected, `${task} ${shots[i]} ${m}`);
    }));
    close(t.extremes!.difference, ref.span, `${task} span`);
    const where = (p: { row: number; column: number }) => [shots[p.row], ref.metrics[p.column]];
    if (ref.span > 0) {
      assert.deepEqual(where(t.extremes!.highest), ref.highest, task);
      assert.deepEqual(where(t.extremes!.lowest), ref.lowest, task);
    }
    assert.deepEqual(t.reach!.cells.map(where), ref.reach, `${task} reach`);
    reached += ref.reach.length;
  }
  assert.ok(reached > 0, 'some cell reaches 0.5');
  const lambada = tables.find((t) => t.task === 'lambada_openai' && t.rows.length === 2)!;
  assert.deepEqual(lambada.rows.map((r) => r.label), ['0-shot · batch size 16 · device cuda:7', '5-shot · batch size 8 · device cuda:3']);
  assert.ok(lambada.notes.includes('reported ppl: left out, not a rate in [0, 1]'));
});

test('Mistral-7B truthfulqa_gen, standard vs shuffled prompts: the recorded per-item metrics are the reading rules; table, spreads, reach and every interaction interval as in Python', async () => {
  const dir = externalFixture('lm-evaluation-harness/pr1567-slurmevals');
  const { store } = await loadSource([`${dir}/mistral/truthfulqa_gen_write_out_info.json`, `${dir}/mistralShuffle/question_shuffle_truthfulqa_gen_write_out_info.json`], OPTIONS);
  const ref = REF.truthfulqa;
  const [t, ...more] = await buildTables(store, { aggregation: 'micro', gap: 0.033, target: 0.5, tolerance: 0 });
  assert.equal(more.length, 0);
  // write_out recorded no gold answer (TruthfulQA's references live in the task's code): no rescored reading applies.
  assert.deepEqual(t!.columns.map((c) => c.key), ref.metrics.map((m) => `recorded ${m}`));
  assert.ok(t!.columns.every((c) => c.source === 'recorded'));
  assert.ok(t!.notes.some((n) => /^exact\/strip: left out, no row could compute it/.test(n)));
  assert.ok(t!.notes.some((n) => n.startsWith('truthfulqa_gen (run ') && n.includes('of its 817 item(s), 817 have no usable gold answer')));
  assert.deepEqual(t!.rows.map((r) => r.label), Object.keys(ref.rows));
  const at = (p: { row: number; column: number }) => [t!.rows[p.row]!.label, ref.metrics[p.column]];
  for (const r of t!.rows) {
    ref.metrics.forEach((m, k) => sameCell(r.cells[k]!, ref.rows[r.label]![m]!, `${r.label} ${m}`));
    close(r.spread!.difference, ref.row_spreads[r.label], `${r.label} row spread`);
  }
  ref.metrics.forEach((m, k) => close(t!.column_spreads[k]!.difference, ref.column_spreads[m], `${m} column spread`));
  close(t!.extremes!.difference, ref.span, 'span');
  assert.deepEqual(at(t!.extremes!.highest), ref.highest);
  assert.deepEqual(at(t!.extremes!.lowest), ref.lowest);
  assert.deepEqual(t!.extremes!.separated_by, ['task.name', 'reading rule']);
  close(t!.gap!.times, ref.gap_times, 'gap');
  assert.deepEqual(t!.reach!.cells.map(at), ref.reach);
  assert.equal(t!.interactions.length, ref.interactions.length);
  assert.equal(ref.interactions.length, (ref.metrics.length * (ref.metrics.length - 1)) / 2, 'one change, every pair of readings');
  for (const x of ref.interactions) {
    const readings = x.readings.map((m) => `recorded ${m}`);
    const got = t!.interactions.find((i) => i.readings[0] === readings[0] && i.readings[1] === readings[1]);
    assert.ok(got, readings.join(' × '));
    const what = readings.join(' × ');
    assert.deepEqual([got.from, got.to, got.change], ['truthfulqa_gen', 'question_shuffle_truthfulqa_gen', ['task.name']], what);
    assert.equal(got.n, x.n, `${what} n`);
    for (const k of [0, 1]) {
      close(got.effects[k], x.effects[k], `${what} effect ${k}`);
      close(got.effect_stderr[k], x.effect_stderr[k], `${what} effect ${k} stderr`);
      close(got.effect_ci95[k]![0], x.effect_ci95[k]![0], `${what} effect ${k} ci low`);
      close(got.effect_ci95[k]![1], x.effect_ci95[k]![1], `${what} effect ${k} ci high`);
    }
    close(got.difference, x.difference, `${what} difference`);
    close(got.stderr, x.stderr, `${what} stderr`);
    close(got.ci95![0], x.ci95[0], `${what} ci low`);
    close(got.ci95![1], x.ci95[1], `${what} ci high`);
    assert.equal(got.distinguishable, x.ci95[0] > 0 || x.ci95[1] < 0, `${what} distinguishable`);
  }
  assert.ok(t!.interactions.some((x) => x.distinguishable), 'the shuffle helps more under BLEURT than under BLEU or ROUGE-2');
  assert.deepEqual(t!.costs.map((c) => [c.axis, c.model_calls]), [
    ['configuration (rows: task.name)', true],
    ['reading rule (columns: the per-item metrics the source recorded)', false],
    ['aggregation (micro)', false],
  ]);
});
