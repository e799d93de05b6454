/**
 * A careless user's mistakes on the command line: each is refused with exit 2 and a message that names the flag
 * or file, never an internal error with a stack, and a refused command leaves nothing behind.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawn, spawnSync } from 'node:child_process';
import { createServer, type AddressInfo } from 'node:net';
import { cliArgs, ONE_THREAD, repoRoot, runCli } from '../helpers/cli.ts';
import { slowOnly } from '../helpers/slow.ts';

const tmp = () => mkdtempSync(join(tmpdir(), 'lmaudit-careless-'));

test('--num_fewshot 1.5 is refused as lm-eval refuses it (argparse int), not a RangeError from the few-shot sampler', () => {
  const dir = tmp();
  const prompts = runCli(['prompts', '--tasks', 'arc_easy', '--limit', '2', '--num_fewshot', '1.5', '--out', join(dir, 'p.jsonl')]);
  assert.equal(prompts.status, 2, prompts.stderr);
  assert.equal(prompts.stderr, "lmaudit: --num_fewshot takes a whole number ≥ 0, got '1.5'\n");
  const run = runCli(['run', '--model', 'dummy', '--tasks', 'arc_easy', '--limit', '2', '--num_fewshot', '1.5', '--out', join(dir, 'store')]);
  assert.equal(run.status, 2, run.stderr);
  assert.equal(run.stderr, "lmaudit: --num_fewshot takes a whole number ≥ 0, got '1.5'\n");
  for (const value of ['1.5', '-1']) {
    const grid = runCli(['run', '--model', 'dummy', '--tasks', 'arc_easy', '--limit', '2', '--grid', `num_fewshot=0,${value}`, '--out', join(dir, `grid${value}`)]);
    assert.equal(grid.status, 2, grid.stderr);
    assert.match(grid.stderr, new RegExp(`--grid num_fewshot: '${value.replace('.', '\\.')}' is not a whole number ≥ 0\\n$`));
  }
});

test('a grid value refused leaves no unfinished grid behind: the corrected command runs (it was told an unfinished grid blocks --out, and --resume that --grid changed)', () => {
  const dir = tmp();
  const out = join(dir, 'grid');
  const args = ['run', '--model', 'dummy', '--tasks', 'arc_easy', '--limit', '1', '--out', out, '--grid'];
  // The second cell's seed is refused by lm-eval's --seed parsing; before, the first cell ran and the grid stopped there.
  const bad = runCli([...args, 'seed=1,x']);
  assert.equal(bad.status, 2, bad.stderr);
  assert.equal(bad.stderr, "lmaudit: field 'seed': --seed values must be integers or None, got 'x'\n");
  assert.deepEqual(readdirSync(dir), []);
  const good = runCli([...args, 'seed=1,2']);
  assert.equal(good.status, 0, good.stderr);
  assert.deepEqual(readdirSync(dir), ['grid']);
});

test('a grid cell its run refuses before recording anything (no chat template in the model) leaves no folder', () => {
  const dir = tmp();
  const r = runCli(['run', '--model', 'onnx', '--model_args', `pretrained=fixtures/models/gpt2-tiny,${ONE_THREAD}`, '--tasks', 'arc_easy', '--limit', '1', '--grid', 'apply_chat_template=on,off', '--out', join(dir, 'grid')]);
  assert.equal(r.status, 2, r.stderr);
  assert.match(r.stderr, /^lmaudit: --apply_chat_template: the model \(.*gpt2-tiny\) has no chat template; name one/);
  assert.deepEqual(readdirSync(dir), []);
});

test('prompts --out: a folder that does not exist yet is made (as every --out is); a folder given as the file is refused', () => {
  const dir = tmp();
  const nested = join(dir, 'new', 'sub', 'p.jsonl');
  const r = runCli(['prompts', '--tasks', 'arc_easy', '--limit', '2', '--out', nested]);
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stdout.split('\n')[0], `Wrote 2 document(s) to ${nested}`);
  assert.equal(readFileSync(nested, 'utf8').split('\n').length, 3);
  // Written under a temporary name and renamed: nothing else is left beside it.
  assert.deepEqual(readdirSync(join(dir, 'new', 'sub')), ['p.jsonl']);
  const folder = runCli(['prompts', '--tasks', 'arc_easy', '--limit', '2', '--out', dir]);
  assert.equal(folder.status, 2, folder.stderr);
  assert.equal(folder.stderr, `lmaudit: ${dir}: is a folder: --out names the JSONL file to write (e.g. prompts.jsonl)\n`);
  writeFileSync(join(dir, 'a-file'), 'x');
  const onFile = runCli(['prompts', '--tasks', 'arc_easy', '--limit', '2', '--out', join(dir, 'a-file', 'p.jsonl')]);
  assert.equal(onFile.status, 2, onFile.stderr);
  assert.equal(onFile.stderr, `lmaudit: ${join(dir, 'a-file', 'p.jsonl')}: cannot create the prompts file: ${join(dir, 'a-file')} is a file, not a folder\n`);
});

test("a file of a store named instead of the store is refused naming the store (it was read as records: provenance.json 'not complete, well-formed JSON', instances.parquet 'no output field')", () => {
  const dir = tmp();
  const store = join(dir, 'store');
  const made = runCli(['import', 'fixtures/lmeval/bigrefactor-2023-06', '--out', store]);
  assert.equal(made.status, 0, made.stderr);
  const why = `a file of the lmaudit run store ${store}, not outputs to import: name the store folder itself (rescore, diff, report, ls, view and export read it as it is)`;
  for (const [command, file] of [['rescore', 'provenance.json'], ['ls', 'instances.parquet'], ['import', 'scores.parquet']] as const) {
    const r = runCli([command, join(store, file), ...(command === 'import' ? ['--out', join(dir, 'again')] : [])]);
    assert.equal(r.status, 2, r.stdout);
    assert.equal(r.stderr, `lmaudit: ${join(store, file)}: ${why}\n`);
  }
  // Named from inside the store, the store is named by its full path, not '.'.
  const inside = runCli(['ls', 'provenance.json'], { cwd: store });
  assert.equal(inside.status, 2);
  assert.equal(inside.stderr, `lmaudit: provenance.json: ${why.replace(store, realpathSync(store))}\n`);
  assert.deepEqual(readdirSync(dir), ['store']);
});

test('--tasks with the path of a task YAML that is not there says so (it listed every known task name); a .yml path is read as a .yaml one is', () => {
  const dir = tmp();
  const missing = join(dir, 'mytask.yaml');
  for (const command of [['prompts', '--out', join(dir, 'p.jsonl')], ['run', '--model', 'dummy', '--out', join(dir, 'store')]]) {
    const r = runCli([...command, '--tasks', `arc_easy,${missing}`, '--limit', '1']);
    assert.equal(r.status, 2, r.stderr);
    assert.equal(r.stderr, `lmaudit: ${missing}, field '--tasks': no such task YAML file (--tasks takes task, group or tag names, or the path of a task YAML)\n`);
  }
  assert.deepEqual(readdirSync(dir), []);
  const yml = join(dir, 'my_arc.yml');
  writeFileSync(yml, readFileSync(join(repoRoot, 'tasks/arc/arc_easy.yaml'), 'utf8').replace(/^task: arc_easy$/m, 'task: my_arc'));
  const r = runCli(['prompts', '--tasks', yml, '--limit', '1', '--out', join(dir, 'p.jsonl')]);
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /^my_arc +0 +1 +2376 +4$/m);
});

test('a near miss of a fixed flag value is answered with "did you mean", as names (extractors, formats, tasks) are', () => {
  const cases: [string[], string][] = [
    [['rescore', 'fixtures/lmeval/bigrefactor-2023-06', '--engine', 'sq'], "lmaudit: field '--engine': --engine must be auto, sql or js, got 'sq'. Did you mean: sql, js?"],
    [['rescore', 'fixtures/lmeval/bigrefactor-2023-06', '--engine', 'duckdb'], "lmaudit: field '--engine': --engine must be auto, sql or js, got 'duckdb'."],
    [['rescore', 'fixtures/lmeval/bigrefactor-2023-06', '--extractors', 'inspect-answer:lettr'], "lmaudit: field 'extractors': inspect-answer needs one of letter, word, line (got 'lettr'). Did you mean: letter?"],
    [['serve', '--model', 'dummy', '--faults', 'kinds=rset'], "lmaudit: --faults: unknown fault kind 'rset' (kinds: 429, 500, 503, reset, slow, malformed, truncated, wrong_echo). Did you mean: reset?"],
    [['serve', '--model', 'dummy', '--faults', 'ratee=0.5'], "lmaudit: --faults: unknown key 'ratee' (keys: rate, seed, kinds, every, retry_after, slow_ms). Did you mean: rate?"],
    [['run', '--model', 'dummy', '--tasks', 'arc_easy', '--out', join(tmp(), 's'), '--cache_requests', 'refrsh'], "lmaudit: --cache_requests takes true, refresh or delete, got 'refrsh'. Did you mean: refresh?"],
  ];
  for (const [args, message] of cases) {
    const r = runCli(args);
    assert.equal(r.status, 2, r.stdout);
    assert.equal(r.stderr, `${message}\n`);
  }
});

test('run and merge check --output_path before any work: a file on the way is exit 2 and no store is written (it ran the whole run, wrote the store, then died with ENOTDIR and a stack)', () => {
  const dir = tmp();
  writeFileSync(join(dir, 'a-file'), 'x');
  for (const outputPath of [join(dir, 'a-file'), join(dir, 'a-file', 'results.json')]) {
    const r = runCli(['run', '--model', 'dummy', '--tasks', 'arc_easy', '--limit', '1', '--output_path', outputPath, '--out', join(dir, 'store')]);
    assert.equal(r.status, 2, r.stderr);
    assert.equal(r.stderr, `lmaudit: ${outputPath}, field '--output_path': cannot create lm-eval's files: ${join(dir, 'a-file')} is a file, not a folder\n`);
  }
  assert.deepEqual(readdirSync(dir), ['a-file']);
  const shards = [0, 1].map((i) => {
    const store = join(dir, `shard${i}`);
    const r = runCli(['run', '--model', 'dummy', '--tasks', 'arc_easy', '--limit', '2', '--shard', `${i}/2`, '--out', store]);
    assert.equal(r.status, 0, r.stderr);
    return store;
  });
  const merged = join(dir, 'merged');
  const r = runCli(['merge', merged, ...shards, '--output_path', join(dir, 'a-file')]);
  assert.equal(r.status, 2, r.stderr);
  assert.equal(r.stderr, `lmaudit: ${join(dir, 'a-file')}, field '--output_path': cannot create lm-eval's files: ${join(dir, 'a-file')} is a file, not a folder\n`);
  const onFile = runCli(['merge', join(dir, 'a-file'), ...shards]);
  assert.equal(onFile.status, 2, onFile.stderr);
  assert.equal(onFile.stderr, `lmaudit: ${join(dir, 'a-file')}: is a file; merge writes a new store folder\n`);
  assert.deepEqual(readdirSync(dir).sort(), ['a-file', 'shard0', 'shard1']);
});

test('--out or --bundle under /proc is exit 2 naming the file system (Node\'s mkdir -p never returns there: the command hung)', () => {
  const source = 'fixtures/lmeval/bigrefactor-2023-06';
  const cases: [string[], string][] = [
    [['ls', source, '--out', '/proc/lmaudit-qa/x.txt'], 'lmaudit: /proc/lmaudit-qa/x.txt: cannot create the listing: /proc is on the kernel\'s proc file system, which holds no files'],
    [['rescore', source, '--out', '/proc/lmaudit-qa/x.parquet'], 'lmaudit: /proc/lmaudit-qa/x.parquet: cannot create the per-item results: /proc is on the kernel\'s proc file system, which holds no files'],
    [['view', source, '--bundle', '/proc/lmaudit-qa/site'], 'lmaudit: /proc/lmaudit-qa/site: cannot create the bundle folder: /proc is on the kernel\'s proc file system, which holds no files'],
  ];
  for (const [args, message] of cases) {
    // A guard, not a measurement: before the fix the command never ended.
    const r = spawnSync(process.execPath, [...cliArgs, ...args], { cwd: repoRoot, encoding: 'utf8', timeout: 120_000 });
    assert.equal(r.status, 2, `${args.join(' ')}: ${r.stderr}`);
    assert.equal(r.stderr, `${message}\n`);
  }
});

test('run --grid --out under a file or /proc is exit 2 before anything runs (it died on ENOTDIR with a stack, or hung)', () => {
  const dir = tmp();
  writeFileSync(join(dir, 'a-file'), 'x');
  const cases: [string, string][] = [
    [join(dir, 'a-file', 'grid'), `cannot create the store: ${join(dir, 'a-file')} is a file, not a folder`],
    ['/proc/lmaudit-qa/grid', "cannot create the store: /proc is on the kernel's proc file system, which holds no files"],
  ];
  for (const [out, why] of cases) {
    const r = spawnSync(process.execPath, [...cliArgs, 'run', '--model', 'dummy', '--tasks', 'arc_easy', '--limit', '1', '--grid', 'num_fewshot=0,1', '--out', out], { cwd: repoRoot, encoding: 'utf8', timeout: 120_000 });
    assert.equal(r.status, 2, r.stderr);
    assert.equal(r.stderr, `lmaudit: ${out}: ${why}\n`);
  }
  assert.deepEqual(readdirSync(dir), ['a-file']);
});

test("what a folder held that was not read is named by every command that imports it, not by import and ls alone (README: 'never skipped silently')", { skip: slowOnly }, () => {
  const dir = tmp();
  const folder = join(dir, 'outputs');
  mkdirSync(folder);
  const records = '{"id": "q1", "output": "A", "gold": "A"}\n{"id": "q2", "output": "B", "gold": "A"}\n';
  writeFileSync(join(folder, 'a.jsonl'), records);
  writeFileSync(join(folder, 'b.jsonl'), records);
  writeFileSync(join(folder, 'run.log'), 'loading model\n');
  const unread = [
    `not read: ${join(folder, 'b.jsonl')} (the same records as ${join(folder, 'a.jsonl')} (run generic-`,
    `not read: ${join(folder, 'run.log')} (plain text, not JSON (e.g. a console log))`,
  ];
  const named = (text: string, side = '') => unread.every((line) => text.split('\n').some((l) => l.startsWith(`${side}${line}`)));
  for (const command of ['ls', 'rescore', 'table']) {
    const r = runCli([command, folder]);
    assert.equal(r.status, 0, r.stderr);
    assert.ok(named(r.stdout), `${command}:\n${r.stdout}`);
  }
  const diff = runCli(['diff', folder, join(folder, 'a.jsonl')]);
  assert.equal(diff.status, 0, diff.stderr);
  assert.ok(named(diff.stdout, 'A: '), diff.stdout);
  // The report and the viewer's bundle are documents: what was not read is said on stderr.
  const report = runCli(['report', folder]);
  assert.equal(report.status, 0, report.stderr);
  assert.ok(named(report.stderr) && !report.stdout.includes('not read:'), report.stderr);
  const bundle = runCli(['view', folder, '--bundle', join(dir, 'site')]);
  assert.equal(bundle.status, 0, bundle.stderr);
  assert.ok(named(bundle.stderr), bundle.stderr);
  const json = runCli(['table', folder, '--json']);
  assert.deepEqual((JSON.parse(json.stdout) as { files_not_recognised: { path: string }[] }).files_not_recognised.map((f) => f.path).sort(), [join(folder, 'b.jsonl'), join(folder, 'run.log')]);
});

test('view --port on a port in use, and serve --host naming no address, are exit 2 saying so (they were internal errors with a stack)', async () => {
  const taken = createServer();
  await new Promise<void>((listening) => taken.listen(0, '127.0.0.1', listening));
  const port = (taken.address() as AddressInfo).port;
  try {
    const r = runCli(['view', 'fixtures/lmeval/bigrefactor-2023-06', '--port', String(port)]);
    assert.equal(r.status, 2, r.stderr);
    assert.equal(r.stderr, `lmaudit: field '--port': cannot listen on 127.0.0.1:${port} (EADDRINUSE): give another --port, or leave it out for a free one\n`);
  } finally {
    taken.close();
  }
  // Not an address, so the resolver is asked, and answers that nothing is called so (ENOTFOUND; EAI_AGAIN with no resolver).
  const host = spawnSync(process.execPath, [...cliArgs, 'serve', '--model', 'dummy', '--host', '999.1.1.1'], { cwd: repoRoot, encoding: 'utf8', timeout: 120_000 });
  assert.equal(host.status, 2, host.stderr);
  assert.match(host.stderr, /^lmaudit: field '--host': cannot listen on 999\.1\.1\.1:0: no address of this machine is called '999\.1\.1\.1' \((ENOTFOUND|EAI_AGAIN)\)\n$/);
});

test('an empty list flag (an unset shell variable, a stray comma) is refused, not read as "no filter" or "no reading"', () => {
  const dir = tmp();
  const source = 'fixtures/lmeval/pr2236-asdiv/asdiv';
  const cases: [string[], string][] = [
    // It rescored every task, as if --tasks were not given.
    [['rescore', source, '--tasks', ','], "lmaudit: field '--tasks': --tasks ',' names nothing; leave the flag out for the default"],
    // It printed 'no cell to compute (the notes say why)' and no note.
    [['rescore', source, '--extractors', ''], "lmaudit: field '--extractors': --extractors '' names nothing; leave the flag out for the default"],
    [['rescore', source, '--aggregations', ' '], "lmaudit: field '--aggregations': --aggregations ' ' names nothing; leave the flag out for the default"],
    [['table', source, '--normalizers', ''], "lmaudit: field '--normalizers': --normalizers '' names nothing; leave the flag out for the default"],
    [['diff', source, source, '--tasks', ''], "lmaudit: field '--tasks': --tasks '' names nothing; leave the flag out for the default"],
    // It wrote an empty prompts file, exit 0.
    [['prompts', '--tasks', '', '--out', join(dir, 'p.jsonl')], "lmaudit: field '--tasks': lmaudit prompts needs --tasks <names> (`lmaudit tasks` lists them)"],
  ];
  for (const [args, message] of cases) {
    const r = runCli(args);
    assert.equal(r.status, 2, `${args.join(' ')}: ${r.stdout}`);
    assert.equal(r.stderr, `${message}\n`);
  }
  assert.deepEqual(readdirSync(dir), []);
});

// The two heaviest of this file (five reports; five commands importing a folder) are slow cross-checks: .ci/run runs them.
test("report --out takes its format from the extension in any case and spelling (audit.HTML and audit.htm were written as Markdown)", { skip: slowOnly }, () => {
  const dir = tmp();
  const cases: [string, string][] = [['a.htm', 'html'], ['b.HTML', 'html'], ['c.markdown', 'md'], ['d.latex', 'tex'], ['e.JSON', 'json'], ['f.txt', 'md'], ['g.constructor', 'md']];
  for (const [name, format] of cases) {
    const r = runCli(['report', 'fixtures/lmeval/bigrefactor-2023-06', '--out', join(dir, name)]);
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stdout, `Wrote ${format} report to ${join(dir, name)}\n`);
  }
  assert.match(readFileSync(join(dir, 'a.htm'), 'utf8'), /^<!doctype html>/i);
});

test('--out x.JSON and x.Parquet are JSON and Parquet, as x.json and x.parquet are (they held the printed text)', () => {
  const dir = tmp();
  const source = 'fixtures/lmeval/bigrefactor-2023-06';
  for (const command of ['ls', 'table', 'rescore']) {
    const r = runCli([command, source, '--out', join(dir, `${command}.JSON`)]);
    assert.equal(r.status, 0, r.stderr);
    assert.doesNotThrow(() => JSON.parse(readFileSync(join(dir, `${command}.JSON`), 'utf8')), command);
  }
  const r = runCli(['rescore', source, '--out', join(dir, 'items.Parquet')]);
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, new RegExp(`Per-item results written to ${join(dir, 'items.Parquet').replaceAll('.', '\\.')}\\n$`));
  // PAR1 opens and closes a Parquet file.
  assert.equal(readFileSync(join(dir, 'items.Parquet')).subarray(0, 4).toString('latin1'), 'PAR1');
});

test('import refuses a field flag nothing would honour, as rescore does (it imported the lm-eval folder and ignored it, exit 0)', () => {
  const dir = tmp();
  const source = 'fixtures/lmeval/bigrefactor-2023-06';
  const r = runCli(['import', source, '--out', join(dir, 'store'), '--id-field', 'foo']);
  assert.equal(r.status, 2, r.stdout);
  assert.equal(r.stderr, `lmaudit: ${source}, field '--id-field': --id-field foo names a field of generic records (JSONL/CSV), but run lmeval-a6a1045467dd805e is a source of kind lm-eval, which records its own id; the flag would be ignored, so it is refused\n`);
  const rescore = runCli(['rescore', source, '--id-field', 'foo']);
  assert.equal(rescore.stderr, r.stderr);
  assert.deepEqual(readdirSync(dir), []);
});

test('tasks --include_path: a file is refused (ENOTDIR with a stack), and a YAML file that does not parse is named (it was left out silently)', () => {
  const dir = tmp();
  writeFileSync(join(dir, 'a-file'), 'x');
  const file = runCli(['tasks', '--include_path', join(dir, 'a-file')]);
  assert.equal(file.status, 2, file.stdout);
  assert.equal(file.stderr, `lmaudit: ${join(dir, 'a-file')}: not a folder: --include_path takes folders of task YAML files (a YAML file itself goes to --tasks)\n`);
  const folder = join(dir, 'mine');
  mkdirSync(folder);
  writeFileSync(join(folder, 'broken.yaml'), 'task: [oops\n');
  writeFileSync(join(folder, 'fine.yaml'), 'task: fine\ndataset_path: json\noutput_type: loglikelihood\ndoc_to_text: "{{q}}"\ndoc_to_target: "{{a}}"\n');
  const r = runCli(['tasks', '--include_path', folder]);
  assert.equal(r.status, 0, r.stderr);
  const lines = r.stdout.trimEnd().split('\n');
  assert.ok(lines.some((l) => l.startsWith('fine ')), r.stdout);
  assert.equal(lines.at(-1), `not read: ${join(folder, 'broken.yaml')}, line 2: malformed YAML: deficient indentation`);
  const json = runCli(['tasks', '--include_path', folder, '--json']);
  assert.doesNotThrow(() => JSON.parse(json.stdout));
  assert.equal(json.stderr, `lmaudit: not read: ${join(folder, 'broken.yaml')}, line 2: malformed YAML: deficient indentation\n`);
});

test('view and serve take --json, as the README says every command does (both refused it: unknown option)', async () => {
  const dir = tmp();
  const r = runCli(['view', 'fixtures/lmeval/bigrefactor-2023-06', '--bundle', join(dir, 'site'), '--json']);
  assert.equal(r.status, 0, r.stderr);
  const bundle = JSON.parse(r.stdout) as { bundle: string; index: string; answers: number };
  assert.deepEqual([bundle.bundle, bundle.index], [join(dir, 'site'), join(dir, 'site', 'index.html')]);
  // Every answer is a file of data/, beside the bundle's mark.
  assert.equal(bundle.answers, readdirSync(join(dir, 'site', 'data')).length - 1);
  for (const args of [['serve', '--model', 'dummy', '--json'], ['view', 'fixtures/lmeval/bigrefactor-2023-06', '--json']]) {
    const child = spawn(process.execPath, [...cliArgs, ...args], { cwd: repoRoot, stdio: ['ignore', 'pipe', 'ignore'] });
    const first = await new Promise<string>((done) => {
      let text = '';
      child.stdout.on('data', (chunk: Buffer) => {
        text += chunk.toString();
        if (text.includes('\n')) done(text.split('\n')[0]!);
      });
      // A command that ends without a line (refused) ends the wait too.
      child.once('exit', () => done(text));
    });
    child.kill('SIGTERM');
    await new Promise((exited) => child.once('exit', exited));
    const line = JSON.parse(first) as { url: string; model?: string };
    assert.match(line.url, /^http:\/\/127\.0\.0\.1:\d+\/?$/);
    if (args[0] === 'serve') assert.deepEqual(line, { url: line.url, model: 'dummy', backend: 'dummy' });
  }
});

test('--out naming a folder is refused as such (the message named the temporary file the rename left: ".x.tmp-… -> x")', () => {
  const dir = tmp();
  for (const [command, what] of [['ls', 'listing'], ['report', 'report'], ['table', 'tables']] as const) {
    const r = runCli([command, 'fixtures/lmeval/bigrefactor-2023-06', '--out', dir]);
    assert.equal(r.status, 2, r.stdout);
    assert.equal(r.stderr, `lmaudit: ${dir}: is a folder: --out names the file to write the ${what} to\n`);
  }
  assert.deepEqual(readdirSync(dir), []);
});
