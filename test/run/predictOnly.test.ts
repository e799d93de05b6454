/**
 * `lmaudit run --predict_only` with lm-eval 0.4.13's meaning (evaluator.py: task.override_metric("bypass")).
 * The reference is lm-eval's own run of the same tasks and documents with --predict_only
 * (fixtures/models/lmeval-reference/gpt2-tiny/predict-only, its commands.txt): every metric becomes bypass; a
 * generate_until document returns {"bypass": None}, a multiple_choice one returns nothing (metrics [], no bypass
 * key, so the task's results hold no number and n-samples' effective is 0); the results hold bypass_agg's 999
 * (an int) with stderr "N/A" per filter, and higher_is_better {"bypass": true} for every task.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ONE_THREAD, runCli } from '../helpers/cli.ts';
import { tableCells } from '../helpers/printedTables.ts';
import { checkConfiguredVsUsed } from '../../src/audit/configuredVsUsed.ts';
import { loadDocs } from '../../src/audit/itemJoin.ts';
import { loadSource } from '../../src/audit/source.ts';
import { slowOnly } from '../helpers/slow.ts';

const REF = 'fixtures/models/lmeval-reference/gpt2-tiny/predict-only';
const TASKS = ['arc_easy', 'gsm8k'];
const fileIn = (dir: string, prefix: string) => join(dir, readdirSync(dir).find((f) => f.startsWith(prefix))!);
const jsonLines = (path: string) => readFileSync(path, 'utf8').trimEnd().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);

const dir = mkdtempSync(join(tmpdir(), 'lmaudit-predict-only-'));
// The reference command's flags, with lmaudit's ONNX export of the same checkpoint.
const run = runCli(['run', '--model', 'onnx', '--model_args', `pretrained=fixtures/models/gpt2-tiny,${ONE_THREAD}`, '--tasks', TASKS.join(','),
  '--include_path', 'scripts/fixtures/models/tasks', '--batch_size', '1', '--limit', '3', '--predict_only', '--gen_kwargs', 'max_gen_toks=32',
  '--output_path', join(dir, 'out'), '--out', join(dir, 'store')]);
const outDir = () => join(dir, 'out', readdirSync(join(dir, 'out'))[0]!);

test('--predict_only: the results file holds what lm-eval 0.4.13 writes (bypass 999 / "N/A", no number for multiple choice)', () => {
  assert.equal(run.status, 0, run.stderr);
  const refText = readFileSync(fileIn(REF, 'results_'), 'utf8');
  const oursText = readFileSync(fileIn(outDir(), 'results_'), 'utf8');
  const ref = JSON.parse(refText);
  const ours = JSON.parse(oursText);
  assert.deepEqual(ours.results, ref.results);
  assert.deepEqual(ours.results.gsm8k['bypass,strict-match'], 999);
  assert.deepEqual(ours.results.gsm8k['bypass_stderr,flexible-extract'], 'N/A');
  // bypass_agg returns the int 999: written without a decimal point, as lm-eval's json.dumps writes it.
  for (const text of [refText, oursText]) assert.ok(text.includes('"bypass,strict-match": 999,\n'), text.slice(0, 400));
  assert.deepEqual(ours.higher_is_better, ref.higher_is_better);
  assert.deepEqual(ours['n-samples'], ref['n-samples']);
  for (const t of TASKS) {
    // override_metric's two config fields.
    assert.deepEqual(ours.configs[t].metric_list, ref.configs[t].metric_list);
    assert.equal(ours.configs[t].process_results, ref.configs[t].process_results);
  }
});

test('--predict_only: samples lines carry "bypass": null (generate_until) or no metric at all (multiple choice), as lm-eval\'s', () => {
  assert.equal(run.status, 0, run.stderr);
  for (const t of TASKS) {
    const ref = jsonLines(fileIn(REF, `samples_${t}_`));
    const ours = jsonLines(fileIn(outDir(), `samples_${t}_`));
    assert.equal(ours.length, ref.length, t);
    ours.forEach((line, i) => {
      const r = ref[i]!;
      assert.deepEqual(Object.keys(line), Object.keys(r), `${t} line ${i}`);
      for (const k of ['doc_id', 'filter', 'metrics', 'doc_hash', 'prompt_hash', 'target_hash', 'target']) assert.deepEqual(line[k], r[k], `${t} line ${i} ${k}`);
      assert.equal(line.bypass, r.bypass, `${t} line ${i} bypass`);
    });
  }
  // Python's json.dumps of None, last on the line as lm-eval's sample dict puts it.
  const gsm8kLine = readFileSync(fileIn(outDir(), 'samples_gsm8k_'), 'utf8').split('\n')[0]!;
  assert.ok(gsm8kLine.endsWith(', "bypass": null}') && gsm8kLine.includes('"metrics": ["bypass"]'), gsm8kLine.slice(-300));
});

test('--predict_only: the printed table and the provenance say metrics were bypassed; as-recorded has nothing to reproduce; the matrix still scores the outputs', () => {
  assert.equal(run.status, 0, run.stderr);
  const provenance = JSON.parse(readFileSync(join(dir, 'store', 'provenance.json'), 'utf8')).runs[0];
  for (const t of TASKS) {
    assert.deepEqual(provenance.tasks[t].scoring.metrics.used.value, ['bypass'], t);
    assert.equal(provenance.tasks[t].scoring.scoring_path.used.value, 'none: metrics bypassed (--predict_only), outputs stored only', t);
  }
  assert.ok(provenance.notes.some((n: { message: string }) => n.message === "--predict_only: outputs only: every task's metrics were replaced by lm-eval's bypass, so no metric was computed"));
  // lm_eval 0.4.13 printed, on make_predict_only_reference.sh's command (make_table: the "metric,filter" keys sorted,
  // the n-shot on every row, an 'N/A' stderr as '   N/A'; arc_easy returns no metric, so it has no row):
  //   |gsm8k|3.0|flexible-extract|5|bypass|↑|999|±|   N/A|
  //   |||strict-match|5|bypass|↑|999|±|   N/A|
  assert.match(run.stdout, /^\|gsm8k\|\s+3\.0\|flexible-extract\|\s+5\|bypass\|↑\|\s*999\|±\|   N\/A\|\n\|\s+\|\s+\|strict-match\s*\|\s+5\|bypass\|↑\|\s*999\|±\|   N\/A\|$/m);
  assert.ok(!/^\|arc_easy/m.test(run.stdout), run.stdout);
  const asRecorded = runCli(['rescore', join(dir, 'store'), '--extractors', 'as-recorded']);
  assert.equal(asRecorded.status, 0, asRecorded.stderr);
  // lm-eval 0.4.13 (api/task.py process_results): only generate_until's loop over the metric functions reaches bypass,
  // whose aggregation returns 999 (gsm8k above); multiple_choice and loglikelihood results hold only acc/acc_norm/…
  // keys, so arc_easy's results are {name, alias, sample_len: 0}, without a 999 (the reference run's results file).
  assert.ok(asRecorded.stdout.includes("2 task(s) ran with metrics bypassed (lm-eval's --predict_only: the bypass metric computes nothing; a generate_until task reports 999 in its place, a task of another kind no value at all), so nothing was recorded to reproduce: arc_easy, gsm8k"), asRecorded.stdout);
  assert.ok(!/\bbypass\s+\d/.test(asRecorded.stdout) && !asRecorded.stdout.includes('printed numbers but no per-sample records'), asRecorded.stdout);
  const matrix = runCli(['rescore', join(dir, 'store'), '--json']);
  assert.equal(matrix.status, 0, matrix.stderr);
  assert.ok(matrix.stdout.includes('"arc_easy"') && matrix.stdout.includes('"gsm8k"'), matrix.stdout.slice(0, 400));
});

test('a task whose process_results lmaudit has not ported is refused without --predict_only and runs with it', () => {
  // No task shipped in tasks/ is refused (truthfulqa's task code is ported): a gsm8k copy naming an unported function stands in.
  const include = mkdtempSync(join(tmpdir(), 'lmaudit-predict-only-task-'));
  const yaml = readFileSync('scripts/fixtures/models/tasks/gsm8k.yaml', 'utf8').replace(/^task: gsm8k$/m, 'task: gsm8k_unported\nprocess_results: !function utils.process_results');
  writeFileSync(join(include, 'gsm8k_unported.yaml'), yaml);
  writeFileSync(join(include, 'utils.py'), 'def process_results(doc, results):\n    return {"exact_match": 0.0}\n');
  const args = ['run', '--model', 'onnx', '--model_args', `pretrained=fixtures/models/gpt2-tiny,${ONE_THREAD}`, '--tasks', 'gsm8k_unported', '--include_path', include, '--limit', '1', '--gen_kwargs', 'max_gen_toks=4'];
  const refused = runCli([...args, '--out', join(include, 'refused')]);
  assert.equal(refused.status, 2, refused.stderr);
  assert.ok(refused.stderr.includes("field 'process_results': task 'gsm8k_unported': process_results utils.process_results has no port in lmaudit"), refused.stderr);
  assert.ok(refused.stderr.includes("--predict_only runs it for its outputs only, as lm-eval's does"), refused.stderr);
  const ran = runCli([...args, '--predict_only', '--output_path', join(include, 'out'), '--out', join(include, 'ran')]);
  assert.equal(ran.status, 0, ran.stderr);
  const out = join(include, 'out', readdirSync(join(include, 'out'))[0]!);
  const results = JSON.parse(readFileSync(fileIn(out, 'results_'), 'utf8'));
  assert.deepEqual(results.results.gsm8k_unported, { name: 'gsm8k_unported', alias: 'gsm8k_unported', sample_len: 1, 'bypass,strict-match': 999, 'bypass_stderr,strict-match': 'N/A', 'bypass,flexible-extract': 999, 'bypass_stderr,flexible-extract': 'N/A' });
  assert.equal(results.configs.gsm8k_unported.process_results, 'process_results');
});

test("--predict_only on a multiple-target generate_until task: bypass 0.0 per line, as lm-eval's (any(None...) is false)", () => {
  const listRef = 'fixtures/models/lmeval-reference/gpt2-tiny/predict-only-list';
  const out = mkdtempSync(join(tmpdir(), 'lmaudit-predict-only-list-'));
  const r = runCli(['run', '--model', 'onnx', '--model_args', `pretrained=fixtures/models/gpt2-tiny,${ONE_THREAD}`, '--tasks', 'gsm8k_list_target', '--include_path', join(listRef, 'tasks'),
    '--batch_size', '1', '--limit', '2', '--predict_only', '--gen_kwargs', 'max_gen_toks=32', '--output_path', join(out, 'out'), '--out', join(out, 'store')]);
  assert.equal(r.status, 0, r.stderr);
  const dirOut = join(out, 'out', readdirSync(join(out, 'out'))[0]!);
  const ref = readFileSync(fileIn(listRef, 'samples_gsm8k_list_target_'), 'utf8').trimEnd().split('\n');
  const ours = readFileSync(fileIn(dirOut, 'samples_gsm8k_list_target_'), 'utf8').trimEnd().split('\n');
  assert.equal(ours.length, ref.length);
  ours.forEach((line, i) => {
    // The float 0.0 as Python writes it, last on the line in both.
    assert.ok(line.endsWith(', "bypass": 0.0}') && ref[i]!.endsWith(', "bypass": 0.0}'), line.slice(-200));
    const [a, b] = [JSON.parse(line), JSON.parse(ref[i]!)];
    for (const k of ['doc_id', 'filter', 'target', 'metrics', 'doc_hash', 'prompt_hash', 'target_hash']) assert.deepEqual(a[k], b[k], `line ${i} ${k}`);
  });
  assert.deepEqual(JSON.parse(readFileSync(fileIn(dirOut, 'results_'), 'utf8')).results, JSON.parse(readFileSync(fileIn(listRef, 'results_'), 'utf8')).results);
});

// A slow cross-check: test/run/shard.test.ts merges shards, and the tests above hold --predict_only's results.
test('--predict_only shards merge into the predict-only run (lmaudit merge re-runs with the flag the shards recorded)', { skip: slowOnly }, () => {
  const m = mkdtempSync(join(tmpdir(), 'lmaudit-predict-only-merge-'));
  const shardArgs = ['run', '--model', 'onnx', '--model_args', `pretrained=fixtures/models/gpt2-tiny,${ONE_THREAD}`, '--tasks', TASKS.join(','), '--include_path', 'scripts/fixtures/models/tasks',
    '--batch_size', '1', '--limit', '3', '--predict_only', '--gen_kwargs', 'max_gen_toks=32'];
  for (const i of [0, 1]) {
    const r = runCli([...shardArgs, '--shard', `${i}/2`, '--out', join(m, `s${i}`)]);
    assert.equal(r.status, 0, r.stderr);
  }
  const merged = runCli(['merge', join(m, 'merged'), join(m, 's0'), join(m, 's1'), '--output_path', join(m, 'out')]);
  assert.equal(merged.status, 0, merged.stderr);
  const out = join(m, 'out', readdirSync(join(m, 'out'))[0]!);
  const ours = JSON.parse(readFileSync(fileIn(out, 'results_'), 'utf8'));
  const ref = JSON.parse(readFileSync(fileIn(REF, 'results_'), 'utf8'));
  assert.deepEqual(ours.results, ref.results);
  assert.deepEqual(ours.higher_is_better, ref.higher_is_better);
});

test("lm-eval's own --predict_only files, imported: as-recorded has nothing to reproduce, and sample_len 0 is not called a wrong document count", () => {
  const store = join(mkdtempSync(join(tmpdir(), 'lmaudit-predict-only-import-')), 'store');
  const imported = runCli(['import', join(REF, 'results_2026-12-06T02-07-32.488721.json'), join(REF, 'samples_arc_easy_2026-12-06T02-07-32.488721.jsonl'), join(REF, 'samples_gsm8k_2026-12-06T02-07-32.488721.jsonl'), '--out', store]);
  assert.equal(imported.status, 0, imported.stderr);
  const r = runCli(['rescore', store, '--extractors', 'as-recorded']);
  assert.equal(r.status, 0, r.stderr);
  assert.ok(r.stdout.includes('2 task(s) ran with metrics bypassed') && r.stdout.includes('nothing was recorded to reproduce: arc_easy, gsm8k'), r.stdout);
  // arc_easy's n-samples effective is 0 (no document returned a metric) while its samples hold 3: lm-eval's rule, not an error.
  assert.ok(!r.stdout.includes('Cannot be right') && !r.stdout.includes('the results claim 0 documents'), r.stdout);
});

test("configured vs used on lm-eval's predict-only files: arc_easy's n-samples effective 0 is not a document count (limit and samples checks not applicable)", async () => {
  const source = await loadSource([join(REF, 'results_2026-12-06T02-07-32.488721.json'), join(REF, 'samples_arc_easy_2026-12-06T02-07-32.488721.jsonl')], { skipBad: false, fields: {} });
  const run = source.store.manifest.runs[0]!;
  const checks = await checkConfiguredVsUsed(run, 'arc_easy', await loadDocs(source.store, run.run_id, 'arc_easy'));
  const why = "metrics bypassed (lm-eval's --predict_only): n-samples' effective counts the documents that returned a metric, and only a generate_until task's return bypass";
  for (const id of ['limit_vs_samples', 'samples_in_file']) {
    const c = checks.find((x) => x.id === id)!;
    assert.equal(c.status, 'not applicable', `${id}: ${JSON.stringify(c)}`);
    assert.equal(c.message, why, JSON.stringify(c));
  }
});

test('--predict_only on a group: listed under groups with its leaves\' summed sample_len (0) and no number, as lm-eval 0.4.13 writes and prints it', () => {
  // fixtures/models/lmeval-reference/gpt2-tiny/predict-only-group: lm_eval --tasks mmlu_stem --limit 1 --predict_only
  // (scripts/fixtures/make_qa_reference.py). api/group.py Group.aggregate gives a group with aggregate_metric_list its
  // alias, name and summed sample_len even when no leaf has the metric, and the evaluator lists it under `groups`.
  const refDir = 'fixtures/models/lmeval-reference/gpt2-tiny/predict-only-group';
  const groupDir = mkdtempSync(join(tmpdir(), 'lmaudit-predict-only-group-'));
  const r = runCli(['run', '--model', 'onnx', '--model_args', `pretrained=fixtures/models/gpt2-tiny,${ONE_THREAD}`, '--tasks', 'mmlu_stem', '--batch_size', '1', '--limit', '1', '--predict_only', '--output_path', join(groupDir, 'out'), '--out', join(groupDir, 'store')]);
  assert.equal(r.status, 0, r.stderr);
  const ref = JSON.parse(readFileSync(fileIn(refDir, 'results_'), 'utf8'));
  const out = join(groupDir, 'out', readdirSync(join(groupDir, 'out'))[0]!);
  const ours = JSON.parse(readFileSync(fileIn(out, 'results_'), 'utf8'));
  assert.deepEqual(ours.groups, ref.groups);
  assert.deepEqual(ours.groups, { mmlu_stem: { alias: 'stem', name: 'mmlu_stem', sample_len: 0 } });
  assert.deepEqual(ours.results, ref.results);
  assert.deepEqual(ours.group_subtasks, ref.group_subtasks);
  assert.deepEqual(ours.higher_is_better, ref.higher_is_better);
  assert.deepEqual(ours['n-shot'], ref['n-shot']);
  // The tables lm_eval printed: a Tasks and a Groups header, no row (no metric returned a number).
  assert.deepEqual(tableCells(r.stdout), tableCells(readFileSync(join(refDir, 'printed_tables.md'), 'utf8')));
});
