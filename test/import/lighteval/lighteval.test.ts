/**
 * The lighteval importer on the real 0.13 run in fixtures/lighteval (era D details, results without suites) and on
 * pre-0.11 files built here in the documented flat layouts (no such file is published with a licence: SOURCES.md
 * says where they were looked for): items per details row, configured vs used, the hash_examples check, and
 * as-recorded reproducing every printed number. Expected numbers come from the files or from numpy (written below).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodedFixture, fixturePath } from '../../helpers/fixtures.ts';
import { importSources } from '../../../src/import/index.ts';
import { loadSource } from '../../../src/audit/source.ts';
import { rescoreAsRecorded } from '../../../src/score/asRecorded.ts';
import { queryRows, sqlString } from '../../../src/util/duckdb.ts';
import type { ImportedRun } from '../../../src/import/types.ts';

const options = { skipBad: false, fields: {} };
const root = decodedFixture('lighteval');
const smoke = join(root, 'evaleval-every_eval_ever/tests/data/lighteval_smoke');
const resultsFile = join(smoke, 'results/eee-smoke/dummy-model/results_2026-08-10T17-22-11.385681.json');
const rows = (run: ImportedRun, table: 'instances' | 'responses' | 'scores' | 'filtered') => (run.tables[table] as { rows: Record<string, unknown>[] }).rows;
type Cell = { task: string; quantity: string; recorded: number | null; reproduced: number | null; matches: string };

test('the lighteval 0.13 run: results and both details files are one run; every row an item', async () => {
  const { runs, unrecognised } = await importSources([root], options);
  assert.deepEqual(unrecognised.map((u) => u.path.slice(root.length + 1)), ['SOURCES.md']);
  assert.equal(runs.length, 1);
  const run = runs[0]!;
  assert.deepEqual(Object.keys(run.provenance.tasks), ['squad_v2|0', 'anli:r1|0']);
  const anli = rows(run, 'instances').filter((i) => i.task === 'anli:r1|0');
  // Two docs × three choices, each choice a log-likelihood request with its summed log-probability.
  assert.deepEqual(anli.map((i) => [i.doc_id, i.request_idx, i.arg_continuation]), [['776', 0, ' True'], ['776', 1, ' Neither'], ['776', 2, ' False'], ['507', 0, ' True'], ['507', 1, ' Neither'], ['507', 2, ' False']]);
  assert.equal(anli[0]!.target, ' False');
  assert.deepEqual(rows(run, 'responses').filter((r) => r.doc_id === '776').map((r) => r.logprob), [-0.6394267985, -0.0250107552, -0.2750293184]);
  const squad = rows(run, 'instances').filter((i) => i.task === 'squad_v2|0');
  assert.deepEqual(squad.map((i) => [i.doc_id, i.response_text, i.target]), [['5230', 'random baseline', ' Colonizing empires'], ['3506', 'random baseline', ' Economist']]);
  const p = run.provenance;
  const t = p.tasks['squad_v2|0']!;
  assert.deepEqual(t.fewshot.count, { configured: { status: 'recorded', value: 0, from: 'config_tasks["squad_v2|0"].num_fewshots' }, used: { status: 'inferred', value: 0, how: 'doc.fewshot_samples per details row' } });
  assert.deepEqual(t.generation.stop_sequences!.used, { status: 'inferred', value: ['\n', 'Question:', 'question:'], how: 'doc.stop_sequences per details row (as configured for the item; an API backend may not honour them)' });
  assert.deepEqual(t.task.dataset_revision!.used, { status: 'recorded', value: null, from: 'config_tasks["squad_v2|0"].hf_revision: null, the dataset was not pinned' });
  assert.equal((p.harness.commit!.used as { how: string }).how, 'config_general.lighteval_sha is "?": lighteval was installed from a package, its commit is not recorded');
  assert.match(String((p.harness.version!.used as { value: unknown }).value), /^0\.12\.1 or later/);
  // config_general.total_evaluation_time_secondes ("4.3557962919876445") is a duration, not the runtime's versions,
  // which lighteval does not record: two runs of one configuration must not differ in harness.runtime.
  assert.deepEqual(p.harness.runtime, { configured: { status: 'unknown' }, used: { status: 'unknown' } });
  // num_fewshot_seeds 1 is how many seeds, not the seed (the table labelled it "few-shot seed 1").
  assert.deepEqual(t.fewshot.seed, { configured: { status: 'unknown' }, used: { status: 'unknown' } });
  assert.deepEqual(t.fewshot.seed_count!.used, { status: 'recorded', value: 1, from: 'config_general.num_fewshot_seeds (how many few-shot seeds)' });
  // hash_examples, hash_input_tokens and hash_cont_tokens recomputed from the details (xxh64, as Python's xxhash
  // gives 72b7003df17fd7c3 and dcd4184164a682cb) agree with summary_tasks: no note.
  assert.deepEqual(p.notes.map((n) => n.kind), []);
});

test('details files whose task names are percent-encoded (saved from their Hub URLs) join the tasks the results name', async () => {
  // fixtures/lighteval stores the files under exactly such names (details_anli%3Ar1%7C0_…): imported as stored.
  const stored = join(fixturePath('lighteval'), 'evaleval-every_eval_ever/tests/data/lighteval_smoke');
  const { runs } = await importSources([stored], options);
  assert.equal(runs.length, 1);
  assert.deepEqual(Object.keys(runs[0]!.provenance.tasks), ['squad_v2|0', 'anli:r1|0']);
  assert.deepEqual([...new Set(rows(runs[0]!, 'instances').map((i) => i.task))].sort(), ['anli:r1|0', 'squad_v2|0']);
});

test('a details file that is not the one the results were computed from is named by its hash_examples', async () => {
  const copy = mkdtempSync(join(tmpdir(), 'lmaudit-lighteval-'));
  try {
    cpSync(smoke, copy, { recursive: true });
    const path = join(copy, 'results/eee-smoke/dummy-model/results_2026-08-10T17-22-11.385681.json');
    writeFileSync(path, readFileSync(path, 'utf8').replace('"72b7003df17fd7c3"', '"0000000000000000"').replace('"hash_cont_tokens": "dcd4184164a682cb"', '"hash_cont_tokens": "1111111111111111"'));
    const { runs } = await importSources([path], options);
    const notes = runs[0]!.provenance.notes.filter((n) => n.kind === 'lighteval_hash_mismatch');
    assert.deepEqual(notes.map((n) => n.task), ['squad_v2|0', 'anli:r1|0']);
    assert.match(notes[1]!.message, /hash_examples is 0000000000000000, but the details' doc\.query values hash to 72b7003df17fd7c3/);
    assert.match(notes[0]!.message, /hash_cont_tokens is 1111111111111111, but the details' output token ids hash to dcd4184164a682cb/);
  } finally {
    rmSync(copy, { recursive: true, force: true });
  }
});

/** Writes rows as Parquet with DuckDB (the flat layouts of lighteval 0.4–0.10, §3.3 of the format notes). */
async function parquet(path: string, select: string): Promise<void> {
  await queryRows(`COPY (${select}) TO ${sqlString(path)} (FORMAT parquet)`);
}

