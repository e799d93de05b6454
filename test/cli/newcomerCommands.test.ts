/**
 * The commands a newcomer looks for (issue 25 §5): `lmaudit tasks`, `lmaudit ls`, --out as a path
 * on every command, --tasks narrowing the audit commands, and what a finished store says.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cliArgs, repoRoot, runCli } from '../helpers/cli.ts';
import { queryRows } from '../../src/util/duckdb.ts';
import { slowOnly } from '../helpers/slow.ts';

const tmp = () => mkdtempSync(join(tmpdir(), 'lmaudit-newcomer-'));
const PYTHIA_0 = 'fixtures/external/pythia/zero-shot';
const PYTHIA_5 = 'fixtures/external/pythia/five-shot';

/** One small finished store, shared by the tests below (dummy backend: 2 arc_easy documents × 4 choices, 2 gsm8k documents). */
const shared = tmp();
const STORE = join(shared, 'store');
const made = runCli(['run', '--model', 'dummy', '--tasks', 'arc_easy,gsm8k', '--limit', '2', '--out', STORE]);
assert.equal(made.status, 0, made.stderr);

test('lmaudit tasks: every task, group and tag with output type, few-shot default (the YAML value) and source file', () => {
  const r = runCli(['tasks']);
  assert.equal(r.status, 0, r.stderr);
  const row = (name: string) => r.stdout.split('\n').find((l) => l.startsWith(`${name} `))?.split(/ {2,}/);
  assert.deepEqual(row('arc_easy'), ['arc_easy', 'task', 'multiple_choice', '0', 'tasks/arc/arc_easy.yaml']);
  // tasks/gsm8k/gsm8k.yaml says num_fewshot: 5.
  assert.deepEqual(row('gsm8k'), ['gsm8k', 'task', 'generate_until', '5', 'tasks/gsm8k/gsm8k.yaml']);
  // tasks/arc/arc_easy.yaml tags ai2_arc; arc_challenge includes it.
  assert.deepEqual(row('ai2_arc'), ['ai2_arc', 'tag', 'multiple_choice', '—', '2 task(s)']);
  // mmlu's children are groups whose children are tags: the type is their leaf tasks'.
  assert.deepEqual(row('mmlu'), ['mmlu', 'group', 'multiple_choice', '—', 'tasks/mmlu/default/_mmlu.yaml']);
});

test('lmaudit tasks --include_path adds a folder; its task is listed with the path as typed', () => {
  const dir = tmp();
  mkdirSync(join(dir, 'mine'));
  writeFileSync(join(dir, 'mine', 'my_task.yaml'), 'task: my_task\ndataset_path: json\noutput_type: loglikelihood\nnum_fewshot: 3\ndoc_to_text: "{{q}}"\ndoc_to_target: "{{a}}"\n');
  const r = runCli(['tasks', '--include_path', join(dir, 'mine')]);
  assert.equal(r.status, 0, r.stderr);
  assert.ok(r.stdout.split('\n').some((l) => l.split(/ {2,}/).join('|') === `my_task|task|loglikelihood|3|${join(dir, 'mine')}/my_task.yaml`), r.stdout);
  const without = runCli(['tasks']);
  assert.ok(!without.stdout.includes('my_task'));
});

test('lmaudit ls: runs, tasks, items, reported scores and whether the run finished, nothing rescored', () => {
  const r = runCli(['ls', 'fixtures/lmeval/pr1668-wmdp']);
  assert.equal(r.status, 0, r.stderr);
  // results.json reports exact_match 1.0 ± 0 for the group and its three tasks; only wmdp_cyber's samples (100) are there.
  assert.equal(r.stdout.split('\n').slice(2).join('\n').replace(/lmeval-[0-9a-f]+/, 'ID'), [
    'run ID (fixtures/lmeval/pr1668-wmdp/results.json): imported (lm-eval results+samples), 4 task(s)',
    '  task        items  requests  reported by the source',
    '  ----------  -----  --------  ----------------------',
    '  wmdp            0         0  exact_match,none 1 ± 0',
    '  wmdp_bio        0         0  exact_match,none 1 ± 0',
    '  wmdp_chem       0         0  exact_match,none 1 ± 0',
    '  wmdp_cyber    100       100  exact_match,none 1 ± 0',
    '',
  ].join('\n'));
  const s = runCli(['ls', STORE]);
  assert.equal(s.status, 0, s.stderr);
  assert.match(s.stdout, /: finished, 2 task\(s\)$/m);
  assert.match(s.stdout, /^ {2}arc_easy +2 +8 +acc,none \d/m);
  assert.match(s.stdout, /^ {2}gsm8k +2 +2 +exact_match,strict-match \d/m);
});

test('rescore --out names a file: .parquet per-item rows, another name the printed text; bare --out still appends to the store', async () => {
  const dir = tmp();
  const json = runCli(['rescore', STORE, '--tasks', 'arc_easy', '--json']);
  assert.equal(json.status, 0, json.stderr);
  const cells = (JSON.parse(json.stdout) as { cells: { task: string }[] }).cells;
  assert.ok(cells.length > 0 && cells.every((c) => c.task === 'arc_easy'));
  const parquet = join(dir, 'x.parquet');
  const r = runCli(['rescore', STORE, '--tasks', 'arc_easy', '--out', parquet]);
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, new RegExp(`Per-item results written to ${parquet}`));
  // One row per (document, cell): 2 documents.
  const rows = await queryRows<{ n: number; docs: number }>(`SELECT count(*)::INTEGER AS n, count(DISTINCT doc_id)::INTEGER AS docs FROM read_parquet('${parquet}')`);
  assert.deepEqual(rows[0], { n: 2 * new Set(cells.map((c) => `${(c as unknown as { extractor: string }).extractor}/${(c as unknown as { normalizer: string }).normalizer}`)).size, docs: 2 });
  const text = join(dir, 'r.txt');
  const t = runCli(['rescore', STORE, '--out', text]);
  assert.equal(t.status, 0, t.stderr);
  assert.equal(t.stdout, `Wrote the rescoring report to ${text}\n`);
  assert.match(readFileSync(text, 'utf8'), /^arc_easy {2}\(run /m);
  const bare = runCli(['rescore', STORE, '--out']);
  assert.equal(bare.status, 0, bare.stderr);
  assert.match(bare.stdout, new RegExp(`Per-item results appended to ${STORE}/rescores/[^ ]+\\.parquet`));
});

