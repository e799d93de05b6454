/**
 * `lmaudit run --grid` end to end: cells are runs of one store with provenance that says what
 * differs, identical requests are sent once and counted, and the table over the grid agrees with
 * plain arithmetic over the per-item scores read straight from the store's Parquet files (acc: the
 * gold's log-likelihood is the largest; greedy: the gold continuation is the greedy one).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { PROMPT_VARIANTS } from '../../src/audit/promptVariants.ts';
import { valueOf } from '../../src/audit/provenanceView.ts';
import { buildTables } from '../../src/audit/table.ts';
import { differingSettings } from '../../src/audit/tableLabels.ts';
import { queryRows, sqlString } from '../../src/util/duckdb.ts';
import { openStore } from '../../src/store/readStore.ts';
import { Z95 } from '../../src/score/stats.ts';
import { cliArgs, ONE_THREAD } from '../helpers/cli.ts';
import { slowOnly } from '../helpers/slow.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

function lmaudit(...args: string[]) {
  const r = spawnSync(process.execPath, [...cliArgs, ...args], { cwd: ROOT, encoding: 'utf8', timeout: 300_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** Per (run, task, doc): [acc, greedy], from the stored log-likelihoods alone. */
async function perItem(store: string): Promise<Map<string, [number, number]>> {
  const rows = await queryRows<{ run_id: string; task: string; doc_id: string; request_idx: number; target: string; logprob: number; is_greedy: boolean }>(
    `SELECT i.run_id, i.task, i.doc_id, i.request_idx, i.target, r.logprob, r.is_greedy
     FROM read_parquet(${sqlString(join(store, 'instances.parquet'))}) i JOIN read_parquet(${sqlString(join(store, 'responses.parquet'))}) r USING (run_id, task, doc_id, request_idx)
     ORDER BY i.run_id, i.task, i.doc_id, i.request_idx`,
  );
  const docs = new Map<string, typeof rows>();
  for (const r of rows) {
    const key = `${r.run_id}|${r.task}|${r.doc_id}`;
    docs.set(key, [...(docs.get(key) ?? []), r]);
  }
  const out = new Map<string, [number, number]>();
  for (const [key, rs] of docs) {
    const gold = Number(rs[0]!.target);
    let best = 0;
    rs.forEach((r, i) => { if (r.logprob > rs[best]!.logprob) best = i; });
    out.set(key, [best === gold ? 1 : 0, rs[gold]!.is_greedy ? 1 : 0]);
  }
  return out;
}

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
const se = (xs: number[]) => Math.sqrt(xs.reduce((a, x) => a + (x - mean(xs)) ** 2, 0) / (xs.length - 1)) / Math.sqrt(xs.length);
const near = (a: number | null | undefined, b: number, what: string) => assert.ok(a !== null && a !== undefined && Math.abs(a - b) < 1e-12, `${what}: ${a} vs ${b}`);

