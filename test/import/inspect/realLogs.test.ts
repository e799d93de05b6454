import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { importSources } from '../../../src/import/index.ts';
import { loadSource } from '../../../src/audit/source.ts';
import { rescoreInspectAsRecorded } from '../../../src/score/inspect/rescore.ts';
import { queryRows } from '../../../src/util/duckdb.ts';
import { sha256Hex } from '../../../src/util/hash.ts';
import { externalFixture } from '../../helpers/fixtures.ts';

const DIR = externalFixture('inspect/');
const LOGS = readdirSync(DIR).filter((f) => f.endsWith('.eval') || f.endsWith('.json')).sort();
const options = { skipBad: false, fields: {} };

test('every Inspect log in fixtures/external/inspect imports, one run each', async () => {
  assert.equal(LOGS.length, 7);
  const { runs } = await importSources([DIR], options);
  assert.deepEqual(runs.map((r) => r.provenance.label).sort(), LOGS);
  for (const run of runs) assert.equal(run.provenance.source_kind, 'inspect');
  const count = (label: string, table: 'instances' | 'responses' | 'scores') => {
    const run = runs.find((r) => r.provenance.label === label)!;
    return (run.tables[table] as { rows: unknown[] }).rows.length;
  };
  // log_streaming: 2 samples × 2 epochs; scores = 4 epoch rows + 2 reductions.
  assert.equal(count('log_streaming.eval', 'instances'), 2);
  assert.equal(count('log_streaming.eval', 'responses'), 4);
  assert.equal(count('log_streaming.eval', 'scores'), 6);
  // The unscored popularity log: 10 samples, `scores: {}` everywhere, no reductions.
  assert.equal(count('2025-02-11T15-17-00-05-00_popularity_dPiJifoWeEQBrfWsAopzWr.eval', 'scores'), 0);
  assert.equal(count('2025-02-11T15-17-00-05-00_popularity_dPiJifoWeEQBrfWsAopzWr.eval', 'responses'), 10);
});

test('samples map to instances, responses and scores; the completion and epochs come from the JSON', async () => {
  const { store } = await loadSource([`${DIR}log_streaming.eval`], options);
  const responses = await queryRows<{ doc_id: string; repeat: bigint; text: string }>(
    `SELECT doc_id, "repeat", text FROM ${store.table('responses')} ORDER BY doc_id, "repeat"`,
  );
  assert.deepEqual(responses.map((r) => [r.doc_id, Number(r.repeat)]), [['1', 0], ['1', 1], ['2', 0], ['2', 1]]);
  const scores = await queryRows<{ doc_id: string; filter: string; metric: string; value: number; value_json: string }>(
    `SELECT doc_id, filter, metric, value, value_json FROM ${store.table('scores')} WHERE filter LIKE 'reduced:%' ORDER BY doc_id`,
  );
  // reductions.json holds 0.5 and 1.0 (SOURCES.md).
  assert.deepEqual(scores.map((s) => [s.doc_id, s.filter, s.metric, s.value]), [['1', 'reduced:mean', 'match', 0.5], ['2', 'reduced:mean', 'match', 1]]);
  const inst = await queryRows<{ doc_hash: string; target: string; doc_json: string }>(`SELECT doc_hash, target, doc_json FROM ${store.table('instances')} ORDER BY doc_id`);
  const doc = JSON.parse(inst[0]!.doc_json) as { input: string; target: string };
  assert.equal(inst[0]!.doc_hash, sha256Hex(doc.input), 'doc_hash is sha256 of the input text (aligns with lm-eval by content)');
  assert.equal(inst[0]!.target, doc.target);
});

test('mmlu: choices, the templated prompt, output.completion and the score with its history', async () => {
  const { store } = await loadSource([`${DIR}mmlu-summary-choices.eval`], options);
  const [inst] = await queryRows<{ choices_json: string; arg_context: string; target: string }>(`SELECT choices_json, arg_context, target FROM ${store.table('instances')}`);
  assert.deepEqual(JSON.parse(inst!.choices_json), ['6.0 e', '6.8 eV', '12.2 eV', '13.6 eV']);
  assert.ok(inst!.arg_context.endsWith('closest to\n\nA) 6.0 e\nB) 6.8 eV\nC) 12.2 eV\nD) 13.6 eV'));
  assert.equal(inst!.target, 'A');
  const [resp] = await queryRows<{ text: string; finish_reason: string; tokens_in: bigint }>(`SELECT text, finish_reason, tokens_in FROM ${store.table('responses')}`);
  assert.deepEqual([resp!.text, resp!.finish_reason, Number(resp!.tokens_in)], ['ANSWER: C', 'stop', 153]);
  const [filtered] = await queryRows<{ filter: string; filtered_json: string }>(`SELECT filter, filtered_json FROM ${store.table('filtered')} WHERE filter = 'choice@epoch:1'`);
  assert.deepEqual(JSON.parse(filtered!.filtered_json), { value: 'I', answer: 'C', explanation: 'ANSWER: C', history: [] });
});

