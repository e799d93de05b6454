import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../helpers/cli.ts';
import { openStore } from '../../src/store/readStore.ts';
import { queryRows } from '../../src/util/duckdb.ts';
import { parsePyJson } from '../../src/py/json.ts';
import { sha256Hex } from '../../src/util/hash.ts';
import { meanStderr } from '../../src/score/lmeval/aggregate.ts';

const tmp = () => mkdtempSync(join(tmpdir(), 'lmaudit-run-'));
const RUN = ['run', '--model', 'dummy', '--tasks', 'arc_easy,gsm8k', '--limit', '12'];

type Row = Record<string, unknown>;
async function rows(sql: string): Promise<Row[]> {
  return (await queryRows<Row>(sql)).map((r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, typeof v === 'bigint' ? Number(v) : v])));
}

test('lmaudit run with the dummy backend: table, store, lm-eval files; acc as computed by hand from the stored log-probabilities', async () => {
  const dir = tmp();
  const r = runCli([...RUN, '--output_path', join(dir, 'out'), '--out', join(dir, 'store')], { env: { LMAUDIT_PROGRESS_SECONDS: '0' } });
  assert.equal(r.status, 0, r.stderr);
  // stderr is not a terminal here: plain lines, never an escape code.
  assert.ok(!r.stderr.includes('\u001b'), r.stderr);
  assert.match(r.stderr, /loglikelihood 48\/48, generate_until 12\/12/);
  assert.match(r.stdout, /^\|Tasks +\|Version\|Filter +\|n-shot\|Metric +\| \| Value\| \|Stderr\|$/m);
  assert.match(r.stdout, /harness overhead \d+\.\d%/);

  const store = await openStore(join(dir, 'store'));
  assert.equal(store.unfinished, undefined);
  assert.equal(store.manifest.recording?.status, 'finished');
  const inst = await rows(`SELECT * FROM ${store.table('instances')} ORDER BY task, CAST(doc_id AS INT), request_idx`);
  const resp = await rows(`SELECT * FROM ${store.table('responses')}`);
  assert.equal(inst.length, 60);
  assert.equal(resp.length, 60);
  // Each response once, each with tokens, latency and (for generation) a finish reason.
  assert.equal(new Set(resp.map((x) => `${x.task}/${x.doc_id}/${x.request_idx}/${x.repeat}`)).size, 60);
  for (const x of resp) {
    assert.equal(typeof x.tokens_in, 'number');
    assert.equal(typeof x.latency_ms, 'number');
    if (x.task === 'gsm8k') assert.ok(['stop', 'eos', 'length'].includes(String(x.finish_reason)));
  }
  // response_text is the first response's text, for rescoring from one file.
  for (const i of inst.filter((x) => x.task === 'gsm8k')) assert.equal(i.response_text, resp.find((x) => x.task === 'gsm8k' && x.doc_id === i.doc_id)!.text);

  // acc by hand: argmax of the stored log-probabilities against the target index; acc_norm divides by the choice's characters.
  const byKey = new Map(resp.filter((x) => x.task === 'arc_easy').map((x) => [`${x.doc_id}/${x.request_idx}`, x.logprob as number]));
  const arc = inst.filter((x) => x.task === 'arc_easy');
  const docs = [...new Set(arc.map((x) => String(x.doc_id)))];
  const argmax = (xs: number[]) => xs.indexOf(Math.max(...xs));
  const acc = docs.map((d) => {
    const reqs = arc.filter((x) => x.doc_id === d);
    return argmax(reqs.map((q) => byKey.get(`${d}/${q.request_idx}`)!)) === Number(reqs[0]!.target) ? 1 : 0;
  });
  const accNorm = docs.map((d) => {
    const reqs = arc.filter((x) => x.doc_id === d);
    return argmax(reqs.map((q) => byKey.get(`${d}/${q.request_idx}`)! / [...String(q.arg_continuation).slice(1)].length)) === Number(reqs[0]!.target) ? 1 : 0;
  });
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

  const modelDir = join(dir, 'out', 'dummy');
  const files = readdirSync(modelDir).sort();
  const resultsName = files.find((f) => f.startsWith('results_'))!;
  const stamp = resultsName.slice('results_'.length, -'.json'.length);
  assert.deepEqual(files, [resultsName, `samples_arc_easy_${stamp}.jsonl`, `samples_gsm8k_${stamp}.jsonl`]);
  const results = parsePyJson(readFileSync(join(modelDir, resultsName), 'utf8')) as Record<string, Record<string, Record<string, { value: number } | number | string>>>;
  const arcResults = results.results!.arc_easy!;
  const num = (v: unknown) => (typeof v === 'number' ? v : (v as { value: number }).value);
  assert.equal(num(arcResults['acc,none']), mean(acc));
  assert.equal(num(arcResults['acc_norm,none']), mean(accNorm));
  assert.equal(num(arcResults['acc_stderr,none']), meanStderr(acc));
  assert.equal(arcResults.sample_len, 12);
  // The printed table carries the same numbers.
  assert.match(r.stdout, new RegExp(`\\|arc_easy\\|.*\\|acc +\\|↑\\|${mean(acc).toFixed(4)}\\|±\\|${meanStderr(acc).toFixed(4)}\\|`));

  // Samples: one line per document × filter, hashes as lm-eval computes them.
  const gsm = readFileSync(join(modelDir, `samples_gsm8k_${stamp}.jsonl`), 'utf8').trimEnd().split('\n');
  assert.equal(gsm.length, 24);
  const line = JSON.parse(gsm[0]!) as Record<string, unknown>;
  assert.deepEqual(Object.keys(line), ['doc_id', 'doc', 'target', 'arguments', 'resps', 'filtered_resps', 'filter', 'metrics', 'doc_hash', 'prompt_hash', 'target_hash', 'exact_match']);
  assert.equal(line.target_hash, sha256Hex(String(line.target)));
  assert.equal(line.prompt_hash, sha256Hex((line.arguments as Record<string, Record<string, string>>).gen_args_0!.arg_0!));
  const hashes = gsm.map((l) => JSON.parse(l) as Record<string, string>).map((l) => l.doc_hash! + l.prompt_hash! + l.target_hash!).join('');
  assert.equal((results.task_hashes as unknown as Record<string, string>).gsm8k, sha256Hex(hashes));

  // Provenance: configured and used, the stop sequences with what the backend added, the machine.
  const task = store.manifest.runs[0]!.tasks.gsm8k!;
  assert.deepEqual(task.generation.stop_sequences!.used, { status: 'recorded', value: ['Question:', '</s>', '<|im_end|>', '<|endoftext|>'], from: 'stop sequences the backend applied' });
  assert.deepEqual((task.generation.backend_additions!.used as { value: unknown }).value, { stop_sequences: ['<|endoftext|>'], bos_added: false });
  assert.equal((task.generation.max_tokens!.used as { value: unknown }).value, 256);
  const device = (store.manifest.runs[0]!.model.device!.used as { value: Record<string, unknown> }).value;
  assert.equal(typeof device.cpu_model, 'string');
  assert.equal(typeof device.cpu_cores, 'number');
  const files2 = (store.manifest.runs[0]!.records.files!.used as { value: { path: string; sha256: string }[] }).value;
  assert.equal(files2.length, 3);
  assert.equal(files2[0]!.sha256, sha256Hex(readFileSync(files2[0]!.path)));
});

