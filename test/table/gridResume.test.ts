/**
 * `lmaudit run --grid … --resume <store>` continues a grid that stopped (a backend that fails after
 * seven batches): the finished cells are reused as they are, the unfinished one continues through
 * the run recorder's resume, the rest run; the merged store holds what an uninterrupted grid's does
 * (per-sample scores, answers and which of them were shared), and its counts stay true. A changed
 * flag or axis is refused naming it, and a fresh run over an unfinished grid's folder is refused.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { queryRows } from '../../src/util/duckdb.ts';
import { openStore, type OpenStore } from '../../src/store/readStore.ts';
import { cliArgs } from '../helpers/cli.ts';
import { slowOnly } from '../helpers/slow.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

function lmaudit(...args: string[]) {
  const r = spawnSync(process.execPath, [...cliArgs, ...args], { cwd: ROOT, encoding: 'utf8', timeout: 300_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

// arc_easy, 5 documents of 4 choices: 20 requests a cell, 5 batches of 4. Cells 2 and 4 repeat cells 1 and 3
// request for request (max_gen_toks does not reach a log-likelihood task), so they send nothing.
const GRID = ['--tasks', 'arc_easy', '--limit', '5', '--batch_size', '4', '--grid', 'num_fewshot=0,1', '--grid', 'max_gen_toks=8,16'];
// Batches 1-5 are cell 1's, 6-7 cell 3's first 8 requests; batch 8 fails. A resume's backend starts counting again.
const FAILING = ['--model', 'dummy', '--model_args', 'fail_after=7'];

/** Per cell (in grid order): its per-sample scores and its answers, with which were shared. */
async function cellContents(store: OpenStore): Promise<unknown[]> {
  const out: unknown[] = [];
  for (const cell of store.manifest.grid!.cells) {
    const where = `WHERE run_id = '${cell.run_id}'`;
    out.push({
      settings: cell.settings,
      scores: await queryRows(`SELECT task, doc_id, filter, metric, value_json FROM ${store.table('scores')} ${where} ORDER BY ALL`),
      responses: await queryRows(`SELECT task, doc_id, request_idx, "repeat", logprob, is_greedy, from_cache FROM ${store.table('responses')} ${where} ORDER BY task, doc_id, request_idx, "repeat"`),
      instances: await queryRows(`SELECT task, doc_id, request_idx, arg_context, arg_continuation FROM ${store.table('instances')} ${where} ORDER BY ALL`),
    });
  }
  return out;
}

