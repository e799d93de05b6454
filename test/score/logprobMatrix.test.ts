import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadSource } from '../../src/audit/source.ts';
import { computeMatrix } from '../../src/score/matrix.ts';
import { repoRoot, runCli } from '../helpers/cli.ts';
import { externalFixture } from '../helpers/fixtures.ts';

const close = (a: number | null, b: number) => a !== null && Math.abs(a - b) < 1e-12;

test('loglikelihood tasks: greedy reproduces lm-eval acc on the asdiv run (0.92 ± 0.0387561713321444, results file)', async () => {
  const { store } = await loadSource([`${repoRoot}fixtures/lmeval/pr2236-asdiv/asdiv`], { skipBad: false, fields: {} });
  const [scope] = await computeMatrix(store, {});
  assert.equal(scope!.answer_type, 'loglikelihood');
  const micro = scope!.cells.find((c) => c.extractor === 'greedy' && c.aggregation === 'micro')!;
  assert.equal(micro.score, 0.92);
  assert.ok(close(micro.stderr, 0.0387561713321444), String(micro.stderr));
  assert.equal(micro.n, 50);
});

test('multiple choice from log-probs: acc reproduces the v0.3 winogrande write_out (990/1267, as its Slurm log printed 0.7814)', async () => {
  const file = externalFixture('lm-evaluation-harness/pr1567-slurmevals/mistral/winogrande_write_out_info.json');
  const { store } = await loadSource([file], { skipBad: false, fields: {} });
  const [scope] = await computeMatrix(store, {});
  assert.equal(scope!.answer_type, 'logprobs');
  const acc = scope!.cells.find((c) => c.extractor === 'acc' && c.aggregation === 'micro')!;
  assert.equal(acc.correct, 990);
  assert.equal(acc.score, 0.7813733228097869);
  // lm-eval's mean_stderr for the same 0/1 values, as the Slurm log's table shows it.
  assert.ok(close(acc.stderr, 0.011616198215773236), String(acc.stderr));
  // The write_out file records neither choice texts nor greedy flags: those readings are not computable, not zero.
  for (const reader of ['acc_norm', 'acc_bytes', 'greedy']) {
    const cell = scope!.cells.find((c) => c.extractor === reader && c.aggregation === 'micro')!;
    assert.equal(cell.score, null, reader);
    // How many are correct is unknown, not 0 (the cell printed 'correct 0' beside n 1267 before).
    assert.equal(cell.correct, null, reader);
    assert.match(cell.stderr_method, /^not computable: 1267 item/);
  }
  assert.equal(scope!.flips.count, 0);
  assert.deepEqual(scope!.disagreement, []);
});

test("a reading the records cannot give prints n/a as its correct count, not 0 (the v0.3 winogrande write_out's acc_norm)", () => {
  const file = externalFixture('lm-evaluation-harness/pr1567-slurmevals/mistral/winogrande_write_out_info.json');
  const r = runCli(['rescore', file, '--extractors', 'acc,acc_norm', '--aggregations', 'micro']);
  assert.equal(r.status, 0, r.stderr);
  // By hand from the file: 990 of 1267 records have acc "True"; none records a choice text, so acc_norm reads nothing.
  assert.match(r.stdout, /\n  acc +none +micro +0\.7814 +0\.0116 +\[0\.7586, 0\.8041\] +1267 +990\n/);
  assert.match(r.stdout, /\n  acc_norm +none +micro +n\/a +n\/a +n\/a +1267 +n\/a\n/);
  const json = JSON.parse(runCli(['rescore', file, '--extractors', 'acc_norm', '--aggregations', 'micro', '--json']).stdout);
  assert.equal(json.cells[0].correct, null);
  // With --bootstrap the cell that has none says n/a in both bootstrap columns (they stood empty).
  const boot = runCli(['rescore', file, '--extractors', 'acc,acc_norm', '--aggregations', 'micro', '--bootstrap', '20']);
  assert.match(boot.stdout, /\n  acc_norm +none +micro +n\/a +n\/a +n\/a +1267 +n\/a +n\/a +n\/a\n/);
});