test('the EvalSpec lands in the provenance block; what Inspect did not record is unknown', async () => {
  const { store } = await loadSource([`${DIR}mmlu-summary-choices.eval`], options);
  const run = store.manifest.runs[0]!;
  const t = run.tasks['inspect_evals/mmlu_0_shot']!;
  assert.deepEqual(run.harness.version!.used, { status: 'recorded', value: '0.3.154.dev44+g32a84c8fe.d20251213', from: 'eval.packages.inspect_ai' });
  // eval.revision (de1d065be, dirty) is the checkout Inspect ran from, not inspect_ai's commit, which its
  // development version names (+g32a84c8fe, .d20251213: built from a modified tree).
  assert.deepEqual(run.harness.commit!.used, { status: 'inferred', value: '32a84c8fe', how: 'the +g<commit> of eval.packages.inspect_ai (a development build names its commit)' });
  assert.deepEqual([run.harness.dirty!.used.status, (run.harness.dirty!.used as { value: unknown }).value], ['inferred', true]);
  assert.deepEqual((run.harness.run_from_git!.used as { value: unknown }).value, { type: 'git', origin: 'git@github.com:UKGovernmentBEIS/inspect_ai.git', commit: 'de1d065be', dirty: true });
  assert.deepEqual(t.task.args, {
    configured: { status: 'recorded', value: {}, from: 'eval.task_args_passed' },
    used: { status: 'recorded', value: { language: 'EN_US', subjects: [], cot: false }, from: 'eval.task_args (defaults included)' },
  });
  assert.deepEqual((t.samples.document_ids!.used as { value: unknown }).value, [1]);
  assert.equal((t.samples.shuffled!.used as { value: unknown }).value, false);
  assert.deepEqual((t.repeats.reducer!.used as { value: unknown }).value, ['mean']);
  assert.equal((t.failures.fail_on_error!.used as { status: string }).status, 'recorded');
  assert.equal((t.generation.max_tokens!.used as { value: unknown }).value, 5);
  assert.deepEqual(t.task.dataset_split!.used, { status: 'unknown' });
  assert.deepEqual(run.reported['inspect_evals/mmlu_0_shot'], { 'accuracy,choice': 0, 'stderr,choice': 0 });
  // An old log has no explicit reducer: inferred, never invented as recorded. Its eval.revision has no dirty flag;
  // whether inspect_ai was built from a modified tree is its version's .d20241015.
  const old = (await loadSource([`${DIR}log_formats.json`], options)).store.manifest.runs[0]!;
  assert.deepEqual([old.harness.commit!.used.status, (old.harness.commit!.used as { value: unknown }).value], ['inferred', '9ad2119a']);
  assert.deepEqual([old.harness.dirty!.used.status, (old.harness.dirty!.used as { value: unknown }).value], ['inferred', true]);
  // 0.3.95.dev16+g6527d0861 names its commit; without a .d<date> nothing says the tree was clean when it ran (an
  // editable install keeps the version it was installed with), so dirty stays unknown rather than false.
  const clean = (await loadSource([`${DIR}2025-05-12T20-28-13-04-00_popularity.json`], options)).store.manifest.runs[0]!;
  assert.deepEqual((clean.harness.commit!.used as { value: unknown }).value, '6527d0861');
  assert.deepEqual(clean.harness.dirty!.used, { status: 'unknown' });
  assert.equal((old.tasks.popularity!.repeats.reducer!.used as { status: string }).status, 'inferred');
  assert.ok(old.notes.some((n) => n.kind === 'inspect_legacy_log' && n.evidence.includes('results.sample_reductions -> reductions')));
});