// A slow cross-check since the plain suite passed 5 minutes on a slower 2-core machine: .ci/run runs it.
test('diff, report and table take --tasks: the Pythia 0-shot vs 5-shot diff narrows to lambada_openai', { skip: slowOnly }, () => {
  const whole = runCli(['diff', PYTHIA_0, PYTHIA_5]);
  assert.equal(whole.status, 0, whole.stderr);
  const one = runCli(['diff', PYTHIA_0, PYTHIA_5, '--tasks', 'lambada_openai']);
  assert.equal(one.status, 0, one.stderr);
  assert.ok(whole.stdout.match(/^-- task /gm)!.length > 1);
  assert.deepEqual(one.stdout.match(/^-- task .*/gm), ['-- task lambada_openai']);
  const report = runCli(['report', PYTHIA_0, '--against', PYTHIA_5, '--tasks', 'lambada_openai']);
  assert.equal(report.status, 0, report.stderr);
  assert.ok(!/arc_easy|hellaswag|piqa/.test(report.stdout), 'report narrowed');
  const table = runCli(['table', STORE, '--tasks', 'gsm8k']);
  assert.equal(table.status, 0, table.stderr);
  assert.ok(table.stdout.includes('gsm8k') && !table.stdout.includes('arc_easy'));
  // --run-a chooses runs, whole: given a task's name it says which flag narrows to the task.
  const runA = runCli(['diff', PYTHIA_0, PYTHIA_5, '--run-a', 'lambada_openai']);
  assert.equal(runA.stderr, 'lmaudit: --run-a/--run-b lambada_openai chooses the runs that hold that task, with all their tasks; --tasks lambada_openai compares only that task\n');
  const unknown = runCli(['diff', PYTHIA_0, PYTHIA_5, '--tasks', 'lambada']);
  assert.equal(unknown.status, 2);
  assert.match(unknown.stderr, /Unknown task in this source 'lambada'\. Did you mean: .*lambada_openai/);
  const out = join(tmp(), 'd.txt');
  const written = runCli(['diff', PYTHIA_0, PYTHIA_5, '--tasks', 'lambada_openai', '--out', out]);
  assert.equal(written.stdout, `Wrote the diff to ${out}\n`);
  assert.equal(readFileSync(out, 'utf8'), one.stdout);
});

test('run on a finished store says what to do instead (a new --out, or ls/rescore/report on it)', () => {
  const look = `To run again give a new --out; to look at it use \`lmaudit ls ${STORE}\`, \`lmaudit rescore ${STORE}\` or \`lmaudit report ${STORE}\``;
  const advice = `the run in ${STORE} already finished; nothing is left to send. ${look}`;
  // --out may ask for what the store's run never sent (here --limit 3 of a --limit 2 run): "nothing is left to send" was false.
  const out = runCli(['run', '--model', 'dummy', '--tasks', 'arc_easy,gsm8k', '--limit', '3', '--out', STORE]);
  assert.equal(out.status, 2);
  assert.equal(out.stderr, `lmaudit: --out: ${STORE} already holds a finished run, and a store is written once. ${look}\n`);
  const resume = runCli(['run', '--model', 'dummy', '--tasks', 'arc_easy,gsm8k', '--limit', '2', '--resume', STORE]);
  assert.equal(resume.status, 2);
  assert.equal(resume.stderr, `lmaudit: --resume: ${advice}\n`);
  assert.ok(existsSync(join(STORE, 'responses.parquet')), 'the store is left as it was');
});

test('an unfinished store: ls says how many responses it holds, run --out says to --resume it', async () => {
  const store = join(tmp(), 'stopped');
  // The dummy backend at 15 ms a batch of 4: killed once two response parts are durable (test/run/killResume.test.ts does the same).
  const args = ['run', '--model', 'dummy', '--model_args', 'latency_ms=15', '--tasks', 'arc_easy', '--limit', '60', '--batch_size', '4'];
  await new Promise<void>((done) => {
    const p = spawn(process.execPath, [...cliArgs, ...args, '--out', store], { cwd: repoRoot, stdio: 'ignore' });
    const parts = () => (existsSync(join(store, 'responses.parts')) ? readdirSync(join(store, 'responses.parts')).filter((n) => n.startsWith('part-')).length : 0);
    const poll = setInterval(() => parts() >= 2 && p.kill('SIGKILL'), 2);
    p.on('exit', () => {
      clearInterval(poll);
      done();
    });
  });
  const ls = runCli(['ls', store]);
  assert.equal(ls.status, 0, ls.stderr);
  const held = ls.stdout.match(/: unfinished: (\d+) of 240 responses, 1 task\(s\)$/m);
  assert.ok(held !== null && Number(held[1]) > 0 && Number(held[1]) < 240, ls.stdout);
  const again = runCli([...args, '--out', store]);
  assert.equal(again.status, 2);
  assert.equal(again.stderr, `lmaudit: --out ${store} holds an unfinished run; to continue it use --resume ${store} (with the same flags), or give a new --out\n`);
});