// A slow cross-check (10 s, a fiftieth of the plain suite on a slower 2-core machine): .ci/run runs it; the plain suite keeps
// test/table/gridRun.test.ts's grid and test/run/killResume.test.ts's resume.
test('--grid --resume: an interrupted grid continued equals the uninterrupted one; reused cells are named and cost no model call', { skip: slowOnly }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'lmaudit-grid-resume-'));
  const whole = join(dir, 'whole');
  const full = lmaudit('run', '--model', 'dummy', ...GRID, '--out', whole, '--json');
  assert.equal(full.code, 0, full.stderr);

  const store = join(dir, 'resumed');
  const failed = lmaudit('run', ...FAILING, ...GRID, '--out', store);
  assert.equal(failed.code, 3, failed.stderr);
  assert.match(failed.stderr, /grid cell 3 of 4 \(num_fewshot=1 max_gen_toks=8\): the backend failed: dummy backend: failing batch 8 as fail_after=7 asks\n2 cell\(s\) finished; `lmaudit run … --grid … --resume .*resumed` \(the same flags\) continues the grid/);
  assert.equal(existsSync(store), false, 'nothing merged');
  assert.deepEqual(readdirSync(`${store}.grid-cells`).sort(), ['0', '1', '2', 'grid.json']);
  assert.deepEqual((await openStore(join(`${store}.grid-cells`, '2'))).unfinished, { responses: 8, expected: 20 });

  // Changed flags or axes are refused before anything runs, naming the setting; so is a fresh start over the folder.
  const limit = lmaudit('run', ...FAILING, ...GRID.map((a) => (a === '5' ? '6' : a)), '--resume', store);
  assert.equal(limit.code, 2);
  assert.match(limit.stderr, /--resume .*resumed: --limit changed \(the grid was started with 5, now 6\)/);
  const axes = lmaudit('run', ...FAILING, ...GRID.map((a) => (a === 'max_gen_toks=8,16' ? 'max_gen_toks=8,32' : a)), '--resume', store);
  assert.equal(axes.code, 2);
  assert.match(axes.stderr, /--grid changed \(the grid was started with num_fewshot=0,1 × max_gen_toks=8,16, now num_fewshot=0,1 × max_gen_toks=8,32\)/);
  const model = lmaudit('run', '--model', 'dummy', ...GRID, '--resume', store);
  assert.equal(model.code, 2);
  assert.match(model.stderr, /--model_args changed/);
  const fresh = lmaudit('run', ...FAILING, ...GRID, '--out', store);
  assert.equal(fresh.code, 2);
  assert.match(fresh.stderr, /an unfinished grid is in .*resumed\.grid-cells; `lmaudit run … --grid … --resume .*resumed` continues it/);

  const resumed = lmaudit('run', ...FAILING, ...GRID, '--resume', store, '--json');
  assert.equal(resumed.code, 0, resumed.stderr);
  const json = JSON.parse(resumed.stdout) as { grid: { requests: unknown; resumes: unknown }; cells: { reused: boolean; sent: number }[] };
  assert.equal(existsSync(`${store}.grid-cells`), false, 'the working folder is gone');
  assert.deepEqual(json.cells.map((c) => c.reused), [true, true, false, false]);
  assert.deepEqual(json.cells.map((c) => c.sent), [0, 0, 12, 20], 'cell 3 asked its 12 unanswered requests; cell 4 asked all 20 (answered by sharing)');
  assert.deepEqual(json.grid.resumes, [{ reused: [0, 1], continued: 2, held: 8 }]);

  const a = await openStore(whole);
  const b = await openStore(store);
  // 80 asked: cells 1 and 3 sent their 20 each (cell 3's in two sessions), cells 2 and 4 shared theirs, as uninterrupted.
  assert.deepEqual(a.manifest.grid!.requests, { total: 80, sent: 40, shared: 40 });
  assert.deepEqual(b.manifest.grid!.requests, a.manifest.grid!.requests);
  assert.deepEqual(b.manifest.grid!.resumes, [{ reused: [0, 1], continued: 2, held: 8 }]);
  assert.equal(b.manifest.runs.length, 4);
  assert.deepEqual(await cellContents(b), await cellContents(a));
  const again = lmaudit('run', ...FAILING, ...GRID, '--resume', store);
  assert.equal(again.code, 2);
  assert.match(again.stderr, /the grid there finished; nothing to resume/);

  // Stopped again and again (two batches a session): each resume goes on from where the last stopped, the
  // record lists them all, the text names what each did, and the store still equals the uninterrupted one.
  const often = join(dir, 'often');
  const TWO = ['--model', 'dummy', '--model_args', 'fail_after=2'];
  assert.equal(lmaudit('run', ...TWO, ...GRID, '--out', often).code, 3);
  const codes: (number | null)[] = [];
  let last = { code: null as number | null, stdout: '', stderr: '' };
  while (codes.length < 6 && last.code !== 0) {
    last = lmaudit('run', ...TWO, ...GRID, '--resume', often);
    codes.push(last.code);
  }
  // Cell 1 holds 8 after the first session, 16 after the next; then it finishes, cell 2 shares, cell 3 goes 4, 12, done.
  assert.deepEqual(codes, [3, 3, 3, 0], last.stderr);
  const c = await openStore(often);
  assert.deepEqual(c.manifest.grid!.resumes, [
    { reused: [], continued: 0, held: 8 },
    { reused: [], continued: 0, held: 16 },
    { reused: [0, 1], continued: 2, held: 4 },
    { reused: [0, 1], continued: 2, held: 12 },
  ]);
  assert.deepEqual(c.manifest.grid!.requests, a.manifest.grid!.requests);
  assert.deepEqual(await cellContents(c), await cellContents(a));
  assert.ok(
    last.stdout.includes(
      'Resumed: no cell had finished; [num_fewshot=0 max_gen_toks=8] continued (8 response(s) already held)\n' +
        'Resumed: no cell had finished; [num_fewshot=0 max_gen_toks=8] continued (16 response(s) already held)\n' +
        'Resumed: [num_fewshot=0 max_gen_toks=8], [num_fewshot=0 max_gen_toks=16] reused as they were (no model call); [num_fewshot=1 max_gen_toks=8] continued (4 response(s) already held)\n' +
        'Resumed: [num_fewshot=0 max_gen_toks=8], [num_fewshot=0 max_gen_toks=16] reused as they were (no model call); [num_fewshot=1 max_gen_toks=8] continued (12 response(s) already held); ' +
        '[num_fewshot=1 max_gen_toks=16] run afresh\n',
    ),
    last.stdout,
  );
  assert.match(last.stdout, /Requests: 80 asked by the cells, 40 sent to the model, 40 answered from an identical request of an earlier cell \(recorded as from_cache\)/);
});
