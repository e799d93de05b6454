import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cliArgs, repoRoot, runCli } from '../helpers/cli.ts';
import { openStore } from '../../src/store/readStore.ts';
import { queryRows } from '../../src/util/duckdb.ts';
import { PyRandom } from '../../src/py/random.ts';
import { slowTests } from '../helpers/slow.ts';

// 240 loglikelihood + 60 generate_until requests; the dummy backend takes 15 ms a batch of 4.
const FLAGS = ['run', '--model', 'dummy', '--model_args', 'latency_ms=15', '--tasks', 'arc_easy,gsm8k', '--limit', '60', '--batch_size', '4'];
const TOTAL = 300;
// Kill points, and how many of them must cut the requests in the middle: three in the plain suite (each a run of the
// CLI, 1.5 CPU s; six until the suite passed 5 minutes on a slower 2-core machine), ten as a slow cross-check (.ci/run).
// The points come from a seeded generator, the same first three in both.
const KILLS = slowTests ? { points: 10, midway: 5 } : { points: 3, midway: 2 };

const partsIn = (store: string) => {
  try {
    return readdirSync(join(store, 'responses.parts')).filter((n) => n.startsWith('part-')).length;
  } catch {
    return 0;
  }
};

/**
 * Runs the CLI and kills it with SIGKILL: after `afterParts` more response parts reach the
 * store (a point inside the requests, whatever the machine's speed), or, when that is 0,
 * after `afterMs` (a point in start-up, prompt building or the store's creation).
 */
function runUntilKilled(args: string[], store: string, afterParts: number, afterMs: number): Promise<{ code: number | null; signal: string | null; stderr: string }> {
  return new Promise((resolve) => {
    const p = spawn(process.execPath, [...cliArgs, ...args], { cwd: repoRoot, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    p.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const base = partsIn(store);
    const timer = afterParts === 0 ? setTimeout(() => p.kill('SIGKILL'), afterMs) : null;
    const poll = afterParts === 0 ? null : setInterval(() => {
      if (partsIn(store) >= base + afterParts) p.kill('SIGKILL');
    }, 2);
    p.on('exit', (code, signal) => {
      if (timer) clearTimeout(timer);
      if (poll) clearInterval(poll);
      resolve({ code, signal, stderr });
    });
  });
}

type Row = Record<string, unknown>;
async function rows(sql: string): Promise<Row[]> {
  return (await queryRows<Row>(sql)).map((r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, typeof v === 'bigint' ? Number(v) : v])));
}

/** The store opens, and every response it holds is there once. */
async function heldOnce(store: string): Promise<number> {
  const s = await openStore(store);
  const [counts] = await rows(`SELECT count(*) AS n, count(DISTINCT task || '/' || doc_id || '/' || request_idx || '/' || "repeat") AS k FROM ${s.table('responses')}`);
  assert.equal(counts!.n, counts!.k, `${store}: a response is held twice`);
  if (s.unfinished) assert.deepEqual(s.unfinished, { responses: counts!.n, expected: TOTAL });
  return counts!.n as number;
}

test(`lmaudit run killed with SIGKILL at ${KILLS.points} random points and resumed each time ends with every response once, equal to an uninterrupted run`, { timeout: 400_000 }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'lmaudit-kill-'));
  const store = join(dir, 'killed');
  const rnd = new PyRandom(16);
  const held: number[] = [];
  let finished = false;
  for (let i = 0; i < KILLS.points && !finished; i++) {
    const started = existsSync(join(store, 'provenance.json'));
    // One kill in four lands in start-up (a random moment), the others after 1–6 more parts of 75.
    const early = rnd.random() < 0.25;
    const result = await runUntilKilled([...FLAGS, ...(started ? ['--resume', store] : ['--out', store])], store, early ? 0 : 1 + Math.floor(rnd.random() * 6), 100 + Math.floor(rnd.random() * 1500));
    if (result.signal === null) assert.equal(result.code, 0, result.stderr);
    if (!existsSync(join(store, 'provenance.json'))) {
      held.push(-1);
      continue;
    }
    held.push(await heldOnce(store));
    finished = (await openStore(store)).unfinished === undefined;
  }
  if (!finished) {
    const last = runCli([...FLAGS, '--resume', store]);
    assert.equal(last.status, 0, last.stderr);
  }
  assert.equal(await heldOnce(store), TOTAL);
  // Most kills must have cut the requests in the middle, or the test proved little.
  assert.ok(held.filter((n) => n > 0 && n < TOTAL).length >= KILLS.midway, `responses held after each kill: ${held.join(', ')}`);

  const whole = join(dir, 'whole');
  const clean = runCli([...FLAGS, '--out', whole]);
  assert.equal(clean.status, 0, clean.stderr);
  const a = await openStore(store);
  const b = await openStore(whole);
  const order = 'ORDER BY task, CAST(doc_id AS INT), request_idx';
  const icols = 'task, doc_id, request_idx, request_type, arg_context, arg_continuation, gen_kwargs_json, doc_hash, prompt_hash, target, choices_json, fewshot_doc_ids, response_text';
  assert.deepEqual(await rows(`SELECT ${icols} FROM ${a.table('instances')} ${order}`), await rows(`SELECT ${icols} FROM ${b.table('instances')} ${order}`));
  const rcols = 'task, doc_id, request_idx, "repeat", text, logprob, is_greedy, finish_reason, tokens_in, tokens_out, attempt, from_cache, error';
  const ra = await rows(`SELECT ${rcols} FROM ${a.table('responses')} ${order}`);
  assert.equal(ra.length, TOTAL);
  assert.deepEqual(ra, await rows(`SELECT ${rcols} FROM ${b.table('responses')} ${order}`));
  const scols = 'task, doc_id, filter, metric, value_json';
  assert.deepEqual(await rows(`SELECT ${scols} FROM ${a.table('scores')} ORDER BY ALL`), await rows(`SELECT ${scols} FROM ${b.table('scores')} ORDER BY ALL`));
  assert.deepEqual(a.manifest.runs[0]!.reported, b.manifest.runs[0]!.reported);
  // The resumed run kept one run id and one recording from start to finish.
  assert.equal(JSON.parse(readFileSync(join(store, 'provenance.json'), 'utf8')).recording.status, 'finished');
});