test('the store holds exactly the requests `lmaudit prompts` builds, byte for byte (chat template, few-shot, system instruction, typed --gen_kwargs)', async () => {
  const dir = tmp();
  const flags = ['--tasks', 'arc_easy,gsm8k', '--limit', '5', '--num_fewshot', '2', '--apply_chat_template', 'llama3', '--system_instruction', 'Be brief.', '--gen_kwargs', 'temperature=0.0,top_p=None,max_gen_toks=64'];
  const p = runCli(['prompts', ...flags, '--out', join(dir, 'p.jsonl')]);
  assert.equal(p.status, 0, p.stderr);
  const r = runCli(['run', '--model', 'dummy', ...flags, '--out', join(dir, 'store')]);
  assert.equal(r.status, 0, r.stderr);
  const store = await openStore(join(dir, 'store'));
  const inst = await rows(`SELECT task, doc_id, request_idx, arg_context, arg_continuation, gen_kwargs_json, doc_hash, prompt_hash FROM ${store.table('instances')}`);
  const byKey = new Map(inst.map((x) => [`${x.task}/${x.doc_id}/${x.request_idx}`, x]));
  let compared = 0;
  for (const text of readFileSync(join(dir, 'p.jsonl'), 'utf8').trimEnd().split('\n')) {
    const line = JSON.parse(text) as { task: string; doc_id: number; arguments: unknown[][]; doc_hash: string; prompt_hash: string };
    line.arguments.forEach((args, i) => {
      const row = byKey.get(`${line.task}/${line.doc_id}/${i}`)!;
      assert.equal(row.arg_context, args[0]);
      if (line.task === 'gsm8k') {
        // The prompts file's JSON text of the kwargs, as Python wrote it: 0.0 stays a float, None is null.
        const raw = text.slice(text.indexOf('{', text.indexOf('"arguments"') + 20));
        assert.ok(raw.startsWith(String(row.gen_kwargs_json)), `${row.gen_kwargs_json} vs ${raw.slice(0, 120)}`);
        assert.match(String(row.gen_kwargs_json), /"temperature": 0\.0, "top_p": null, "max_gen_toks": 64\}$/);
      } else assert.equal(row.arg_continuation, args[1]);
      assert.equal(row.doc_hash, line.doc_hash);
      assert.equal(row.prompt_hash, line.prompt_hash);
      compared++;
    });
  }
  assert.equal(compared, inst.length);
  assert.equal(compared, 25);
  // The chat template, the system message and the delimiter that reached the model are in the provenance.
  const arc = store.manifest.runs[0]!.tasks.arc_easy!;
  assert.equal((arc.chat_template.applied!.used as { value: unknown }).value, true);
  assert.equal((arc.chat_template.target_delimiter!.configured as { value: unknown }).value, ' ');
  assert.equal((arc.chat_template.target_delimiter!.used as { value: unknown }).value, '');
  assert.equal((arc.system.message_sent!.used as { value: unknown }).value, 'Be brief.');
  assert.equal((arc.fewshot.count!.used as { value: unknown }).value, 2);
});

