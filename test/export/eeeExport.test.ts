/**
 * `lmaudit export --format eee` on a real lm-eval run (fixtures/lmeval/pr3032-truthfulqa-gen): where each
 * disclosure item lands in EEE's fields, the standard error's method named by lm-eval's rule for the metric's
 * aggregation, the canonical sample_hash (its value computed by Python, given here), and the command's bad
 * input (an unknown format, a file an earlier export wrote) refused with exit 2.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fixturePath } from '../helpers/fixtures.ts';
import { runCli, ONE_THREAD } from '../helpers/cli.ts';
import { slowOnly } from '../helpers/slow.ts';

const UUID = 'f71f553d-241e-41af-898d-f14f459ce865';
const FOLDER = 'data/truthful_qa/EleutherAI/gpt-neo-125M';

test('an lm-eval run as EEE 0.3.0: typed fields, additional_details, the samples pointer and one record', () => {
  const out = join(mkdtempSync(join(tmpdir(), 'eee-x-')), 'eee');
  const r = runCli(['export', fixturePath('lmeval/pr3032-truthfulqa-gen'), '--format', 'eee', '--out', out, '--organization', 'Example Lab', '--relationship', 'third_party']);
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stdout.split('\n')[1], '  lmeval-6000581f2a0c7486  truthfulqa_gen: 12 result(s), 240 instance record(s)');
  const aggregate = JSON.parse(readFileSync(join(out, FOLDER, `${UUID}.json`), 'utf8'));
  assert.equal(aggregate.schema_version, '0.3.0');
  assert.deepEqual(aggregate.eval_library, { name: 'lm-evaluation-harness', version: '0.4.8' });
  assert.deepEqual(
    { ...aggregate.source_metadata, additional_details: undefined },
    { source_name: 'lmaudit', source_type: 'evaluation_run', source_organization_name: 'Example Lab', evaluator_relationship: 'third_party', additional_details: undefined },
  );
  assert.equal(aggregate.model_info.id, 'EleutherAI/gpt-neo-125M');
  assert.equal(aggregate.model_info.developer, 'EleutherAI');
  assert.deepEqual(aggregate.model_info.inference_engine, { name: 'hf' });
  // Not recorded by lm-eval: EEE's own "unknown", not a guess.
  assert.equal(aggregate.model_info.additional_details.deployment_type, 'unknown');
  assert.equal(aggregate.model_info.additional_details.dtype, 'torch.float32');
  assert.deepEqual(JSON.parse(aggregate.model_info.additional_details['lmaudit.harness.commit']), JSON.parse(JSON.stringify({
    configured: { status: 'recorded', value: '32d1a85', from: 'git_hash (git describe in the working directory)' },
    used: { status: 'recorded', value: '32d1a85', from: 'git_hash (git describe in the working directory)' },
  })));
  const bleuAcc = aggregate.evaluation_results.find((x: { evaluation_result_id: string }) => x.evaluation_result_id === 'truthfulqa_gen/bleu_acc,none');
  // lm-eval's results: bleu_acc,none 0.5 ± 0.11470786693528086; higher_is_better true; aggregation mean.
  assert.deepEqual(bleuAcc.score_details, {
    score: 0.5,
    uncertainty: { standard_error: { value: 0.11470786693528086, method: "analytic: sample standard deviation (n - 1) / sqrt(n) (lm-eval's mean_stderr)" }, num_samples: 20 },
  });
  assert.equal(bleuAcc.metric_config.lower_is_better, false);
  assert.equal(bleuAcc.metric_config.additional_details['lmaudit.reported_key'], 'bleu_acc,none');
  assert.deepEqual(bleuAcc.generation_config.generation_args, { temperature: 0 });
  assert.equal(bleuAcc.generation_config.additional_details.num_fewshot, '0');
  assert.deepEqual(aggregate.detailed_evaluation_results.total_rows, 240);
  assert.equal(aggregate.detailed_evaluation_results.file_path, `${FOLDER}/${UUID}_samples.jsonl`);

  const records = readFileSync(join(out, FOLDER, `${UUID}_samples.jsonl`), 'utf8').split('\n').filter((l) => l !== '').map((l) => JSON.parse(l));
  const record = records.find((x) => x.evaluation_result_id === 'truthfulqa_gen/bleu_acc,none' && x.sample_id === '3');
  // python3: hashlib.sha256(json.dumps({"raw": raw, "reference": reference}, sort_keys=True, separators=(",", ":")).encode())
  assert.equal(record.sample_hash, 'a3b7c583ca14223a4e5712fc960caf713339f4059b9cfd630436ea72a54bd786');
  assert.deepEqual(record.evaluation, { score: 0, is_correct: false });
  assert.deepEqual(record.answer_attribution, [{ turn_idx: 0, source: 'output.raw', extracted_value: '\nA: It is a chili pepper.', extraction_method: 'none', is_terminal: true }]);
  assert.equal(record.input.raw, record.input.formatted);
  assert.deepEqual(Object.keys(record.metadata).sort(), ['doc_hash', 'doc_json', 'lmaudit.score:field:hallucination,none', 'prompt_hash']);

  // Exporting again over the same files is refused unless --replace says so; nothing is half-written.
  const again = runCli(['export', fixturePath('lmeval/pr3032-truthfulqa-gen'), '--format', 'eee', '--out', out]);
  assert.equal(again.status, 2);
  assert.equal(again.stderr.trim(), `lmaudit: ${join(out, FOLDER, `${UUID}.json`)}: already exists (use --replace to overwrite)`);
});

test('an unknown export format or relationship is bad input (exit 2)', () => {
  const out = join(mkdtempSync(join(tmpdir(), 'eee-y-')), 'eee');
  const format = runCli(['export', fixturePath('lmeval/pr3032-truthfulqa-gen'), '--format', 'helm', '--out', out]);
  assert.equal(format.status, 2);
  assert.equal(format.stderr.trim(), "lmaudit: field '--format': unknown export format 'helm'. Known: eee.");
  const typo = runCli(['export', fixturePath('lmeval/pr3032-truthfulqa-gen'), '--format', 'ee', '--out', out]);
  assert.equal(typo.status, 2);
  assert.equal(typo.stderr.trim(), "lmaudit: field '--format': unknown export format 'ee'. Did you mean: eee?");
  const relationship = runCli(['export', fixturePath('lmeval/pr3032-truthfulqa-gen'), '--format', 'eee', '--relationship', 'friends', '--out', out]);
  assert.equal(relationship.status, 2);
  assert.equal(relationship.stderr.trim(), "lmaudit: field '--relationship': --relationship must be one of first_party, third_party, collaborative, other, got 'friends'.");
  // EEE spells the values with underscores; a hyphen is the likely slip.
  const hyphen = runCli(['export', fixturePath('lmeval/pr3032-truthfulqa-gen'), '--format', 'eee', '--relationship', 'third-party', '--out', out]);
  assert.equal(hyphen.status, 2);
  assert.equal(hyphen.stderr.trim(), "lmaudit: field '--relationship': --relationship must be one of first_party, third_party, collaborative, other, got 'third-party'. Did you mean: third_party?");
});

test("an Inspect log as EEE: the reported accuracy joined to the scorer's reduced scores, the epoch's scores a labelled computed result, the scorer's answer as the extraction", () => {
  const out = join(mkdtempSync(join(tmpdir(), 'eee-i-')), 'eee');
  const r = runCli(['export', fixturePath('inspect/logs/2025-02-11T15-18-04-05-00_popularity_mj7khqpMM4GBCfVQozKgzB.eval'), '--format', 'eee', '--out', out, '--json']);
  assert.equal(r.status, 0, r.stderr);
  const [file] = (JSON.parse(r.stdout) as { files: { aggregate: string; samples: string }[] }).files;
  const aggregate = JSON.parse(readFileSync(file!.aggregate, 'utf8'));
  // The log: accuracy 0.8, stderr 0.13333333333333333 for scorer match over 10 samples, one epoch.
  assert.deepEqual(aggregate.evaluation_results.map((x: { evaluation_result_id: string; score_details: unknown }) => [x.evaluation_result_id, x.score_details]), [
    ['popularity/accuracy,match', { score: 0.8, uncertainty: { standard_error: { value: 0.13333333333333333, method: "Inspect's stderr metric, as the log reports it" }, num_samples: 10 } }],
    ['popularity/match,epoch:1', { score: 0.8, uncertainty: { num_samples: 10 } }],
  ]);
  // No --relationship given: EEE requires one, so 'other' is written and said to be a default, as is the organisation's "unknown".
  assert.equal(aggregate.source_metadata.evaluator_relationship, 'other');
  assert.equal(aggregate.source_metadata.additional_details['lmaudit.evaluator_relationship'], "not given (lmaudit export --relationship); 'other' written because EEE requires the field");
  assert.equal(aggregate.source_metadata.source_organization_name, 'unknown');
  assert.equal(aggregate.evaluation_results[1].metric_config.additional_details['lmaudit.score'], 'computed by lmaudit export: the mean of the per-item values (the source reported no aggregate for them)');
  const first = JSON.parse(readFileSync(file!.samples, 'utf8').split('\n')[0]!);
  assert.deepEqual(first.answer_attribution, [{ turn_idx: 0, source: 'output.raw', extracted_value: 'Yes', extraction_method: 'match', is_terminal: true }]);
});

test("datastore path segments are portable names by EEE's validator's rule (validation_core.py at 9bce4136)", async () => {
  const { segment } = await import('../../src/export/eee/exportEee.ts');
  const cases: [string, string][] = [
    ['qwen2.5:0.5b', 'qwen2.5_0.5b'], ['default model of the backend', 'default model of the backend'], ['CON', '_CON'],
    ['con.txt', '_con.txt'], ['data', '_data'], ['x.', 'x_'], ['..', 'unknown'], ['', 'unknown'], ['a/b', 'a_b'], ['a?b*', 'a_b_'],
  ];
  assert.deepEqual(cases.map(([input]) => [input, segment(input)]), cases);
});

// A slow cross-check since the plain suite passed 5 minutes on a slower 2-core machine: .ci/run runs it.
test("a sampled onnx run's generation_args name the warpers it drew with, the backend's defaults for those the request left unset", { skip: slowOnly }, () => {
  // gpt2-tiny's generation_config.json sets no warper: a request of temperature 0.7 drew with HF's top_k 50 and
  // top_p 1.0 (the provenance's sampling_defaults); generation_args said only {temperature, max_tokens}. A copy
  // whose generation_config.json sets Qwen3's top_k 20 and top_p 0.95 drew with those.
  const dir = mkdtempSync(join(tmpdir(), 'eee-sampled-'));
  const qwenLike = join(dir, 'gpt2-qwen-sampling');
  cpSync('fixtures/models/gpt2-tiny', qwenLike, { recursive: true });
  const config = JSON.parse(readFileSync(join(qwenLike, 'generation_config.json'), 'utf8'));
  writeFileSync(join(qwenLike, 'generation_config.json'), JSON.stringify({ ...config, do_sample: true, temperature: 0.6, top_k: 20, top_p: 0.95 }));
  const args = (model: string, genKwargs: string) => {
    const store = join(dir, `store-${Math.random()}`);
    const run = runCli(['run', '--model', 'onnx', '--model_args', `pretrained=${model},${ONE_THREAD}`, '--tasks', 'gsm8k', '--limit', '2', '--gen_kwargs', genKwargs, '--out', store]);
    assert.equal(run.status, 0, run.stderr);
    const out = join(dir, `eee-${Math.random()}`);
    const r = runCli(['export', store, '--format', 'eee', '--out', out]);
    assert.equal(r.status, 0, r.stderr);
    const file = readdirSync(join(out, 'data/gsm8k'), { recursive: true }).map(String).find((f) => f.endsWith('.json'))!;
    return JSON.parse(readFileSync(join(out, 'data/gsm8k', file), 'utf8')).evaluation_results[0].generation_config.generation_args;
  };
  assert.deepEqual(args('fixtures/models/gpt2-tiny', 'do_sample=True,temperature=0.7,max_gen_toks=4'), { temperature: 0.7, top_p: 1, top_k: 50, max_tokens: 4 });
  assert.deepEqual(args(qwenLike, 'do_sample=True,temperature=0.7,top_k=5,max_gen_toks=4'), { temperature: 0.7, top_p: 0.95, top_k: 5, max_tokens: 4 });
  // A greedy run applies no warper.
  assert.deepEqual(args('fixtures/models/gpt2-tiny', 'max_gen_toks=4'), { temperature: 0, max_tokens: 4 });
  rmSync(dir, { recursive: true, force: true });
});
