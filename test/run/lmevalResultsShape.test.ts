/**
 * Issue 28 §4, the light checks (the full key-by-key comparison with lm-eval's own files is in
 * test/models/lmevalReference.test.ts): lmaudit's results_*.json is lm-eval 0.4.13's, as its sampled run,
 * its chat run and its plain run on the fixture models write it (fixtures/models/lmeval-reference).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../helpers/cli.ts';

type Json = Record<string, unknown>;

function resultsOf(out: string): Json {
  const dir = join(out, readdirSync(out)[0]!);
  return JSON.parse(readFileSync(join(dir, readdirSync(dir).find((n) => n.startsWith('results_'))!), 'utf8')) as Json;
}

function referenceResults(variant: string): Json {
  const dir = join('fixtures/models/lmeval-reference', variant);
  return JSON.parse(readFileSync(join(dir, readdirSync(dir).find((n) => n.startsWith('results_'))!), 'utf8')) as Json;
}

test('--gen_kwargs is merged into configs[task].generation_kwargs; tokenizer keys, task_alias, unsafe_code, metadata as lm-eval writes them', () => {
  const dir = mkdtempSync(join(tmpdir(), 'lmaudit-results-shape-'));
  const r = runCli(['run', '--model', 'onnx', '--model_args', 'pretrained=fixtures/models/gpt2-tiny', '--tasks', 'gsm8k,mmlu_abstract_algebra', '--limit', '1', '--num_fewshot', '0',
    '--gen_kwargs', 'do_sample=true,temperature=0.7,max_gen_toks=32', '--output_path', join(dir, 'out'), '--out', join(dir, 'store')], { env: { LMAUDIT_PROGRESS_SECONDS: '3600' } });
  assert.equal(r.status, 0, r.stderr);
  const ours = resultsOf(join(dir, 'out'));
  const configs = ours.configs as Record<string, Json>;
  // lm-eval's sampled run (issue 28 §4) records the YAML's until beside the CLI's settings, which win.
  assert.deepEqual(configs.gsm8k!.generation_kwargs, { until: ['Question:', '</s>', '<|im_end|>'], do_sample: true, temperature: 0.7, max_gen_toks: 32 });
  const ref = referenceResults('gpt2-tiny/plain');
  for (const k of ['tokenizer_pad_token', 'tokenizer_eos_token', 'tokenizer_bos_token', 'eot_token_id', 'max_length']) assert.deepEqual(ours[k], ref[k], k);
  assert.deepEqual(ours.eot_token_id, 50256);
  const mmlu = configs.mmlu_abstract_algebra!;
  const refMmlu = (ref.configs as Record<string, Json>).mmlu_abstract_algebra!;
  for (const k of ['task_alias', 'unsafe_code', 'fewshot_config', 'should_decontaminate']) assert.deepEqual(mmlu[k], refMmlu[k], k);
  assert.deepEqual(Object.keys(mmlu.fewshot_config as Json), Object.keys(refMmlu.fewshot_config as Json), 'fewshot_config in FewshotConfig order');
  assert.equal('tag' in mmlu, false, 'lm-eval writes no tag');
  assert.equal((configs.gsm8k as Json).doc_to_decontamination_query, undefined);
  assert.deepEqual(mmlu.metadata, { version: 1, pretrained: 'fixtures/models/gpt2-tiny', config_source: (mmlu.metadata as Json).config_source });
  assert.match(String((mmlu.metadata as Json).config_source), /tasks\/mmlu\/default\/mmlu_abstract_algebra\.yaml$/);
  assert.equal((ours.config as Json).batch_size, '1', "--batch_size as typed, as lm-eval's string");
});

test('a bare --apply_chat_template records fewshot_as_multiturn true, as lm-eval 0.4.13 does', () => {
  const dir = mkdtempSync(join(tmpdir(), 'lmaudit-results-chat-'));
  const r = runCli(['run', '--model', 'onnx', '--model_args', 'pretrained=fixtures/models/qwen3-tiny', '--tasks', 'arc_easy', '--limit', '1', '--apply_chat_template',
    '--output_path', join(dir, 'out'), '--out', join(dir, 'store')], { env: { LMAUDIT_PROGRESS_SECONDS: '3600' } });
  assert.equal(r.status, 0, r.stderr);
  const ours = resultsOf(join(dir, 'out'));
  const ref = referenceResults('qwen3-tiny/chat');
  assert.equal(ref.fewshot_as_multiturn, true);
  assert.equal(ours.fewshot_as_multiturn, true);
  for (const k of ['tokenizer_pad_token', 'tokenizer_eos_token', 'tokenizer_bos_token', 'eot_token_id']) assert.deepEqual(ours[k], ref[k], k);
});
