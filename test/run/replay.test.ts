/**
 * `--model replay`: a stored run answered again from its own responses. The reference is the
 * stored run itself: the replay must give its results and per-sample scores exactly, without a
 * model (the replay backend counts what it answered; the onnx backend's counters are absent).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ONE_THREAD, runCli } from '../helpers/cli.ts';
import { queryRows } from '../../src/util/duckdb.ts';

const TASKS = ['--tasks', 'arc_easy,gsm8k', '--gen_kwargs', 'max_gen_toks=8'];
const ENV = { env: { LMAUDIT_PROGRESS_SECONDS: '3600' } };
const dir = mkdtempSync(join(tmpdir(), 'lmaudit-replay-'));
const original = join(dir, 'original');

type Summary = { sent: number; backend_counters: Record<string, number>; results: unknown; replay?: { requests: number; missing_requests: number; documents_left_out: Record<string, string[]> } };
let originalSummary: Summary;

/** The rows of a table without run_id (two runs of one configuration differ only there). */
async function rows(store: string, table: string, columns: string): Promise<unknown[]> {
  return queryRows(`SELECT ${columns} FROM read_parquet('${join(store, `${table}.parquet`)}') ORDER BY ALL`);
}

const provenance = (store: string) => JSON.parse(readFileSync(join(store, 'provenance.json'), 'utf8')) as { runs: Array<Record<string, any>>; recording: { config: Record<string, string> } };

test.before(() => {
  const r = runCli(['run', '--model', 'onnx', '--model_args', `pretrained=fixtures/models/gpt2-tiny,${ONE_THREAD}`, ...TASKS, '--limit', '4', '--out', original, '--json'], ENV);
  assert.equal(r.status, 0, r.stderr);
  originalSummary = JSON.parse(r.stdout) as Summary;
});

test('replay reproduces the stored run exactly: results, per-sample scores and responses, with no model call', async () => {
  const out = join(dir, 'replayed');
  const r = runCli(['run', '--model', 'replay', '--model_args', `store=${original}`, ...TASKS, '--limit', '4', '--out', out, '--json'], ENV);
  assert.equal(r.status, 0, r.stderr);
  const replayed = JSON.parse(r.stdout) as Summary;
  assert.deepEqual(replayed.results, originalSummary.results);
  // Every request answered from the store, counted: the original's instances (16 choices of 4 arc_easy documents, 4 gsm8k generations).
  const instances = (await queryRows<{ n: number }>(`SELECT count(*) AS n FROM read_parquet('${join(original, 'instances.parquet')}')`))[0]!.n;
  assert.equal(instances, 20);
  assert.equal(replayed.sent, instances);
  assert.deepEqual(replayed.backend_counters, { answered_from_store: instances });
  assert.ok('forward_passes' in originalSummary.backend_counters, 'the original run did call the model');
  assert.deepEqual(await rows(out, 'scores', 'task, doc_id, filter, metric, value, value_json'), await rows(original, 'scores', 'task, doc_id, filter, metric, value, value_json'));
  assert.deepEqual(await rows(out, 'filtered', 'task, doc_id, filter, line, filtered_json, metrics_json'), await rows(original, 'filtered', 'task, doc_id, filter, line, filtered_json, metrics_json'));
  const answer = 'task, doc_id, request_idx, "repeat", text, logprob, is_greedy, finish_reason, tokens_in, tokens_out';
  assert.deepEqual(await rows(out, 'responses', answer), await rows(original, 'responses', answer));
  const cached = await queryRows<{ n: number }>(`SELECT count(*) AS n FROM read_parquet('${join(out, 'responses.parquet')}') WHERE from_cache`);
  assert.equal(cached[0]!.n, instances, 'every replayed response is recorded as from_cache');

  // The provenance keeps the model that answered and names the store replayed, with its responses' sha256.
  const run = provenance(out).runs[0]!;
  const was = provenance(original).runs[0]!;
  assert.equal(run.model.backend.used.value, 'onnx');
  assert.deepEqual(run.model.model_id, was.model.model_id);
  assert.deepEqual(run.reported, was.reported);
  const sha = createHash('sha256').update(readFileSync(join(original, 'responses.parquet'))).digest('hex');
  assert.deepEqual(run.records.files.used.value, [{ path: join(original, 'responses.parquet'), sha256: sha, role: 'replayed responses' }]);
  assert.ok(run.notes.some((n: { kind: string; message: string }) => n.kind === 'replay' && n.message.includes(sha)));
  // Resuming a replay must use replay again: its own flags are what it records.
  assert.equal(provenance(out).recording.config['--model'], 'replay');

  const diff = runCli(['diff', original, out]);
  assert.match(diff.stdout, /no run-level setting differs/);
});

