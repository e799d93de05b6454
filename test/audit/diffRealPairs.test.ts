/**
 * `diff` on the real pairs of fixtures/external (SOURCES.md there). The
 * expectations were checked by hand against the files (python3 json, diff of
 * the pretty-printed results, line-by-line comparison of the samples).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { loadSource } from '../../src/audit/source.ts';
import { diffStores, type DiffResult, type TaskComparison } from '../../src/audit/diff.ts';
import { differingFields } from '../../src/audit/settingsDiff.ts';
import { externalFixture, fixturePath } from '../helpers/fixtures.ts';

const EXTERNAL = externalFixture();
const LMEVAL = `${EXTERNAL}lm-evaluation-harness/`;
const OPTIONS = { skipBad: false, fields: {} };
const REFERENCE = JSON.parse(readFileSync(new URL('./reference/paired_reference.json', import.meta.url), 'utf8'));

async function diffPaths(a: string, b: string, o: { runA?: string; runB?: string } = {}): Promise<DiffResult> {
  const A = await loadSource([a], OPTIONS);
  const B = a === b ? A : await loadSource([b], OPTIONS);
  return diffStores(A.store, B.store, { iterations: 1000, ...o });
}

function field(t: TaskComparison, path: string) {
  const [item, name] = path.split('.');
  return t.settings.items.find((i) => i.item === item)!.fields.find((f) => f.field === name)!;
}

test('asdiv at batch size 8 vs 1: only the batch size differs; same prompts; 16 of 50 log-probs move; accuracy identical', async () => {
  const d = await diffPaths(`${LMEVAL}pr2236-asdiv/asdiv/meta-llama__Meta-Llama-3-8B-Instruct`, `${LMEVAL}pr2236-asdiv/asdiv_cot/meta-llama__Meta-Llama-3-8B-Instruct`);
  assert.equal(d.comparisons.length, 1);
  // The asdiv folder also holds the asdiv_cot_llama run (04-27), which has no partner in B.
  assert.equal(d.unpairedA.length, 1);
  const t = d.comparisons[0]!.tasks[0]!;
  assert.equal(t.taskA, 'asdiv');
  assert.deepEqual(differingFields(t.settings), ['model.batch_size']);
  assert.deepEqual([field(t, 'model.batch_size').a.value, field(t, 'model.batch_size').b.value], ['8', '1']);
  assert.equal(field(t, 'model.dtype').verdict, 'same');
  assert.equal(field(t, 'fewshot.count').verdict, 'same');

  // The results files key by key: only the batch size differs; the clock readings are recognised as noise.
  const sc = t.sourceConfig;
  assert.equal(sc.available, true);
  assert.deepEqual(sc.rows.filter((r) => r.verdict !== 'same').map((r) => r.key), ['config.batch_size']);
  assert.deepEqual(
    sc.rows.filter((r) => r.verdict === 'same').map((r) => [r.key, r.rules]),
    [['date', ['timestamp']], ['end_time', ['timestamp']], ['start_time', ['timestamp']], ['total_evaluation_time_seconds', ['timestamp']]],
  );

  const items = t.items!;
  assert.equal(items.key, 'doc_hash');
  assert.deepEqual([items.shared, items.onlyA, items.onlyB], [50, 0, 0]);
  assert.equal(items.differences.promptsDiffer, 0);
  assert.equal(items.differences.responsesDiffer, 16);
  assert.equal(items.differences.logprob!.differ, 16);
  assert.equal(items.differences.logprob!.compared, 50);
  // doc 31: -3.661421775817871 (batch 8) vs -3.599076986312866 (batch 1), the largest move.
  assert.equal(items.differences.logprob!.maxAbsDiff, Math.abs(-3.661421775817871 - -3.599076986312866));
  assert.deepEqual(items.differences.responseExamples[0], { docIdA: '1', docIdB: '1', a: '-0.008627207018435001', b: '-0.007617858704179525' });

  const recorded = t.paired.filter((p) => !p.score.startsWith('rescored:'));
  assert.equal(recorded.length, 1);
  // Every rescoring cell both runs have is paired too: same items, same answers, no difference.
  const cells = t.paired.filter((p) => p.score.startsWith('rescored:'));
  assert.ok(cells.length > 0);
  for (const c of cells) assert.ok(c.result.n > 0 && c.result.n <= 50 && c.result.difference === 0, c.score);
  const acc = recorded[0]!;
  assert.equal(acc.score, 'acc,none');
  assert.equal(acc.result.n, 50);
  assert.equal(acc.result.meanA, 0.92);
  assert.equal(acc.result.difference, 0);
  assert.deepEqual(acc.result.mcnemar, { aOnly: 0, bOnly: 0, p: 1 });
  assert.equal(acc.result.distinguishable, false);
  assert.equal(t.flips[0]!.flips, 0);

  // Configured vs used: asdiv is a loglikelihood task, whose continuation lm-eval never prefixes with the target
  // delimiter (construct_requests sends doc_to_target as written, 0.4.0 to 0.4.13); it was said to be the chat
  // template emptying it (a rule of 0.4.6 and later, for multiple-choice tasks), and the item to contradict itself.
  const delimiter = t.checks.a.find((c) => c.id === 'target_delimiter')!;
  assert.equal(delimiter.status, 'not applicable');
  assert.match(delimiter.message, /^a loglikelihood task's continuation is its target as doc_to_target writes it/);
  const shots = t.checks.a.find((c) => c.id === 'fewshot_count')!;
  assert.deepEqual([shots.status, shots.used], ['ok', '8']);
  assert.equal(t.checks.a.find((c) => c.id === 'tokenizer_model')!.status, 'ok');
  const chat = t.settings.items.find((i) => i.item === 'chat_template')!;
  assert.equal(chat.verdict, 'same');
  assert.equal(chat.observedContradictions, undefined);
  assert.equal(t.falsifier.status, 'holds');
});

test('truthfulqa_gen full run vs --limit 20: the limit and the document set differ; the 20 shared items are identical', async () => {
  const dir = `${LMEVAL}pr3032-truthfulqa-gen`;
  const d = await diffPaths(dir, dir, { runA: '13-51-32', runB: '14-30-51' });
  const t = d.comparisons[0]!.tasks[0]!;
  const differing = differingFields(t.settings);
  assert.ok(differing.includes('samples.limit'), differing.join());
  assert.deepEqual([field(t, 'samples.limit').a.value, field(t, 'samples.limit').b.value], [null, 20]);
  assert.equal(field(t, 'fewshot.count').verdict, 'same');
  assert.equal(field(t, 'generation.settings').verdict, 'same');
  const items = t.items!;
  assert.equal(items.key, 'doc_hash');
  assert.deepEqual([items.docsA, items.docsB, items.shared, items.onlyA, items.onlyB], [817, 20, 20, 797, 0]);
  assert.equal(items.differences.promptsDiffer, 0);
  assert.equal(items.differences.responsesDiffer, 0);
  assert.match(t.pairedNote!, /only the 20 shared items/);
  assert.equal(t.paired.filter((p) => !p.score.startsWith('rescored:')).length, 12);
  for (const p of t.paired) {
    assert.equal(p.result.n, 20);
    assert.equal(p.result.difference, 0);
  }
  // The headline bleu_acc moves from 0.3917 (817 docs) to 0.5 (20 docs) only because the documents differ.
  assert.equal(t.paired.find((p) => p.score === 'bleu_acc,none')!.result.meanA, 0.5);
  const documents = t.falsifier.clauses.find((c) => c.name === 'documents')!;
  assert.equal(documents.status, 'violated');
  assert.match(documents.finding, /20 shared, 797 only in A, 0 only in B/);
  assert.equal(t.falsifier.status, 'violated');
  assert.equal(t.checks.b.find((c) => c.id === 'limit_vs_samples')!.status, 'ok');
  // Both ran revision "main"; the full run's model_sha is "" (lm-eval's get_model_sha could not ask the Hub), the
  // limited run's 21def018…: A's sha is unknown, not a different revision (it was printed as 'run level differs').
  const revision = d.comparisons[0]!.runSettings.items.find((i) => i.item === 'model')!.fields.find((f) => f.field === 'revision')!;
  assert.equal(revision.verdict, 'unknown in A');
  assert.equal(revision.partial, 'A did not record model_sha (lm-eval writes "" when it could not ask the Hub); what both recorded agrees');
  assert.ok(!differingFields(d.comparisons[0]!.runSettings).includes('model.revision'));
});

test('Qwen2.5-7B "0.4.3" vs "0.4.8": what differs is the dtype, not the version the folder names claim', async () => {
  const dir = `${LMEVAL}pr2809-qwen-versions`;
  const d = await diffPaths(`${dir}/results-0.4.3`, `${dir}/results-0.4.8`);
  assert.equal(d.comparisons.length, 2);
  const main = d.comparisons.find((c) => c.tasks.length === 15)!;
  assert.equal(main.tasksOnlyInA.length, 64);
  for (const t of main.tasks) {
    const dtype = field(t, 'model.dtype');
    assert.equal(dtype.verdict, 'differs', t.taskA);
    assert.deepEqual([dtype.a.value, dtype.b.value], ['torch.bfloat16', 'torch.float32']);
    // "Qwen/Qwen2.5-7B" vs "qwen/qwen2.5-7B": the same Hub model, and the same model_sha.
    assert.equal(field(t, 'model.model_id').verdict, 'same');
    assert.deepEqual(field(t, 'model.model_id').rules, ['hub_id_case']);
    // Neither file records lm_eval_version: the "0.4.3"/"0.4.8" exist only in folder names.
    assert.equal(field(t, 'harness.version').a.status, 'inferred');
    assert.equal(field(t, 'harness.version').b.status, 'inferred');
    assert.equal(field(t, 'fewshot.count').verdict, 'same');
    assert.equal(t.items, null);
    assert.equal(t.falsifier.clauses.find((c) => c.name === 'precision')!.status, 'violated');
    assert.equal(t.falsifier.clauses.find((c) => c.name === 'fewshot')!.status, 'holds');
  }
  const arcEasy = main.tasks.find((t) => t.taskA === 'arc_easy')!;
  const acc = arcEasy.reported.find((r) => r.score === 'acc,none')!;
  assert.deepEqual([acc.a, acc.b], [0.8038720538720538, 0.8042929292929293]);
  // No samples: only the unpaired z of the reported numbers (scipy reference in test/audit/reference/paired_reference.py).
  assert.ok(Math.abs(acc.unpaired!.z - REFERENCE.unpaired_qwen_arc_easy.z) < 1e-12);
  assert.ok(Math.abs(acc.unpaired!.p - REFERENCE.unpaired_qwen_arc_easy.p) < 1e-6);
  // Key by key: the tokenizer ids differ only in spelling (151643 vs "151643"), the model name only in case.
  const sc = new Map(arcEasy.sourceConfig.rows.map((r) => [r.key, r]));
  assert.deepEqual([sc.get('tokenizer_eos_token')!.verdict, sc.get('tokenizer_eos_token')!.rules], ['same', ['number_format']]);
  assert.deepEqual([sc.get('model_name')!.verdict, sc.get('model_name')!.rules], ['same', ['hub_id_case']]);
  // lm-eval's sanitize_model_name keeps case: 'Qwen__Qwen2.5-7B' vs 'qwen__qwen2.5-7B' is that model_name, so the same.
  assert.deepEqual([sc.get('model_name_sanitized')!.a, sc.get('model_name_sanitized')!.b], ['Qwen__Qwen2.5-7B', 'qwen__qwen2.5-7B']);
  assert.deepEqual([sc.get('model_name_sanitized')!.verdict, sc.get('model_name_sanitized')!.rules], ['same', ['hub_id_case']]);
  assert.deepEqual([sc.get('config.model_dtype')!.a, sc.get('config.model_dtype')!.b], ['torch.bfloat16', 'torch.float32']);
  assert.equal(sc.get('configs.unsafe_code')!.verdict, 'only in B');
  const piqa = main.tasks.find((t) => t.taskA === 'piqa')!;
  assert.equal(piqa.sourceConfig.rows.find((r) => r.key === 'configs.dataset_path')!.verdict, 'differs');
  assert.deepEqual(differingFields(piqa.settings).filter((f) => f.startsWith('task.')), ['task.dataset_path']);
  // The multilingual pair: float32 on both sides.
  const multi = d.comparisons.find((c) => c !== main)!;
  for (const t of multi.tasks) assert.equal(field(t, 'model.dtype').verdict, 'same', t.taskA);
  // group_subtasks lists xwinograd's six subtasks in reverse in the 0.4.3 file and sorted in the 0.4.8 one: the same
  // group (it was 'differs: repeats.group_weighting'), resolved on both sides: each file's group_subtasks expand to the
  // six leaves the group averaged. xnli's sets differ (xnli_eu only in 0.4.3; python3 set ^).
  const group = (task: string) => multi.tasks.find((t) => t.taskA === task)!;
  assert.equal(field(group('xwinograd'), 'repeats.group_weighting').verdict, 'resolved');
  assert.equal(field(group('xstorycloze'), 'repeats.group_weighting').verdict, 'resolved');
  assert.equal(field(group('xnli'), 'repeats.group_weighting').verdict, 'differs');
});

test('pythia-160m 0-shot vs 5-shot: the few-shot count differs on every shared task', async () => {
  const d = await diffPaths(`${EXTERNAL}pythia/zero-shot/160m_step143000.json`, `${EXTERNAL}pythia/five-shot/160m-5shot_step143000.json`);
  const c = d.comparisons[0]!;
  assert.equal(c.tasks.length, 65);
  assert.equal(c.tasksOnlyInA.length, 22);
  // By name (python3: sorted(set(zero_shot['results']) - set(five_shot['results']))), not the results file's order.
  assert.deepEqual([c.tasksOnlyInA.slice(0, 3), c.tasksOnlyInA.at(-1)], [['crows_pairs_english', 'crows_pairs_english_age', 'crows_pairs_english_autre'], 'crows_pairs_french_socioeconomic']);
  for (const t of c.tasks) {
    const shots = field(t, 'fewshot.count');
    assert.deepEqual([shots.verdict, shots.a.value, shots.b.value], ['differs', 0, 5], t.taskA);
    assert.equal(t.falsifier.status, 'violated');
  }
  const lambada = c.tasks.find((t) => t.taskA === 'lambada_openai')!;
  assert.match(lambada.falsifier.sentence, /is void if the two runs used different .*few-shot counts.*; here the few-shot count differs \(0 vs 5\)/);
  assert.deepEqual(lambada.reported.find((r) => r.score === 'acc')!.b, 0.25732582961381717);
  assert.deepEqual(differingFields(lambada.settings), ['fewshot.count', 'model.batch_size', 'model.device']);
});

test('big-refactor winogrande: default model vs pythia-2.8b on 2 shared items; the one flip comes from the raw response', async () => {
  const dir = `${LMEVAL}bigrefactor-2023-06`;
  const d = await diffPaths(dir, dir, { runA: 'w.json', runB: 'pythia-2.8b_winogrande' });
  const t = d.comparisons[0]!.tasks[0]!;
  assert.equal(t.taskA, 'winogrande');
  const items = t.items!;
  assert.deepEqual([items.shared, items.onlyA, items.onlyB], [2, 0, 2]);
  assert.deepEqual(items.onlyBIds, ['2', '3']);
  assert.equal(items.differences.promptsDiffer, 0);
  assert.equal(items.differences.responsesDiffer, 2);
  const acc = t.paired.find((p) => p.score === 'acc,none')!;
  assert.equal(acc.result.n, 2);
  assert.deepEqual([acc.result.meanA, acc.result.meanB], [0.5, 0]);
  assert.deepEqual(acc.result.mcnemar, { aOnly: 1, bOnly: 0, p: 1 });
  const flips = t.flips.find((f) => f.score === 'acc,none')!;
  assert.equal(flips.flips, 1);
  assert.equal(flips.byCause.response, 1);
  assert.equal(flips.examples.response[0]!.docIdA, '0');
  assert.equal(t.falsifier.clauses.find((c) => c.name === 'documents')!.status, 'violated');
  assert.equal(field(t, 'model.model_id').verdict, field(t, 'model.model_id').b.status === 'unknown' ? 'unknown in B' : 'differs');
});

test('Mistral-7B winogrande, standard vs question-shuffled prompts (v0.3 write_out): every flip is a prompt change', async () => {
  const dir = `${LMEVAL}pr1567-slurmevals`;
  const d = await diffPaths(`${dir}/mistral/winogrande_write_out_info.json`, `${dir}/mistralShuffle/question_shuffle_winogrande_write_out_info.json`);
  const t = d.comparisons[0]!.tasks[0]!;
  // write_out records neither doc hashes nor documents: the join falls back to doc_id, and says so.
  assert.equal(t.items!.key, 'doc_id');
  assert.deepEqual(t.items!.pairsByKey, { doc_hash: 0, doc_content: 0, doc_text: 0, doc_id: 1267 });
  assert.match(t.items!.keyNote, /doc_id is an index, so check the prompts/);
  assert.equal(t.items!.differences.promptsDiffer, 1267);
  assert.match(t.items!.differences.promptExamples[0]!.patch, /^-People think Samantha is embarassed, because Samantha made snide comments about the shirt Rebecca was wearing\.$/m);
  const acc = t.paired.find((p) => p.score === 'acc,none')!.result;
  // SOURCES.md: acc 0.7814 unshuffled vs 0.4807 shuffled; discordant pairs counted in Python: 516 right only in A, 135 only in B.
  assert.deepEqual([acc.n, acc.meanA, acc.meanB], [1267, 990 / 1267, 609 / 1267]);
  assert.deepEqual([acc.mcnemar!.aOnly, acc.mcnemar!.bOnly], [516, 135]);
  // scipy.stats.binomtest(135, 651, 0.5).pvalue, from test/audit/reference/paired_reference.py
  assert.ok(Math.abs(acc.mcnemar!.p / REFERENCE.mcnemar_winogrande_shuffle - 1) < 1e-9);
  assert.equal(acc.distinguishable, true);
  const flips = t.flips.find((f) => f.score === 'acc,none')!;
  assert.deepEqual([flips.flips, flips.byCause.prompt, flips.byCause.response, flips.byCause.extraction], [651, 651, 0, 0]);
  assert.equal(t.falsifier.clauses.find((c) => c.name === 'prompts')!.status, 'violated');
  assert.equal(t.falsifier.status, 'violated');
});

test('Inspect logs: the scored and the unscored popularity runs hold the same 10 answers', async () => {
  const dir = `${EXTERNAL}inspect/`;
  const d = await diffPaths(`${dir}2025-02-11T15-18-04-05-00_popularity_mj7khqpMM4GBCfVQozKgzB.eval`, `${dir}2025-02-11T15-17-00-05-00_popularity_dPiJifoWeEQBrfWsAopzWr.eval`);
  const t = d.comparisons[0]!.tasks[0]!;
  assert.equal(t.taskA, 'popularity');
  assert.deepEqual([t.items!.shared, t.items!.onlyA, t.items!.onlyB], [10, 0, 0]);
  assert.equal(t.items!.differences.promptsDiffer, 0);
  assert.equal(t.items!.differences.responsesDiffer, 0);
  // B was never scored (scores: {} on every sample): its scorer is unknown, and only rescoring can pair the runs.
  assert.equal(field(t, 'scoring.metrics').verdict, 'unknown in B');
  const strip = t.paired.find((p) => p.score === 'rescored:exact/strip')!;
  assert.deepEqual([strip.result.n, strip.result.meanA, strip.result.difference], [10, 0.8, 0]);
});

test('generic JSONL records pair on their ids (no documents, no hashes from a harness)', async () => {
  const { mkdtemp, writeFile } = await import('node:fs/promises');
  const { tmpdir } = await import('node:os');
  const { join } = await import('node:path');
  const dir = await mkdtemp(join(tmpdir(), 'lmaudit-generic-'));
  const rows = (outputs: string[]) => outputs.map((output, i) => JSON.stringify({ id: `q${i}`, output, gold: ['A', 'B', 'C', 'D'][i] })).join('\n');
  await writeFile(join(dir, 'a.jsonl'), rows(['A', 'B', 'x', 'y']));
  await writeFile(join(dir, 'b.jsonl'), rows(['A', 'z', 'C', 'D']));
  const d = await diffPaths(join(dir, 'a.jsonl'), join(dir, 'b.jsonl'));
  const t = d.comparisons[0]!.tasks[0]!;
  assert.deepEqual([t.items!.shared, t.items!.differences.responsesDiffer], [4, 3]);
  const exact = t.paired.find((p) => p.score === 'rescored:exact/strip')!.result;
  assert.deepEqual([exact.meanA, exact.meanB, exact.mcnemar!.aOnly, exact.mcnemar!.bOnly], [0.5, 0.75, 1, 2]);
  const flips = t.flips.find((f) => f.score === 'rescored:exact/strip')!;
  assert.deepEqual([flips.flips, flips.byCause.response], [3, 3]);
});

test('asdiv_cot_llama on Llama-3-8B-Instruct vs a PEFT adapter over it: the base revision agrees, the adapter sha is unknown', async () => {
  // fixtures/lmeval-more: both record model_revision "main" and model_sha e1945c40…; the adapter run adds peft_sha "",
  // which lm-eval writes when it could not ask the Hub. diff said 'run level differs: … model.revision'.
  const base = fixturePath('lmeval-more/pr2236-asdiv/asdiv');
  const d = await diffPaths(`${base}/meta-llama__Meta-Llama-3-8B-Instruct`, `${base}/..__prompt-pursuit__results__aug17__gsm8k_8shot_pursue_numq_1000_r16_lr1e-6__epoch_20`);
  const revision = d.comparisons[0]!.runSettings.items.find((i) => i.item === 'model')!.fields.find((f) => f.field === 'revision')!;
  assert.equal(revision.verdict, 'unknown in B');
  assert.equal(revision.partial, 'B did not record peft_sha (lm-eval writes "" when it could not ask the Hub); what both recorded agrees');
});