test("a reader left without a value by golds it cannot read says so, not that the records lack its inputs (dev-branch pythia winogrande)", async () => {
  // The 2023 dev branch's pythia-2.8b winogrande samples, without their results file: each of the 4 records keeps its
  // greedy flags (resps [[-15.5546875, false]], …, [[-4.9296875, true]]) but only the first request's arguments, and
  // its target is the continuation ("always got the easier cases."), so no gold index can be read without the choice
  // list. Before the fix every reader's note blamed its inputs: "acc: not computable — 4 item(s) lack what it needs
  // (choice texts not recorded)" (acc reads no choice text) and "greedy: … (greedy flags not recorded)".
  const { store } = await loadSource([externalFixture('lm-evaluation-harness/bigrefactor-2023-06/pretrained=EleutherAI__pythia-2.8b_winogrande.jsonl')], { skipBad: false, fields: {} });
  const [scope] = await computeMatrix(store, {});
  assert.equal(scope!.answer_type, 'logprobs');
  const notComputable = scope!.notes.filter((n) => n.includes(': not computable'));
  assert.deepEqual(notComputable, ['acc', 'acc_norm', 'acc_bytes', 'greedy'].map((r) => `${r}: not computable — 4 item(s) have no readable gold (below)`));
  // One note for the one cause, with the first record's target as its example (it was a note per distinct target:
  // four here, one per document of a whole run).
  assert.deepEqual(scope!.notes.filter((n) => n.includes('have no readable gold, so every cell that reads the gold is not computable')), [
    '4 item(s) have no readable gold, so every cell that reads the gold is not computable (they stay in the denominator): the gold index cannot be read from the target without the choice list (e.g. target "always got the easier cases.")',
  ]);
  const recorded = JSON.parse(runCli(['rescore', externalFixture('lm-evaluation-harness/bigrefactor-2023-06/pretrained=EleutherAI__pythia-2.8b_winogrande.jsonl'), '--extractors', 'as-recorded', '--json']).stdout);
  assert.deepEqual(recorded.as_recorded[0].cells[0].items.taken_as_recorded, { count: 4, why: ['4 item(s): the gold index cannot be read from the target without the choice list'] });
});

test('a results-only source (pythia v0.3) says it has no per-item records instead of printing nothing', async () => {
  const { runCli } = await import('../helpers/cli.ts');
  const file = externalFixture('pythia/zero-shot/160m_step143000.json');
  const text = runCli(['rescore', file]);
  assert.equal(text.status, 0, text.stderr);
  assert.match(text.stdout, /no per-item records imported \(87 task\(s\) with reported numbers only\), so nothing to rescore/);
  const json = JSON.parse(runCli(['rescore', file, '--json']).stdout);
  assert.deepEqual(json.cells, []);
  assert.equal(json.runs_without_items[0].reported_tasks, 87);
});

test('as-recorded on a results-only source lists the tasks it cannot reproduce by name, not in the results dict order', async () => {
  const { rescoreAsRecorded } = await import('../../src/score/asRecorded.ts');
  const { store } = await loadSource([externalFixture('pythia/zero-shot/160m_step143000.json')], { skipBad: false, fields: {} });
  const [section] = await rescoreAsRecorded(store);
  // python3: ', '.join(sorted(json.load(open(f))['results'])[:12]) — the file's own order starts crows_pairs_english, crows_pairs_french_race_color.
  assert.equal(
    section!.note,
    '87 task(s)/group(s) have printed numbers but no per-sample records in the store, so nothing to reproduce; by name: arc_challenge, arc_easy, crows_pairs_english, crows_pairs_english_age, crows_pairs_english_autre, crows_pairs_english_disability, crows_pairs_english_gender, crows_pairs_english_nationality, crows_pairs_english_physical_appearance, crows_pairs_english_race_color, crows_pairs_english_religion, crows_pairs_english_sexual_orientation, …',
  );
});