test('a task YAML edited only in its filters and metrics replays with no model call and is scored under the new rules', () => {
  const include = join(dir, 'edited-tasks');
  mkdirSync(include, { recursive: true });
  const yaml = readFileSync('tasks/gsm8k/gsm8k.yaml', 'utf8');
  // One filter (the last number in the answer) and exact_match without its regexes: the requests are unchanged.
  const filters = yaml.slice(yaml.indexOf('filter_list:'), yaml.indexOf('metadata:'));
  const metrics = yaml.slice(yaml.indexOf('metric_list:'), yaml.indexOf('generation_kwargs:'));
  const edited = yaml
    .replace(filters, 'filter_list:\n  - name: "last-number"\n    filter:\n      - function: "regex"\n        group_select: -1\n        regex_pattern: "(-?[0-9]+)"\n      - function: "take_first"\n')
    .replace(metrics, 'metric_list:\n  - metric: exact_match\n    aggregation: mean\n    higher_is_better: true\n');
  writeFileSync(join(include, 'gsm8k.yaml'), edited);
  const out = join(dir, 'edited');
  const r = runCli(['run', '--model', 'replay', '--model_args', `store=${original}`, '--include_path', include, '--tasks', 'gsm8k', '--gen_kwargs', 'max_gen_toks=8', '--limit', '4', '--out', out, '--json'], ENV);
  assert.equal(r.status, 0, r.stderr);
  const summary = JSON.parse(r.stdout) as Summary & { results: Array<{ task: string; metrics: Array<{ filter: string; n: number }> }> };
  assert.deepEqual(summary.backend_counters, { answered_from_store: 4 });
  assert.deepEqual(summary.results[0]!.metrics.map((m) => [m.filter, m.n]), [['last-number', 4]]);
});

test('requests the store does not answer are listed and refused (exit 2, nothing stored); --allow-missing leaves their documents out and says so', () => {
  const out = join(dir, 'more');
  const args = ['run', '--model', 'replay', '--model_args', `store=${original}`, ...TASKS, '--limit', '6', '--out', out];
  const refused = runCli(args, ENV);
  assert.equal(refused.status, 2, refused.stderr);
  assert.equal(existsSync(out), false, 'nothing is stored');
  const m = /(\d+) of (\d+) request\(s\) have no recorded answer/.exec(refused.stderr);
  assert.ok(m, refused.stderr);
  // The store answers its 20 requests; documents 4 and 5 of each task are not in it.
  assert.equal(Number(m[2]) - Number(m[1]), 20);
  const listed = refused.stderr.split('\n').filter((l) => /^ {2}(arc_easy|gsm8k) doc [45] request \d+ \((loglikelihood|generate_until)\)$/.test(l));
  assert.equal(listed.length, Math.min(10, Number(m[1])));
  if (Number(m[1]) > 10) assert.match(refused.stderr, new RegExp(`… and ${Number(m[1]) - 10} more`));

  const allowed = runCli([...args, '--allow-missing', '--json'], ENV);
  assert.equal(allowed.status, 0, allowed.stderr);
  const summary = JSON.parse(allowed.stdout) as Summary & { results: Array<{ metrics: Array<{ n: number }> }> };
  assert.equal(summary.replay!.missing_requests, Number(m[1]));
  assert.deepEqual(summary.replay!.documents_left_out, { arc_easy: ['4', '5'], gsm8k: ['4', '5'] });
  assert.ok(summary.results.every((t) => t.metrics.every((x) => x.n === 4)));
  assert.match(allowed.stderr, /--allow-missing: \d+ request\(s\) had no recorded answer/);
  const run = provenance(out).runs[0]!;
  const notes = run.notes.filter((n: { kind: string }) => n.kind === 'replay-missing');
  assert.deepEqual(notes.map((n: { task: string; evidence: string[] }) => [n.task, JSON.parse(n.evidence[0]!).doc_ids]), [['arc_easy', ['4', '5']], ['gsm8k', ['4', '5']]]);
  assert.equal(run.tasks.gsm8k.failures.in_denominator.used.value, false);

  const plain = runCli(['run', '--model', 'onnx', '--model_args', 'pretrained=fixtures/models/gpt2-tiny', ...TASKS, '--limit', '1', '--out', join(dir, 'x'), '--allow-missing']);
  assert.equal(plain.status, 2);
  assert.match(plain.stderr, /--allow-missing goes with --model replay/);
});