// A slow cross-check since the plain suite passed 5 minutes on a slower 2-core machine: .ci/run runs it.
test('--grid num_fewshot=0,5 --grid reasoning=off,on on gpt2-tiny (mmlu_abstract_algebra + arc_easy): four runs in one store, labelled by what differs, the table as arithmetic says', { skip: slowOnly }, async () => {
  const out = join(mkdtempSync(join(tmpdir(), 'lmaudit-grid-')), 'store');
  const r = lmaudit('run', '--model', 'onnx', '--model_args', `pretrained=fixtures/models/gpt2-tiny,${ONE_THREAD}`, '--tasks', 'mmlu_abstract_algebra,arc_easy', '--limit', '6',
    '--grid', 'num_fewshot=0,5', '--grid', 'reasoning=off,on', '--out', out, '--json');
  assert.equal(r.code, 0, r.stderr);
  assert.equal(existsSync(`${out}.grid-cells`), false, 'the working folder is gone');
  const store = await openStore(out);
  const { runs, grid } = store.manifest;
  assert.equal(runs.length, 4);
  assert.deepEqual(grid!.cells.map((c) => c.settings), [
    { num_fewshot: '0', reasoning: 'off' }, { num_fewshot: '0', reasoning: 'on' }, { num_fewshot: '5', reasoning: 'off' }, { num_fewshot: '5', reasoning: 'on' },
  ]);
  assert.deepEqual(grid!.cells.map((c) => c.run_id), runs.map((x) => x.run_id));
  for (const [i, run] of runs.entries()) {
    for (const task of ['arc_easy', 'mmlu_abstract_algebra']) {
      assert.equal(valueOf(run, task, 'fewshot.count'), i < 2 ? 0 : 5);
      assert.equal(valueOf(run, task, 'system.instruction'), i % 2 === 1 ? PROMPT_VARIANTS.reasoning.system_instruction : null);
    }
  }
  // What differs, from the provenance diff alone: the few-shot count and the instruction (what follows from them is left out).
  assert.deepEqual(differingSettings(runs.map((run) => ({ run, task: 'arc_easy' }))), ['fewshot.count', 'system.instruction']);
  // Every request a cell asked went to the model (each cell's prompts differ); the store counts them.
  const responses = await queryRows<{ n: number; cached: number }>(`SELECT count(*)::INTEGER AS n, (count(*) FILTER (WHERE from_cache))::INTEGER AS cached FROM ${store.table('responses')}`);
  assert.deepEqual(grid!.requests, { total: responses[0]!.n - responses[0]!.cached, sent: responses[0]!.n - responses[0]!.cached, shared: 0 });

  const items = await perItem(out);
  const tables = await buildTables(store, { aggregation: 'micro', tolerance: 0, target: 0.5 });
  assert.deepEqual(tables.map((t) => t.task).sort(), ['arc_easy', 'mmlu_abstract_algebra']);
  for (const t of tables) {
    assert.deepEqual(t.rows.map((x) => x.label), ['0-shot · reasoning off', '0-shot · reasoning on', '5-shot · reasoning off', '5-shot · reasoning on']);
    const acc = t.columns.findIndex((c) => c.key === 'acc/none');
    const greedy = t.columns.findIndex((c) => c.key === 'greedy/none');
    const values = t.rows.map((row) => [...items].filter(([k]) => k.startsWith(`${row.run_id}|${t.task}|`)).map(([k, v]) => [k.split('|')[2]!, v] as const));
    t.rows.forEach((row, i) => {
      for (const [col, j] of [[acc, 0], [greedy, 1]] as const) {
        const xs = values[i]!.map(([, v]) => v[j]);
        assert.equal(row.cells[col]!.n, xs.length);
        near(row.cells[col]!.score, mean(xs), `${t.task} ${row.label} ${j}`);
        near(row.cells[col]!.stderr, se(xs), `${t.task} ${row.label} ${j} stderr`);
      }
    });
    // The interaction of 'reasoning off → on' at 0-shot between acc and greedy, item by item.
    const x = t.interactions.find((y) => y.from === '0-shot · reasoning off' && y.to === '0-shot · reasoning on' && y.readings.join() === [t.columns[Math.min(acc, greedy)]!.key, t.columns[Math.max(acc, greedy)]!.key].join())!;
    const a = new Map(values[0]!);
    const sign = acc < greedy ? 1 : -1;
    const d = values[1]!.map(([doc, v]) => sign * ((v[0] - a.get(doc)![0]) - (v[1] - a.get(doc)![1])));
    assert.equal(x.n, d.length);
    near(x.difference, mean(d), `${t.task} interaction`);
    const s = se(d);
    if (s > 0) {
      near(x.stderr, s, 'interaction stderr');
      near(x.ci95![0], mean(d) - Z95 * s, 'interaction ci');
    }
    // Single-axis changes only: 4 of the 6 row pairs, each with every pair of readings.
    const k = t.columns.length;
    assert.equal(t.interactions.length, 4 * (k * (k - 1)) / 2);
  }
  // The table from the command line over the same store.
  const cli = lmaudit('table', out, '--task', 'arc_easy');
  assert.equal(cli.code, 0, cli.stderr);
  assert.match(cli.stdout, /^ {2}5-shot · reasoning on {2}/m);
  assert.match(cli.stdout, /costs model calls: configuration \(rows: fewshot\.count, system\.instruction\)/);
});