test('importing the lm-eval files `run` wrote gives the same instances, responses and as-recorded numbers as its store', async () => {
  const dir = tmp();
  const r = runCli([...RUN, '--output_path', join(dir, 'out'), '--out', join(dir, 'store')]);
  assert.equal(r.status, 0, r.stderr);
  const i = runCli(['import', join(dir, 'out', 'dummy'), '--out', join(dir, 'imported')]);
  assert.equal(i.status, 0, i.stderr);
  const a = await openStore(join(dir, 'store'));
  const b = await openStore(join(dir, 'imported'));
  const cols = 'task, doc_id, request_idx, request_type, arg_context, arg_continuation, gen_kwargs_json, doc_json, doc_hash, prompt_hash, target, response_text';
  const order = 'ORDER BY task, CAST(doc_id AS INT), request_idx';
  assert.deepEqual(await rows(`SELECT ${cols} FROM ${b.table('instances')} ${order}`), await rows(`SELECT ${cols} FROM ${a.table('instances')} ${order}`));
  const rcols = 'task, doc_id, request_idx, "repeat", text, logprob, is_greedy';
  const ra = await rows(`SELECT ${rcols} FROM ${a.table('responses')} ${order}`);
  assert.equal(ra.length, 60);
  assert.deepEqual(await rows(`SELECT ${rcols} FROM ${b.table('responses')} ${order}`), ra);
  const scols = 'task, doc_id, filter, metric, value, value_json';
  assert.deepEqual(await rows(`SELECT ${scols} FROM ${b.table('scores')} ORDER BY ALL`), await rows(`SELECT ${scols} FROM ${a.table('scores')} ORDER BY ALL`));
  const fcols = 'task, doc_id, filter, line, filtered_json, metrics_json';
  assert.deepEqual(await rows(`SELECT ${fcols} FROM ${b.table('filtered')} ORDER BY ALL`), await rows(`SELECT ${fcols} FROM ${a.table('filtered')} ORDER BY ALL`));

  const asRecorded = (store: string) => {
    const out = runCli(['rescore', store, '--extractors', 'as-recorded', '--json']);
    assert.equal(out.status, 0, out.stderr);
    const cells = (JSON.parse(out.stdout) as { as_recorded: { cells: Record<string, unknown>[] }[] }).as_recorded[0]!.cells;
    return cells.map((c) => ({ task: c.task, filter: c.filter, metric: c.metric, n: c.n, value: c.value, stderr: c.stderr, reported: c.reported, matches_reported: c.matches_reported }));
  };
  const mine = asRecorded(join(dir, 'store'));
  assert.equal(mine.length, 4);
  assert.ok(mine.every((c) => c.matches_reported === true));
  assert.deepEqual(asRecorded(join(dir, 'imported')), mine);
  // diff and report read the run store.
  const d = runCli(['diff', join(dir, 'store'), join(dir, 'imported'), '--json']);
  assert.ok(d.status === 0 || d.status === 1, d.stderr);
  const rep = runCli(['report', join(dir, 'store'), '--format', 'md', '--out', join(dir, 'report.md')]);
  assert.equal(rep.status, 0, rep.stderr);
  assert.match(readFileSync(join(dir, 'report.md'), 'utf8'), /arc\\_easy/);
});