test('as recorded: Inspect\'s own scorers reproduce every stored sample score and metric exactly', async () => {
  const { store } = await loadSource([DIR], options);
  const cells = await rescoreInspectAsRecorded(store);
  const label = (runId: string) => store.manifest.runs.find((r) => r.run_id === runId)!.label;
  const summary = Object.fromEntries(
    cells
      .filter((c) => c.samples.compared > 0)
      .map((c) => [label(c.run_id), { scorer: c.scorer, n: c.samples.compared, agree: c.samples.agree, metrics: Object.fromEntries(c.metrics.map((m) => [m.metric, [m.stored, m.from_stored_scores, m.rescored, m.reproduced]])) }]),
  );
  assert.deepEqual(summary, {
    '2025-02-11T15-18-04-05-00_popularity_mj7khqpMM4GBCfVQozKgzB.eval': { scorer: 'match', n: 10, agree: 10, metrics: { accuracy: [0.8, 0.8, 0.8, true], stderr: [0.13333333333333333, 0.13333333333333333, 0.13333333333333333, true] } },
    '2025-05-12T20-28-13-04-00_popularity.json': { scorer: 'match', n: 3, agree: 3, metrics: { accuracy: [0.6666666666666666, 0.6666666666666666, 0.6666666666666666, true], stderr: [0.33333333333333337, 0.33333333333333337, 0.33333333333333337, true] } },
    'log_formats.eval': { scorer: 'match', n: 1, agree: 1, metrics: { accuracy: [0, 0, 0, true], stderr: [0, 0, 0, true] } },
    'log_formats.json': { scorer: 'match', n: 1, agree: 1, metrics: { accuracy: [0, 0, 0, true], stderr: [0, 0, 0, true] } },
    'log_streaming.eval': { scorer: 'match', n: 4, agree: 4, metrics: { accuracy: [0.75, 0.75, 0.75, true], stderr: [0.25, 0.25, 0.25, true] } },
    'mmlu-summary-choices.eval': { scorer: 'choice', n: 1, agree: 1, metrics: { accuracy: [0, 0, 0, true], stderr: [0, 0, 0, true] } },
  });
  // The unscored log (scores: {} everywhere, results.scores: []) is rescored like `inspect score` would: nothing to compare.
  const unscored = cells.find((c) => label(c.run_id).includes('dPiJifoWeEQBrfWsAopzWr'))!;
  assert.deepEqual([unscored.scorer, unscored.samples.rescored, unscored.samples.compared], ['match', 10, 0]);
  assert.deepEqual(unscored.metrics.map((m) => [m.metric, m.stored, m.rescored, m.reproduced]), [['accuracy', null, 0.8, null], ['stderr', null, 0.13333333333333333, null]]);
  for (const c of cells.filter((c) => c.samples.compared > 0)) {
    assert.deepEqual(c.samples.differences, [], label(c.run_id));
    assert.equal(c.reductions.agree, c.reductions.compared, label(c.run_id));
  }
});

test("only EvalLog JSON is claimed: not Inspect's logs.json folder index, not lm-eval results", async () => {
  const { inspectImporter } = await import('../../../src/import/inspect/inspectImporter.ts');
  const probe = (name: string, head: string) => inspectImporter.claims({ path: name, name, head, explicit: false });
  assert.equal(probe('x.json', '{\n  "version": 2,\n  "status": "success",\n  "eval": {\n    "run_id": "r", "task": "t"'), true);
  assert.equal(probe('logs.json', '{\n  "2025-01-01T00-00-00_t_x.eval": {\n    "version": 2,\n    "status": "success",\n    "eval": {\n      "task": "t"'), false);
  assert.equal(probe('results.json', '{\n  "results": {"arc_easy": {"acc,none": 0.5}},\n  "versions": {"arc_easy": 1},\n  "config": {}'), false);
  assert.equal(probe('anything.eval', 'PK\u0003\u0004'), true);
});

test('ls says a cancelled Inspect log did not finish (it was listed as plainly "imported")', async () => {
  const { runCli } = await import('../../helpers/cli.ts');
  const r = runCli(['ls', `${DIR}2025-05-12T20-28-13-04-00_popularity.json`]);
  assert.equal(r.status, 0, r.stderr);
  assert.ok(r.stdout.includes("(2025-05-12T20-28-13-04-00_popularity.json): imported (json; not finished: the log's status is 'cancelled'), 1 task(s)"), r.stdout);
  assert.ok(runCli(['ls', `${DIR}log_formats.json`]).stdout.includes('(log_formats.json): imported (json), 1 task(s)'));
});