test('a grid axis that leaves a task\'s requests unchanged (max_gen_toks on a log-likelihood task): identical requests sent once, counted, and marked from_cache', async () => {
  const out = join(mkdtempSync(join(tmpdir(), 'lmaudit-grid-')), 'store');
  const r = lmaudit('run', '--model', 'dummy', '--tasks', 'arc_easy', '--limit', '5', '--grid', 'num_fewshot=0,1', '--grid', 'max_gen_toks=8,16', '--out', out, '--json');
  assert.equal(r.code, 0, r.stderr);
  const json = JSON.parse(r.stdout);
  const store = await openStore(out);
  const counts = await queryRows<{ run_id: string; n: number; cached: number }>(
    `SELECT run_id, count(*)::INTEGER AS n, (count(*) FILTER (WHERE from_cache))::INTEGER AS cached FROM ${store.table('responses')} GROUP BY run_id`,
  );
  const byRun = new Map(counts.map((c) => [c.run_id, c]));
  const cells = store.manifest.grid!.cells.map((c) => byRun.get(c.run_id)!);
  const perCell = cells[0]!.n;
  // Cells 2 and 4 repeat cells 1 and 3 request for request: every answer of theirs was shared.
  assert.deepEqual(cells.map((c) => c.cached), [0, perCell, 0, perCell]);
  assert.deepEqual(store.manifest.grid!.requests, { total: 4 * perCell, sent: 2 * perCell, shared: 2 * perCell });
  assert.deepEqual(json.grid.requests, store.manifest.grid!.requests);
  const [t] = await buildTables(store, { aggregation: 'micro', tolerance: 0 });
  // max_gen_toks does not reach a log-likelihood task, so the provenance says only the few-shot count differs.
  assert.deepEqual(t!.rows.map((x) => x.label), ['0-shot (run 1 of 2)', '0-shot (run 2 of 2)', '1-shot (run 1 of 2)', '1-shot (run 2 of 2)']);
  assert.deepEqual(t!.rows[0]!.cells, t!.rows[1]!.cells);
  assert.match(t!.costs[0]!.detail, new RegExp(`${4 * perCell} responses recorded, ${2 * perCell} sent to the model, ${2 * perCell} answered from a response already held`));
  assert.ok(readFileSync(join(out, 'provenance.json'), 'utf8').includes('"grid"'));
});

test('a grid file names the same axes as the flags; an unknown axis or a repeated value is refused with the known axes', async () => {
  const { loadGridFile, parseGridFlags, gridCells } = await import('../../src/run/grid.ts');
  const fromFile = await loadGridFile(join(ROOT, 'audits/grids/fewshot-reasoning.yaml'));
  assert.deepEqual(fromFile, parseGridFlags(['num_fewshot=0,5', 'reasoning=off,on']));
  assert.equal(gridCells(fromFile).length, 4);
  assert.throws(() => parseGridFlags(['shots=0,5']), /unknown grid axis 'shots'\. Known: num_fewshot, reasoning, apply_chat_template, system_instruction, max_gen_toks, until, temperature, seed\./);
  assert.throws(() => parseGridFlags(['num_fewshots=0,5']), /unknown grid axis 'num_fewshots'\. Did you mean: num_fewshot\?/);
  assert.throws(() => parseGridFlags(['num_fewshot=0,0']), /repeats a value/);
  assert.throws(() => parseGridFlags(['num_fewshot=0', 'num_fewshot=5']), /given twice/);
});
