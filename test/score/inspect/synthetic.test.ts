import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadSource } from '../../../src/audit/source.ts';
import { rescoreInspectAsRecorded, type InspectRescoreCell } from '../../../src/score/inspect/rescore.ts';
import { queryRows } from '../../../src/util/duckdb.ts';
import { parsePythonJson } from '../../../src/util/json.ts';
import { buildEval } from '../../import/inspect/buildEval.ts';

// fixtures/inspect/synthetic-modern.json is written by fixtures/inspect/scripts/make_synthetic_log.py:
// its stored scores, reductions and metrics are Python's (statistics, numpy).
const LOG = fileURLToPath(new URL('../../../fixtures/inspect/synthetic-modern.json', import.meta.url));
const options = { skipBad: false, fields: {} };

/** The same log as a zstd + ZIP64 .eval, with output.completion removed so the completion comes from the message parts. */
async function asEval(): Promise<string> {
  const log = parsePythonJson(await readFile(LOG, 'utf8')) as Record<string, unknown> & { samples: Record<string, any>[]; reductions: unknown };
  const { samples, reductions, ...header } = log;
  const toText = (v: unknown) => JSON.stringify(v, (_k, x) => (typeof x === 'number' && Number.isNaN(x) ? '__NaN__' : x)).replaceAll('"__NaN__"', 'NaN');
  const members = [
    { name: '_journal/start.json', data: toText({ version: 2, eval: header.eval, plan: header.plan }) },
    ...samples.map((s) => {
      delete s.output.completion;
      return { name: `samples/${s.id}_epoch_${s.epoch}.json`, data: toText(s) };
    }),
    { name: 'reductions.json', data: toText(reductions) },
    { name: 'header.json', data: toText(header) },
  ];
  const file = join(await mkdtemp(join(tmpdir(), 'lmaudit-inspect-')), 'synthetic.eval');
  await buildEval(file, members.map((m) => ({ ...m, method: 'zstd' as const })), { zip64: true });
  return file;
}

function summary(cells: InspectRescoreCell[]) {
  return cells.map((c) => ({
    view: `${c.scorer}${c.value_key === null ? '' : `/${c.value_key}`}@${c.reducer}`,
    differences: c.samples.differences.length,
    reductions: `${c.reductions.agree}/${c.reductions.compared}`,
    reproduced: c.metrics.every((m) => m.reproduced),
  }));
}

for (const variant of ['json', 'eval'] as const) {
  test(`synthetic 0.3.260 log (${variant}): every stored metric is reproduced, over three reducers, dict values and NaN`, async () => {
    const { store } = await loadSource([variant === 'json' ? LOG : await asEval()], options);
    const cells = await rescoreInspectAsRecorded(store);
    assert.deepEqual(summary(cells), [
      ...['mean', 'max', 'pass_at_2'].map((r) => ({ view: `choice@${r}`, differences: 0, reductions: '5/5', reproduced: true })),
      ...['mean', 'max', 'pass_at_2'].map((r) => ({ view: `match@${r}`, differences: 0, reductions: '5/5', reproduced: true })),
      ...['mean', 'max', 'pass_at_2'].flatMap((r) => [
        { view: `grader/correct@${r}`, differences: 0, reductions: '5/5', reproduced: true },
        { view: `grader/style@${r}`, differences: 0, reductions: '5/5', reproduced: true },
      ]),
    ]);
    const choiceMean = cells[0]!;
    // The reviewer's edit: the rescore agrees with the original score; the metrics use the edit.
    assert.deepEqual(choiceMean.edits, [{ doc_id: '4', epoch: 3, original: 'I', current: 'C', author: 'reviewer', reason: 'accepted B as a synonym' }]);
    assert.deepEqual(choiceMean.metrics.map((m) => [m.metric, m.stored, m.rescored]), [['accuracy', 0.6666666666666666, 0.6], ['stderr', 0.10540925533894598, 0.12472191289246472]]);
    // Inspect's own `inspect score --scorer choice` cannot see the solver's flags: everything INCORRECT.
    assert.deepEqual(choiceMean.inspect_own_rescore!.metrics, { accuracy: 0, stderr: 0 });
    assert.equal(choiceMean.inspect_own_rescore!.wrong_samples.length, 10);
    // Summation order is visible in the last bit: the same values sum to ...666 for choice and ...667 for match.
    assert.equal(cells[3]!.metrics[0]!.stored, 0.6666666666666667);
    const boot = cells.find((c) => c.value_key === 'style' && c.reducer === 'mean')!.metrics[1]!;
    assert.equal(boot.comparison, 'tolerance');
    assert.ok(Math.abs(boot.from_stored_scores - boot.stored!) <= boot.tolerance);
    const grader = cells.find((c) => c.scorer === 'grader')!;
    assert.match(grader.unsupported!, /not a built-in text scorer/);
  });
}

