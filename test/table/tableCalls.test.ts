/**
 * The table's cost line counts the responses of the row's task, and says what it does not know. On gpt2-tiny's
 * cells-mc (7 tasks) and diff-tasks (3 tasks) runs (fixtures/models/lmeval-reference, real lm-eval 0.4.13 output),
 * arc_challenge's table printed "705 responses recorded, 705 sent to the model, 0 answered from a response already
 * held": 705 is every response of both runs (545 + 160), and lm-eval's samples do not say whether a response came from
 * its cache. arc_challenge holds 20 documents × 4 choices in each run (python3: sum(len(r['resps'])) over the two
 * samples_arc_challenge_*.jsonl is 80 + 80).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadSource } from '../../src/audit/source.ts';
import { buildTables } from '../../src/audit/table.ts';
import { externalFixture, fixturePath } from '../helpers/fixtures.ts';

const OPTIONS = { skipBad: false, fields: {} };

test('table: responses are counted per task, and an imported run does not claim them sent to the model', async () => {
  const base = fixturePath('models/lmeval-reference/gpt2-tiny');
  const { store } = await loadSource([`${base}/cells-mc`, `${base}/diff-tasks`], OPTIONS);
  const [t] = await buildTables(store, { aggregation: 'micro', tolerance: 0, task: 'arc_challenge' });
  assert.deepEqual(t!.rows.map((r) => r.calls), [{ responses: 80, shared: 0, unrecorded: 80 }, { responses: 80, shared: 0, unrecorded: 80 }]);
  const config = t!.costs.find((c) => c.model_calls)!;
  assert.equal(config.detail, 'each row is a run with its own requests: 160 responses recorded, whether each was sent to the model or answered from a cache is not recorded');
});

test('table of reported numbers only: the aggregation is the source\'s, not computed from stored answers', async () => {
  // Pythia-160m 0-shot and 5-shot (v0.3 results, no samples).
  const { store } = await loadSource([externalFixture('pythia')], OPTIONS);
  const [t] = await buildTables(store, { aggregation: 'micro', tolerance: 0, task: 'arc_easy' });
  assert.deepEqual(t!.columns.map((c) => c.source), ['reported', 'reported']);
  assert.equal(t!.costs.find((c) => c.axis === 'aggregation (micro)')!.detail, 'as the source aggregated (its reported numbers); no model call');
});

test('table span: one cell has none, and three settings "separate" them', async () => {
  const { tableFindings } = await import('../../src/report/tableText.ts');
  // Pythia-160m 0-shot alone: crows_pairs_english reports one rate (pct_stereotype 0.5617); the table said
  // "the 0.0-point span is no setting differs read by reported pct_stereotype vs no setting differs read by … (nothing separate them)".
  const { store } = await loadSource([externalFixture('pythia/zero-shot')], OPTIONS);
  const [one] = await buildTables(store, { aggregation: 'micro', tolerance: 0, task: 'crows_pairs_english' });
  assert.equal(tableFindings(one!).find((l) => l.startsWith('span:')), 'span: one cell (no setting differs read by reported pct_stereotype), so no span');
  // The two Pythia runs on lambada_openai: 0.3284 vs 0.2573, three settings apart.
  const both = await loadSource([externalFixture('pythia')], OPTIONS);
  const [two] = await buildTables(both.store, { aggregation: 'micro', tolerance: 0, task: 'lambada_openai' });
  assert.match(tableFindings(two!).find((l) => l.startsWith('span:'))!, /^span: the 7\.1-point span is .* \(fewshot\.count, model\.batch_size, model\.device separate them\)$/);
});

test('table span: equal cells have none', async () => {
  const { tableFindings } = await import('../../src/report/tableText.ts');
  // Llama-3-8B-Instruct asdiv at batch 8 and batch 1: greedy/none is 0.92 on both rows (lm-eval's acc 0.92 twice).
  const base = fixturePath('lmeval/pr2236-asdiv');
  const { store } = await loadSource([`${base}/asdiv`, `${base}/asdiv_cot`], OPTIONS);
  const [t] = await buildTables(store, { aggregation: 'micro', tolerance: 0 });
  assert.equal(tableFindings(t!).find((l) => l.startsWith('span:')), 'span: all 2 cells are 0.9200, so no span');
});

test('table "down" line: equal rows are not a lowest and a highest', async () => {
  const { tableFindings } = await import('../../src/report/tableText.ts');
  const base = fixturePath('lmeval/pr2236-asdiv');
  const { store } = await loadSource([`${base}/asdiv`, `${base}/asdiv_cot`], OPTIONS);
  const [t] = await buildTables(store, { aggregation: 'micro', tolerance: 0 });
  // It read "down greedy/none: 0.0 points (batch size 8 0.9200 to batch size 8 0.9200)".
  assert.equal(tableFindings(t!).find((l) => l.startsWith('down ')), 'down greedy/none: 0.0 points (all 2 rows 0.9200)');
});