test('pre-0.11 layouts: flat native columns (era C) and every cell as Python str() (era B), suite|task|fewshot names', async () => {
  const out = mkdtempSync(join(tmpdir(), 'lmaudit-lighteval-'));
  try {
    const date = '2024-05-01T10-00-00.000000';
    const details = join(out, 'details/org/model', date);
    mkdirSync(details, { recursive: true });
    // Era C: a generative task, predictions one list of texts per request, metrics a struct.
    await parquet(join(details, `details_lighteval|gsm8k|5_${date}.parquet`), `SELECT * FROM (VALUES
      ('Q1?', 'ctx Q1?', [['4']], ['4'], 5, 5, {'qem': 1.0}),
      ('Q2?', 'ctx Q2?', [['7']], ['8'], 5, 5, {'qem': 0.0}),
      ('Q3?', 'ctx Q3?', [['9']], ['9'], 5, 4, {'qem': 1.0})) t(example, full_prompt, predictions, gold, num_asked_few_shots, num_effective_few_shots, metrics)`);
    // Era B: a log-likelihood task, every cell Python's str() of the value.
    await parquet(join(details, `details_harness|arc:challenge|25_${date}.parquet`), `SELECT * FROM (VALUES
      ('A?', 'ctx A?', '[(-0.5, True), (-1.5, False)]', '[''x'', ''y'']', '[0]', '25', '25', '{''acc'': 1.0}'),
      ('B?', 'ctx B?', '[(-2.0, False), (-0.1, True)]', '[''x'', ''y'']', '[1]', '25', '25', '{''acc'': 1.0}'),
      ('C?', 'ctx C?', '[(-0.2, True), (-3.0, False)]', '[''x'', ''y'']', '[1]', '25', '25', '{''acc'': 0.0}'),
      ('D?', 'ctx D?', '[(-0.9, False), (-0.3, True)]', '[''x'', ''y'']', '[0]', '25', '25', '{''acc'': 0.0}')) t(example, full_prompt, predictions, choices, gold_index, num_asked_few_shots, num_effective_few_shots, metrics)`);
    // numpy: mean([1,0,1]) = 0.6666666666666666, std(ddof=1)/sqrt(3) = 0.33333333333333337; mean([1,1,0,0]) = 0.5,
    // std(ddof=1)/sqrt(4) = 0.28867513459481287.
    const results = {
      config_general: { lighteval_sha: '0123abcd', num_fewshot_seeds: 1, max_samples: null, model_name: 'org/model', model_sha: 'rev1', model_dtype: 'torch.float16' },
      results: {
        'lighteval|gsm8k|5': { qem: 0.6666666666666666, qem_stderr: 0.33333333333333337 },
        'harness|arc:challenge|25': { acc: 0.5, acc_stderr: 0.28867513459481287 },
        all: { qem: 0.6666666666666666, qem_stderr: 0.33333333333333337, acc: 0.5, acc_stderr: 0.28867513459481287 },
      },
      versions: { 'lighteval|gsm8k|5': 0, 'harness|arc:challenge|25': 0 },
      config_tasks: {
        'lighteval|gsm8k': { name: 'gsm8k', hf_repo: 'gsm8k', hf_subset: 'main', num_fewshots: 5, generation_size: 256, stop_sequence: ['Question:'] },
        'harness|arc:challenge': { name: 'arc:challenge', metrics: [{ metric_name: 'acc', sample_level_fn: 'LoglikelihoodAcc(logprob_normalization=None)', corpus_level_fn: 'mean' }] },
      },
      summary_tasks: {},
    };
    mkdirSync(join(out, 'results/org/model'), { recursive: true });
    writeFileSync(join(out, `results/org/model/results_${date}.json`), JSON.stringify(results, null, 2));
    const { runs } = await importSources([out], options);
    assert.equal(runs.length, 1);
    const run = runs[0]!;
    const gsm = rows(run, 'instances').filter((i) => i.task === 'lighteval|gsm8k|5');
    // Flat files record no id: the row position is the doc_id.
    assert.deepEqual(gsm.map((i) => [i.doc_id, i.arg_context, i.response_text, i.target]), [['0', 'ctx Q1?', '4', '4'], ['1', 'ctx Q2?', '7', '8'], ['2', 'ctx Q3?', '9', '9']]);
    const arc = rows(run, 'responses').filter((r) => r.task === 'harness|arc:challenge|25');
    assert.deepEqual(arc.slice(0, 2).map((r) => [r.doc_id, r.request_idx, r.logprob, r.is_greedy]), [['0', 0, -0.5, true], ['0', 1, -1.5, false]]);
    const t = run.provenance.tasks['lighteval|gsm8k|5']!;
    // One item was asked five examples and got four: configured and used differ, both shown.
    assert.deepEqual(t.fewshot.count, { configured: { status: 'recorded', value: 5, from: 'config_tasks["lighteval|gsm8k"].num_fewshots' }, used: { status: 'inferred', value: [5, 4], how: 'num_effective_few_shots per details row' } });
    const p = run.provenance;
    assert.deepEqual(p.harness.commit!.used, { status: 'inferred', value: '0123abcd', how: "config_general.lighteval_sha of an Open LLM Leaderboard run (suite 'harness'): the commit of the leaderboard's wrapper around lighteval, not of lighteval" });
    assert.deepEqual(p.model.dtype!.used, { status: 'recorded', value: 'torch.float16', from: 'config_general.model_dtype' });
    const source = await loadSource([out], options);
    const cells = (await rescoreAsRecorded(source.store)).flatMap((s) => s.cells as Cell[]);
    assert.deepEqual(cells.map((c) => [c.task, c.quantity, c.matches]), [
      ['lighteval|gsm8k|5', 'qem', 'exact'],
      ['lighteval|gsm8k|5', 'qem_stderr', 'exact'],
      ['harness|arc:challenge|25', 'acc', 'exact'],
      ['harness|arc:challenge|25', 'acc_stderr', 'exact'],
      // From the log-probabilities: argmax is the gold on rows A and B, not on C and D: 2 of 4, as recorded.
      ['harness|arc:challenge|25', 'acc recomputed from the log-probabilities (argmax is a gold index)', 'exact'],
      ['all', 'qem (mean over 1 task(s))', 'exact'],
      ['all', 'qem_stderr (mean over 1 task(s))', 'exact'],
      ['all', 'acc (mean over 1 task(s))', 'exact'],
      ['all', 'acc_stderr (mean over 1 task(s))', 'exact'],
    ]);
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
});

test('as-recorded on the 0.13 run reproduces em, acc, their stderr and all', async () => {
  const source = await loadSource([resultsFile], options);
  const cells = (await rescoreAsRecorded(source.store)).flatMap((s) => s.cells as Cell[]);
  // Four re-aggregated values, two recomputed from the outputs (em from the texts, acc from the log-probabilities), four in `all`.
  assert.equal(cells.length, 10);
  assert.deepEqual(cells.filter((c) => c.matches !== 'exact'), []);
});

test('the Hub details layout (results_<date_id>.json beside <date_id>/details_…): a results file named alone brings its details', async () => {
  const hub = mkdtempSync(join(tmpdir(), 'lmaudit-lighteval-'));
  try {
    const date = '2026-08-10T17-22-11.385681';
    cpSync(resultsFile, join(hub, `results_${date}.json`));
    cpSync(join(smoke, 'details/eee-smoke/dummy-model', date), join(hub, date), { recursive: true });
    const { runs, companions } = await importSources([join(hub, `results_${date}.json`)], options);
    assert.equal(companions.length, 2);
    assert.equal(runs.length, 1);
    assert.deepEqual(Object.keys(runs[0]!.provenance.tasks), ['squad_v2|0', 'anli:r1|0']);
    assert.equal(rows(runs[0]!, 'instances').length, 8);
  } finally {
    rmSync(hub, { recursive: true, force: true });
  }
});

test('a group average (suite|prefix:_average|k) is the unweighted mean over its subtasks', async () => {
  const out = mkdtempSync(join(tmpdir(), 'lmaudit-lighteval-'));
  try {
    const date = '2024-06-01T10-00-00.000000';
    const details = join(out, 'details/org/model', date);
    mkdirSync(details, { recursive: true });
    // Subtask x: 1 of 2 right; subtask y: 3 of 3 right. Unweighted mean of the means: (0.5 + 1) / 2 = 0.75 (the pooled
    // mean would be 4/5 = 0.8).
    await parquet(join(details, `details_lighteval|mmlu:x|0_${date}.parquet`), `SELECT * FROM (VALUES ('a?', [['1']], ['1'], {'qem': 1.0}), ('b?', [['2']], ['3'], {'qem': 0.0})) t(example, predictions, gold, metrics)`);
    await parquet(join(details, `details_lighteval|mmlu:y|0_${date}.parquet`), `SELECT * FROM (VALUES ('c?', [['1']], ['1'], {'qem': 1.0}), ('d?', [['2']], ['2'], {'qem': 1.0}), ('e?', [['3']], ['3'], {'qem': 1.0})) t(example, predictions, gold, metrics)`);
    const results = {
      config_general: { lighteval_sha: '?', model_name: 'org/model' },
      results: {
        'lighteval|mmlu:x|0': { qem: 0.5, qem_stderr: 0.5 },
        'lighteval|mmlu:y|0': { qem: 1.0, qem_stderr: 0.0 },
        'lighteval|mmlu:_average|0': { qem: 0.75, qem_stderr: 0.25 },
        all: { qem: 0.75, qem_stderr: 0.25 },
      },
      versions: {},
      config_tasks: {},
      summary_tasks: {},
    };
    mkdirSync(join(out, 'results/org/model'), { recursive: true });
    writeFileSync(join(out, `results/org/model/results_${date}.json`), JSON.stringify(results, null, 2));
    const source = await loadSource([out], options);
    const cells = (await rescoreAsRecorded(source.store)).flatMap((s) => s.cells as Cell[]);
    const average = cells.filter((c) => c.task === 'lighteval|mmlu:_average|0');
    assert.deepEqual(average.map((c) => [c.quantity, c.recorded, c.reproduced, c.matches]), [
      ['qem (mean over 2 task(s))', 0.75, 0.75, 'exact'],
      ['qem_stderr (mean over 2 task(s))', 0.25, 0.25, 'exact'],
    ]);
    assert.deepEqual(cells.filter((c) => c.matches !== 'exact'), []);
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
});

test('mistyped blocks of a results file are refused naming the line and field (read as absent, they dropped reported numbers silently)', async () => {
  // The file is written pretty-printed; each expected line is the only line holding what the edit wrote there.
  const holding = (mark: string) => (text: string) => {
    const lines = text.split('\n').flatMap((l, n) => (l.includes(mark) ? [n + 1] : []));
    assert.equal(lines.length, 1, `${mark} on one line`);
    return lines[0]!;
  };
  const cases: [string, (r: Record<string, any>) => void, (text: string) => number, RegExp][] = [
    ['results a list', (r) => void (r.results = [1]), holding('"results": ['), /field 'results': not an object$/],
    ['a task entry a number', (r) => void (r.results['anli:r1|0'] = 5), holding('"anli:r1|0": 5'), /field 'results\.anli:r1\|0': not an object$/],
    ['a metric value that is text', (r) => void (r.results['anli:r1|0'].acc = 'mark-acc'), holding('mark-acc'), /field 'results\.anli:r1\|0\.acc': a metric value that is text, not a number$/],
    ['config_tasks a list', (r) => void (r.config_tasks = [1]), holding('"config_tasks": ['), /field 'config_tasks': not an object$/],
    ['num_fewshots text', (r) => void (r.config_tasks['anli:r1|0'].num_fewshots = 'mark-zero'), holding('mark-zero'), /field 'config_tasks\.anli:r1\|0\.num_fewshots': not a few-shot count \(an integer from 0\)$/],
    ['hashes text', (r) => void (r.summary_tasks['anli:r1|0'].hashes = 'mark-hashes'), holding('mark-hashes'), /field 'summary_tasks\.anli:r1\|0\.hashes': not an object$/],
    ['model_name a number', (r) => void (r.config_general.model_name = 5), holding('"model_name": 5'), /field 'config_general\.model_name': not a model name \(a string\)$/],
  ];
  for (const [what, edit, lineOf, message] of cases) {
    const copy = mkdtempSync(join(tmpdir(), 'lmaudit-lighteval-'));
    try {
      cpSync(smoke, copy, { recursive: true });
      const path = join(copy, 'results/eee-smoke/dummy-model/results_2026-08-10T17-22-11.385681.json');
      const results = JSON.parse(readFileSync(path, 'utf8'));
      edit(results);
      const text = JSON.stringify(results, null, 2);
      writeFileSync(path, text);
      const line = lineOf(text);
      await assert.rejects(importSources([copy], options), (e: Error & { exitCode?: number }) => e.exitCode === 2 && e.message.startsWith(`${path}, line ${line}, field '`) && message.test(e.message), `${what} (line ${line})`);
    } finally {
      rmSync(copy, { recursive: true, force: true });
    }
  }
});

test('as-recorded on anli details with no rows, or with metric values that are text: not reproduced, and why (not NaN, not "one item")', async () => {
  const cases: [string, string, string[]][] = [
    ['no rows', 'SELECT * FROM read_parquet(?) LIMIT 0', ['acc (no per-item values in the details)', 'acc_stderr (no per-item values in the details)']],
    ['text values', "SELECT * REPLACE ({'acc': 'zero'} AS metric) FROM read_parquet(?)", ['acc (no per-item value in the details is a number)', 'acc_stderr (no per-item value in the details is a number)']],
  ];
  for (const [what, select, expected] of cases) {
    const copy = mkdtempSync(join(tmpdir(), 'lmaudit-lighteval-'));
    try {
      cpSync(smoke, copy, { recursive: true });
      const file = join(copy, 'details/eee-smoke/dummy-model/2026-08-10T17-22-11.385681/details_anli:r1|0_2026-08-10T17-22-11.385681.parquet');
      const original = join(copy, 'anli.parquet');
      cpSync(file, original);
      rmSync(file);
      await parquet(file, select.replace('?', sqlString(original)));
      rmSync(original);
      const source = await loadSource([copy], options);
      const [section] = await rescoreAsRecorded(source.store);
      // Before: "acc 0 NaN NO" for text values, and "acc_stderr (one item: lighteval writes no stderr from one value)" for both.
      assert.ok(!(section!.cells as Cell[]).some((c) => c.task === 'anli:r1|0' && c.quantity === 'acc'), what);
      for (const e of expected) assert.ok(section!.note!.includes(e), `${what}: ${section!.note}`);
    } finally {
      rmSync(copy, { recursive: true, force: true });
    }
  }
});