test('synthetic log: errors, limits, NaN, string ids with "/" and "_epoch_", task args, generate config', async () => {
  const { store } = await loadSource([await asEval()], options);
  const responses = await queryRows<{ doc_id: string; repeat: bigint; text: string; error: string | null; finish_reason: string }>(
    `SELECT doc_id, "repeat", text, error, finish_reason FROM ${store.table('responses')} WHERE doc_id IN ('3', '4', 'q-5/alpha_epoch_2') ORDER BY doc_id, "repeat"`,
  );
  assert.deepEqual(responses.map((r) => [r.doc_id, Number(r.repeat), r.text, r.error, r.finish_reason]), [
    ['3', 0, 'no idea', null, 'stop'],
    ['3', 1, 'ANSWER: D', null, 'stop'],
    ['3', 2, 'ANSWER: A, D', 'RuntimeError: tool crashed', 'stop'],
    ['4', 0, 'ANSWER: C', null, 'stop'],
    ['4', 1, 'ANSWER:', null, 'max_tokens'],
    ['4', 2, 'ANSWER: B', null, 'stop'],
    ['q-5/alpha_epoch_2', 0, 'ANSWER: A', null, 'stop'],
    ['q-5/alpha_epoch_2', 1, 'ANSWER: A', null, 'stop'],
    ['q-5/alpha_epoch_2', 2, 'ANSWER: A', null, 'stop'],
  ]);
  const nan = await queryRows<{ value: number; value_json: string }>(`SELECT value, value_json FROM ${store.table('scores')} WHERE doc_id = '2' AND filter = 'epoch:3' AND metric = 'grader'`);
  assert.ok(Number.isNaN(nan[0]!.value));
  assert.equal(nan[0]!.value_json, 'NaN');
  const leaf = await queryRows<{ value_json: string }>(`SELECT value_json FROM ${store.table('scores')} WHERE doc_id = '1' AND filter = 'epoch:2' AND metric = 'grader/style'`);
  assert.equal(leaf[0]!.value_json, 'NaN');
  const t = store.manifest.runs[0]!.tasks.synthetic_mc!;
  assert.deepEqual(t.task.args!.configured, { status: 'recorded', value: { variant: 'short' }, from: 'eval.task_args_passed' });
  assert.deepEqual((t.task.args!.used as { value: unknown }).value, { shuffle: false, variant: 'short' });
  assert.deepEqual(t.generation.settings, {
    configured: { status: 'recorded', value: { temperature: 0, max_tokens: 8 }, from: 'plan.config' },
    used: { status: 'recorded', value: { temperature: 0, max_tokens: 16 }, from: 'plan.config + eval.model_generate_config' },
  });
  assert.deepEqual((t.failures.errors!.used as { value: unknown }).value, [{ id: 3, epoch: 3, message: 'RuntimeError: tool crashed' }]);
  assert.deepEqual((t.failures.truncations!.used as { value: unknown }).value, [{ id: 4, epoch: 2, limit: { type: 'token', limit: 4 } }]);
  assert.deepEqual((t.failures.fail_on_error!.used as { value: unknown }).value, 0.5);
  assert.deepEqual((t.repeats.reducer!.used as { value: unknown }).value, ['mean', 'max', 'pass_at_2']);
  assert.deepEqual((t.samples.document_count!.used as { value: unknown }).value, 5);
  // total_samples 15 counts 5 samples × 3 epochs, scored_samples 5 the epoch-reduced scores; the errored result (3,
  // epoch 3) carries scores (score_on_error), so it counts in the metrics. The note said '14 of 15 samples completed
  // and 5 were scored: … the 1 errored sample(s) are not counted as failures'.
  assert.equal(
    store.manifest.runs[0]!.notes.find((n) => n.kind === 'scored_subset')!.message,
    '14 of 15 sample × epoch results (3 epochs) completed without error; the metrics are over 5 epoch-reduced sample score(s); of the 1 errored in the log, 1 carries scores (Inspect counts those in the metrics from 0.3.248 on) and 0 carry none (left out of the metrics) (fail_on_error 0.5)',
  );
});