test('bad input: an unknown backend or task, or a store that exists, exits 2 naming the flag and stores nothing', () => {
  const dir = tmp();
  const store = join(dir, 'store');
  const m = runCli(['run', '--model', 'dumy', '--tasks', 'arc_easy', '--out', store]);
  assert.equal(m.status, 2);
  assert.match(m.stderr, /^lmaudit: --model: Unknown model backend 'dumy'\. Did you mean: dummy\?/);
  const t = runCli(['run', '--model', 'dummy', '--tasks', 'arc_easyy', '--out', store]);
  assert.equal(t.status, 2);
  assert.match(t.stderr, /^lmaudit: --tasks: Unknown task 'arc_easyy'\. Did you mean: arc_easy/);
  const g = runCli(['run', '--model', 'dummy', '--model_args', 'sed=1', '--tasks', 'arc_easy', '--out', store]);
  assert.equal(g.status, 2);
  assert.match(g.stderr, /--model_args: the dummy backend takes seed, latency_ms, max_length, fail_after; got 'sed'/);
  assert.equal(existsSync(store), false);
  assert.deepEqual(readdirSync(dir), []);
  for (const res of [m, t, g]) assert.doesNotMatch(res.stderr, /\n +at /);
});

test('a backend failure stops the run with the responses so far stored; the store reads as unfinished; --resume finishes it and refuses a changed setting', async () => {
  const dir = tmp();
  const store = join(dir, 'store');
  const f = runCli(['run', '--model', 'dummy', '--model_args', 'fail_after=5', '--tasks', 'arc_easy', '--limit', '10', '--batch_size', '4', '--out', store]);
  assert.equal(f.status, 3, f.stderr);
  assert.match(f.stderr, /the backend failed: dummy backend: failing batch 6.*\n20 of 40 responses are stored in .*--resume/);
  const open = await openStore(store);
  assert.deepEqual(open.unfinished, { responses: 20, expected: 40 });
  assert.match(open.manifest.runs[0]!.notes.at(-1)!.message, /^unfinished: 20 of 40 responses/);
  // rescore reads the unfinished store (its items through the join).
  const rs = runCli(['rescore', store, '--json']);
  assert.equal(rs.status, 0, rs.stderr);
  assert.match(rs.stderr, /: unfinished: 20 of 40 responses \(read as it stands/);
  assert.equal((JSON.parse(rs.stdout) as { denominator: { items_read: number } }).denominator.items_read, 10);

  const changed = runCli(['run', '--model', 'dummy', '--model_args', 'fail_after=5', '--tasks', 'arc_easy', '--limit', '11', '--batch_size', '4', '--resume', store]);
  assert.equal(changed.status, 2);
  assert.match(changed.stderr, /--resume .*: --limit changed \(the run was started with 10, now 11\)/);
  const args = runCli(['run', '--model', 'dummy', '--tasks', 'arc_easy', '--limit', '10', '--batch_size', '4', '--resume', store]);
  assert.equal(args.status, 2);
  assert.match(args.stderr, /--model_args changed/);

  const r = runCli(['run', '--model', 'dummy', '--model_args', 'fail_after=5', '--tasks', 'arc_easy', '--limit', '10', '--batch_size', '4', '--resume', store, '--json']);
  assert.equal(r.status, 0, r.stderr);
  const summary = JSON.parse(r.stdout) as { sent: number; held_before: number };
  assert.deepEqual([summary.sent, summary.held_before], [20, 20]);
  const done = await openStore(store);
  assert.equal(done.unfinished, undefined);
  const n = await rows(`SELECT count(*) AS n, count(DISTINCT doc_id || '/' || request_idx) AS k FROM ${done.table('responses')}`);
  assert.deepEqual(n, [{ n: 40, k: 40 }]);
});

test('a group: size-weighted mean of its leaf tasks with the pooled stderr, in the results file, the table and the store, reproduced on import', async () => {
  const dir = tmp();
  const r = runCli(['run', '--model', 'dummy', '--tasks', 'mmlu_stem', '--limit', '3', '--output_path', join(dir, 'out'), '--out', join(dir, 'store')]);
  assert.equal(r.status, 0, r.stderr);
  const modelDir = join(dir, 'out', 'dummy');
  const results = JSON.parse(readFileSync(join(modelDir, readdirSync(modelDir).find((f) => f.startsWith('results_'))!), 'utf8')) as {
    results: Record<string, Record<string, number>>;
    groups: Record<string, Record<string, unknown>>;
    group_subtasks: Record<string, string[]>;
  };
  const leaves = results.group_subtasks.mmlu_stem!;
  assert.ok(leaves.length > 10 && leaves.every((t) => t.startsWith('mmlu_')));
  // By hand (lmeval-scoring-and-outputs.md §4.5): Σ acc·n / Σ n; pooled variance Σ (n−1)·n·se² / (Σ n − k), stderr sqrt(var / Σ n).
  const cells = leaves.map((t) => ({ acc: results.results[t]!['acc,none']!, se: results.results[t]!['acc_stderr,none']!, n: results.results[t]!.sample_len! }));
  const N = cells.reduce((a, c) => a + c.n, 0);
  const value = cells.reduce((a, c) => a + c.acc * c.n, 0) / N;
  const pooled = cells.reduce((a, c) => a + (c.n - 1) * c.se * c.se * c.n, 0) / (N - cells.length);
  const group = results.groups.mmlu_stem!;
  assert.ok(Math.abs((group['acc,none'] as number) - value) < 1e-15, 'value (the test sums in another order: 1e-15)');
  assert.ok(Math.abs((group['acc_stderr,none'] as number) - Math.sqrt(pooled / N)) < 1e-15);
  assert.deepEqual(group.sample_count, { 'acc,none': N });
  assert.match(r.stdout, /^\|Groups *\|Version\|/m);
  // lm-eval 0.4.13's make_table: the group by its alias, with the n-shot its leaf tasks share (0).
  assert.match(r.stdout, new RegExp(`^\\|stem *\\| +2\\|none +\\| +0\\|acc +\\|↑\\|${value.toFixed(4)}\\|`, 'm'));

  const check = (store: string) => {
    const out = runCli(['rescore', store, '--extractors', 'as-recorded', '--json']);
    assert.equal(out.status, 0, out.stderr);
    const cell = (JSON.parse(out.stdout) as { as_recorded: { cells: Record<string, unknown>[] }[] }).as_recorded[0]!.cells.find((c) => c.task === 'mmlu_stem')!;
    assert.equal(cell.matches_reported, true);
    return cell.value;
  };
  const i = runCli(['import', modelDir, '--out', join(dir, 'imported')]);
  assert.equal(i.status, 0, i.stderr);
  assert.equal(check(join(dir, 'store')), group['acc,none']);
  assert.equal(check(join(dir, 'imported')), group['acc,none']);
});

test("--apply_chat_template without a value renders with the model's own template, and the store records its text and sha256", async () => {
  const dir = tmp();
  const r = runCli(['run', '--model', 'dummy', '--tasks', 'gsm8k', '--limit', '2', '--num_fewshot', '1', '--apply_chat_template', '--output_path', join(dir, 'out'), '--out', join(dir, 'store')]);
  assert.equal(r.status, 0, r.stderr);
  const store = await openStore(join(dir, 'store'));
  const [first] = await rows(`SELECT arg_context FROM ${store.table('instances')} WHERE doc_id = '0'`);
  // few-shot as multi-turn (lm-eval's default with a chat template): a user turn, the shot's answer, then the question.
  assert.match(String(first!.arg_context), /^<\|im_start\|>user\nQuestion: .*<\|im_end\|>\n<\|im_start\|>assistant\n.*<\|im_end\|>\n<\|im_start\|>user\nQuestion: [^]*<\|im_start\|>assistant\n$/s);
  const ct = store.manifest.runs[0]!.tasks.gsm8k!.chat_template;
  const text = (ct.text!.used as { value: string }).value;
  assert.match(text, /^\{% for message in messages %\}/);
  assert.equal((ct.sha256!.used as { value: string }).value, sha256Hex(text));
  const modelDir = join(dir, 'out', 'dummy');
  const results = JSON.parse(readFileSync(join(modelDir, readdirSync(modelDir).find((f) => f.startsWith('results_'))!), 'utf8')) as Record<string, unknown>;
  assert.equal(results.chat_template, text);
  assert.equal(results.chat_template_sha, sha256Hex(text));
});