test('an unfinished store replays what it holds: the rest is refused, and --allow-missing scores the documents it answers in full', async () => {
  const { executeRun } = await import('../../src/run/runner.ts');
  const { RunEvents } = await import('../../src/run/events.ts');
  const { BadInputError } = await import('../../src/errors.ts');
  const { readdirSync } = await import('node:fs');
  const store = join(dir, 'stopped');
  const options = (model: string, modelArgs: Record<string, string | number>, out: string, allowMissing = false) => ({
    model, modelArgs, tasks: ['arc_easy'], numFewshot: null, batchSize: 1, limit: 3, applyChatTemplate: null, fewshotAsMultiturn: null, systemInstruction: null,
    genKwargs: null, seed: null, store: out, resume: false, outputPath: null, date: new Date(), allowMissing,
  });
  // The dummy backend fails its sixth call: five responses (one request per batch) are held, in document order.
  await assert.rejects(executeRun(options('dummy', { fail_after: 5 }, store), new RunEvents()), /failing batch 6/);
  const perDoc = await queryRows<{ doc_id: string; n: number }>(`SELECT doc_id, count(*)::INTEGER AS n FROM read_parquet('${join(store, 'instances.parquet')}') GROUP BY doc_id ORDER BY doc_id::INTEGER`);
  let sent = 0;
  const whole = perDoc.filter((d) => (sent += d.n) <= 5).map((d) => d.doc_id);
  const missing = perDoc.reduce((n, d) => n + d.n, 0) - 5;
  assert.ok(whole.length >= 1 && whole.length < perDoc.length, 'some documents are held in full, some not');

  await assert.rejects(executeRun(options('replay', { store }, join(dir, 'never')), new RunEvents()), (e: Error) => e instanceof BadInputError && e.message.includes(`${missing} of ${missing + 5} request(s) have no recorded answer`));
  assert.equal(existsSync(join(dir, 'never')), false);
  const out = join(dir, 'from-stopped');
  const summary = await executeRun(options('replay', { store }, out, true), new RunEvents());
  assert.deepEqual(summary.tasks[0]!.docs.map((d) => String(d.doc_id)), whole);
  assert.equal(summary.replay!.missing!.requests.length, missing);
  // Its responses are the parts: named with their digest (the part files in order).
  const parts = join(store, 'responses.parts');
  const digest = createHash('sha256').update(Buffer.concat(readdirSync(parts).filter((n) => !n.startsWith('.')).sort().map((n) => readFileSync(join(parts, n))))).digest('hex');
  assert.deepEqual(provenance(out).runs[0]!.records.files.used.value, [{ path: parts, sha256: digest, role: 'replayed responses (an unfinished store: its response parts, hashed in part order)' }]);
});
