/**
 * The OpenCompass importer on the real work folders in fixtures/opencompass (OpenCompass 0.2.4, FudanDNN-NLP/RAG):
 * every file imports, predictions are items with their prompt, prediction and gold, the config's settings are
 * disclosure items, the scale of each score is stated, and as-recorded reproduces every printed number. A
 * predictions file is never taken for SWE-bench predictions.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodedFixture } from '../../helpers/fixtures.ts';
import { importSources } from '../../../src/import/index.ts';
import { loadSource } from '../../../src/audit/source.ts';
import { rescoreAsRecorded } from '../../../src/score/asRecorded.ts';
import type { ImportedRun } from '../../../src/import/types.ts';

const options = { skipBad: false, fields: {} };
const root = decodedFixture('opencompass');
const outputs = join(root, 'FudanDNN-NLP-RAG/opencompass/outputs');
const fever = join(outputs, 't_hh_mt/r_cr/eval_fever/20240613_185419');
const rows = (run: ImportedRun, table: 'instances' | 'responses' | 'scores' | 'filtered') => (run.tables[table] as { rows: Record<string, unknown>[] }).rows;
type Cell = { task: string; quantity: string; recorded: number | null; reproduced: number | null; matches: string };

test('every OpenCompass file imports: one run per work folder and model, one task per dataset', async () => {
  const { runs, unrecognised } = await importSources([root], options);
  assert.deepEqual(unrecognised.map((u) => u.path.slice(root.length + 1)), ['SOURCES.md']);
  assert.deepEqual(runs.map((r) => [r.provenance.source_kind, Object.keys(r.provenance.tasks).join(' ')]), [
    ['opencompass', 'mmlu_college_biology mmlu_college_chemistry mmlu_college_computer_science'],
    ['opencompass', 'mmlu_college_biology mmlu_college_chemistry mmlu_college_computer_science'],
    ['opencompass', 'fever'],
  ]);
  // Every one of the 23 files but SOURCES.md is a recorded source of one run (config, 2 summaries, 3 + 3 per MMLU run).
  assert.deepEqual(runs.map((r) => (r.provenance.records.files!.used as { value: unknown[] }).value.length), [9, 9, 5]);
});

test('FEVER: 500 items with prompt, prediction and gold; a custom 0-1 Acc is not taken for a percentage', async () => {
  const { runs } = await importSources([fever], options);
  const run = runs[0]!;
  const predictions = JSON.parse(readFileSync(join(fever, 'predictions/llama-3-8b-ragga-disturb/fever.json'), 'utf8'));
  const instances = rows(run, 'instances');
  assert.equal(instances.length, 500);
  assert.equal(instances[7]!.doc_id, '7');
  assert.equal(instances[7]!.arg_context, predictions['7'].origin_prompt);
  assert.equal(instances[7]!.target, predictions['7'].gold);
  assert.equal(instances[7]!.response_text, predictions['7'].prediction);
  // 244 of the 500 details say correct (counted in Python over results/…/fever.json).
  assert.equal(rows(run, 'scores').filter((s) => s.metric === 'correct' && s.value === 1).length, 244);
  const t = run.provenance.tasks.fever!;
  assert.deepEqual(t.scoring['scale Acc']!.used, {
    status: 'inferred',
    value: '0-1 (a fraction)',
    how: "the custom evaluator's value 0.488 equals the fraction of items whose recorded correct is true (244 of 500), not a percentage",
  });
  assert.deepEqual(t.scoring.metrics!.used, { status: 'recorded', value: 'opencompass.datasets.feverEvaluator', from: 'configs/20240613_185419.py datasets[abbr=fever].eval_cfg.evaluator.type' });
  assert.deepEqual(t.task.version!.used.status === 'recorded' && t.task.version!.used.value, 'c2174f');
  assert.deepEqual(t.generation.max_tokens!.used, { status: 'recorded', value: 50, from: 'models[].max_out_len' });
  assert.deepEqual(t.fewshot.count!.used, { status: 'inferred', value: 0, how: 'ZeroRetriever retrieves no examples' });
  assert.deepEqual(run.provenance.model.dtype!.used, { status: 'recorded', value: 'torch.bfloat16', from: 'configs/20240613_185419.py models[abbr=llama-3-8b-ragga-disturb].model_kwargs.torch_dtype' });
  assert.deepEqual(run.provenance.reported.fever, { Acc: 0.488, 'Acc,summary csv (2 decimals)': 0.49 });
});

test('MMLU: AccEvaluator accuracy is on the 0-100 scale, stated as such', async () => {
  const { runs } = await importSources([join(outputs, 'default/20240609_154004')], options);
  const t = runs[0]!.provenance.tasks.mmlu_college_chemistry!;
  assert.deepEqual(t.scoring['scale accuracy']!.used, { status: 'inferred', value: '0-100 (percent)', how: 'AccEvaluator multiplies its score by 100 (OpenCompass icl_evaluator code)' });
  assert.equal(runs[0]!.provenance.reported.mmlu_college_chemistry!.accuracy, 100);
  assert.equal(rows(runs[0]!, 'instances').find((i) => i.task === 'mmlu_college_chemistry')!.response_text, 'D. r = k');
});

test('as-recorded reproduces every printed number: results metrics and summary cells', async () => {
  const source = await loadSource([root], options);
  const sections = await rescoreAsRecorded(source.store);
  const cells = sections.flatMap((s) => s.cells as Cell[]);
  // 3 datasets × 2 numbers × 2 MMLU runs, and FEVER's Acc and summary cell.
  assert.equal(cells.length, 14);
  assert.deepEqual(cells.filter((c) => c.matches !== 'exact'), []);
  const acc = cells.find((c) => c.task === 'fever' && c.quantity.startsWith('Acc (mean'))!;
  assert.deepEqual([acc.recorded, acc.reproduced], [0.488, 244 / 500]);
  const summary = cells.find((c) => c.task === 'fever' && c.quantity.startsWith('Acc in the summary'))!;
  assert.deepEqual([summary.recorded, summary.reproduced], [0.49, 0.49]);
  assert.ok(sections.every((s) => s.note === null));
});

test('a predictions file is never SWE-bench predictions: in its folder it is OpenCompass, alone it is named and refused', async () => {
  const lone = mkdtempSync(join(tmpdir(), 'lmaudit-oc-'));
  try {
    cpSync(join(fever, 'predictions/llama-3-8b-ragga-disturb/fever.json'), join(lone, 'fever.json'));
    await assert.rejects(importSources([join(lone, 'fever.json')], options), /OpenCompass predictions outside their work folder/);
    const { runs } = await importSources([join(fever, 'predictions')], options);
    assert.deepEqual(runs.map((r) => r.provenance.source_kind), ['opencompass']);
  } finally {
    rmSync(lone, { recursive: true, force: true });
  }
});

test('shards _0 … _N are read in order as one dataset; perplexity entries and chat-message prompts are items', async () => {
  const work = join(mkdtempSync(join(tmpdir(), 'lmaudit-oc-')), '20250101_000000');
  try {
    const model = join(work, 'predictions/m');
    mkdirSync(model, { recursive: true });
    const whole = JSON.parse(readFileSync(join(fever, 'predictions/llama-3-8b-ragga-disturb/fever.json'), 'utf8'));
    const keys = Object.keys(whole);
    // Each shard is keyed from "0", as OpenCompass writes it; the split point is arbitrary.
    const shard = (from: number, to: number) => JSON.stringify(Object.fromEntries(keys.slice(from, to).map((k, i) => [String(i), whole[k]])), null, 4);
    writeFileSync(join(model, 'fever_1.json'), shard(300, 500));
    writeFileSync(join(model, 'fever_0.json'), shard(0, 300));
    // A perplexity record and a chat-message prompt, in the shapes of OpenCompass's PPL and Gen inferencers.
    writeFileSync(join(model, 'piqa.json'), JSON.stringify({ '0': { 'in-context examples': '', 'label: 0': { 'testing input': 'Q', prompt: 'Q A0', PPL: 2.5 }, 'label: 1': { 'testing input': 'Q', prompt: 'Q A1', PPL: 1.5 }, prediction: '1', gold: '1' } }, null, 4));
    writeFileSync(join(model, 'chat.json'), JSON.stringify({ '0': { origin_prompt: [{ role: 'HUMAN', prompt: 'Hi?' }], prediction: 'Hello', gold: 'Hello' } }, null, 4));
    // Since 0.4 the details are a list and each per-item field a list over the n repeats (here n = 2).
    mkdirSync(join(work, 'results/m'), { recursive: true });
    writeFileSync(join(work, 'results/m/chat.json'), JSON.stringify({ score: 0.5, details: [{ example_abbr: 'chat_0', predictions: ['Hello', 'Hi'], references: ['Hello', 'Hello'], correct: [true, false] }] }, null, 4));
    const { runs } = await importSources([work], options);
    assert.equal(runs.length, 1);
    const instances = rows(runs[0]!, 'instances');
    const feverItems = instances.filter((i) => i.task === 'fever');
    assert.equal(feverItems.length, 500);
    assert.equal(feverItems[300]!.doc_id, '300');
    assert.equal(feverItems[300]!.arg_context, whole['300'].origin_prompt);
    const piqa = instances.filter((i) => i.task === 'piqa');
    assert.deepEqual(piqa.map((i) => [i.request_idx, i.request_type, i.arg_context, i.arg_continuation]), [[0, 'loglikelihood', 'Q A0', '0'], [1, 'loglikelihood', 'Q A1', '1']]);
    assert.deepEqual(rows(runs[0]!, 'scores').filter((s) => s.task === 'piqa').map((s) => [s.metric, s.value]), [['PPL 0', 2.5], ['PPL 1', 1.5]]);
    assert.equal(instances.find((i) => i.task === 'chat')!.arg_context, '[{"role":"HUMAN","prompt":"Hi?"}]');
    assert.deepEqual(rows(runs[0]!, 'scores').filter((s) => s.task === 'chat').map((s) => [s.metric, s.value, s.value_json]), [['correct', 0.5, '[true,false]']]);
  } finally {
    rmSync(join(work, '..'), { recursive: true, force: true });
  }
});

test("as-recorded names the count of one item in the singular ('share of 1 item', not '1 items')", async () => {
  const source = await loadSource([join(outputs, 'default/20240609_154004')], options);
  const cells = (await rescoreAsRecorded(source.store)).flatMap((s) => s.cells as Cell[]);
  const biology = cells.find((c) => c.task === 'mmlu_college_biology' && c.quantity.startsWith('accuracy (AccEvaluator'))!;
  assert.equal(biology.quantity, 'accuracy (AccEvaluator: 100 × share of 1 item whose prediction equals the reference)');
});

test('a prediction that is not an object is named as such, not as keys out of order', async () => {
  // Record "1" replaced by the number 7: the keys are still "0", "1", … in order, so "found "1" at position 1" was false.
  const work = join(mkdtempSync(join(tmpdir(), 'lmaudit-oc-')), '20240613_185419');
  try {
    cpSync(fever, work, { recursive: true });
    const file = join(work, 'predictions/llama-3-8b-ragga-disturb/fever.json');
    const records = JSON.parse(readFileSync(file, 'utf8'));
    records['1'] = 7;
    const text = JSON.stringify(records, null, 4);
    writeFileSync(file, text);
    // Pretty-printed: record "1" is the line after record "0"'s last one (its closing brace).
    const line = text.split('\n').indexOf('    "1": 7,') + 1;
    assert.ok(line > 5);
    await assert.rejects(importSources([work], options), (e: Error) => e.message === `${file}, line ${line}, field '1': a prediction that is not a JSON object`);
  } finally {
    rmSync(join(work, '..'), { recursive: true, force: true });
  }
});

test('a results file whose details are a string, or hold an entry that is no object, is refused naming the line and field (it was read as no details)', async () => {
  const work = join(mkdtempSync(join(tmpdir(), 'lmaudit-oc-')), '20240613_185419');
  try {
    cpSync(fever, work, { recursive: true });
    const file = join(work, 'results/llama-3-8b-ragga-disturb/fever.json');
    const text = JSON.stringify({ ...JSON.parse(readFileSync(file, 'utf8')), details: 'x' }, null, 4);
    writeFileSync(file, text);
    const line = text.split('\n').findIndex((l) => l.startsWith('    "details": "x"')) + 1;
    assert.ok(line > 1);
    await assert.rejects(importSources([work], options), (e: Error) => e.message === `${file}, line ${line}, field 'details': details is neither a list nor an object of per-item entries`);
    // A list of details (0.4 on) whose second entry is no object, after text with escaped quotes and brackets; one line.
    const entries = [{ predictions: 'a "}]" and \\"details\\": [ {', correct: true }, 5];
    writeFileSync(file, JSON.stringify({ score: 50, details: entries }));
    await assert.rejects(importSources([work], options), (e: Error) => e.message === `${file}, line 1, field 'details[1]': a details entry that is not an object`);
    writeFileSync(file, `{"score": 50,\n "details": [\n  ${JSON.stringify(entries[0])},\n\n  5]}`);
    await assert.rejects(importSources([work], options), (e: Error) => e.message === `${file}, line 5, field 'details[1]': a details entry that is not an object`);
  } finally {
    rmSync(join(work, '..'), { recursive: true, force: true });
  }
});

test('a summary CSV cut short, or with a value that is no number, is refused naming its line', async () => {
  // Before: the CSV of the MMLU run cut inside line 3 imported a dataset "mml" whose summary metric as-recorded
  // printed as "undefined in the summary CSV", and a value "abc" vanished from what the run reported.
  const run = join(outputs, 'default/20240609_154004');
  const csv = 'summary/summary_20240609_154004.csv';
  const cases: [string, (text: string) => string, (file: string) => string][] = [
    ['cut inside line 3', (t) => t.slice(0, t.indexOf('\nmmlu_college_chemistry') + 4), (f) => `${f}, line 3: 1 field(s) where the header has 5; the file may be truncated`],
    ['a value that is text', (t) => t.replace('gen,100.00', 'gen,abc'), (f) => `${f}, line 2, field 'llama-3-8b-ragga-disturb': expected a number or '-', found "abc"`],
  ];
  for (const [what, edit, message] of cases) {
    const work = join(mkdtempSync(join(tmpdir(), 'lmaudit-oc-')), '20240609_154004');
    try {
      cpSync(run, work, { recursive: true });
      const file = join(work, csv);
      writeFileSync(file, edit(readFileSync(file, 'utf8')));
      await assert.rejects(importSources([work], options), (e: Error & { exitCode?: number }) => e.exitCode === 2 && e.message === message(file), what);
    } finally {
      rmSync(join(work, '..'), { recursive: true, force: true });
    }
  }
});
