/**
 * lm-eval command lines pasted after `lmaudit run` run, or say exactly why not (issue 25 §4).
 * The command lines are lm-eval's own, copied from
 *   README.md of EleutherAI/lm-evaluation-harness at 006fcc7ef79d2e47ec6154ed51474091a4f418e0
 *   docs/interface.md at 00981a823d30d18b2093f68f8f23590b9a1eca57 (the flags it documents)
 *   lm_eval/_cli/run.py at 0982f02f32d47ea7bf538bbfc5b54b0a1214dffe (the `lm-eval run` examples: space-separated lists, short flags)
 * with `lm_eval` replaced by `lmaudit run`; placeholders such as {model_name} are filled in as noted.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../helpers/cli.ts';

const tmp = () => mkdtempSync(join(tmpdir(), 'lmaudit-lmeval-cli-'));
/** A pasted line: split as a shell would (the lines hold no quoted spaces); `"float"` loses its quotes as in a shell. */
const words = (line: string) => line.replace(/\\\n/g, ' ').trim().split(/\s+/).map((w) => w.replace(/"/g, '')).slice(1);

test('README "Hugging Face transformers": --model hf says the exact ONNX export command and the server route', () => {
  const line = `lm_eval --model hf \\
    --model_args pretrained=EleutherAI/gpt-j-6B \\
    --tasks hellaswag \\
    --device cuda:0 \\
    --batch_size 8`;
  const r = runCli(['run', ...words(line)]);
  assert.equal(r.status, 2, r.stderr);
  assert.ok(r.stderr.includes('`optimum-cli export onnx --model EleutherAI/gpt-j-6B --task text-generation-with-past gpt-j-6B-onnx/`'), r.stderr);
  assert.ok(r.stderr.includes('`lmaudit run --model onnx --model_args pretrained=gpt-j-6B-onnx …`'), r.stderr);
  assert.ok(r.stderr.includes('--model openai-completions --model_args model=EleutherAI/gpt-j-6B,base_url=http://<host>:8000/v1'), r.stderr);
  assert.ok(!r.stderr.includes('unknown option') && !r.stderr.includes('    at '), r.stderr);
});

test('README: a checkpoint revision is downloaded at that revision before the export', () => {
  const line = `lm_eval --model hf \\
    --model_args pretrained=EleutherAI/pythia-160m,revision=step100000,dtype="float" \\
    --tasks lambada_openai,hellaswag \\
    --device cuda:0 \\
    --batch_size auto:4`;
  const r = runCli(['run', ...words(line)]);
  assert.equal(r.status, 2, r.stderr);
  assert.ok(r.stderr.includes('`huggingface-cli download EleutherAI/pythia-160m --revision step100000 --local-dir pythia-160m-step100000` then `optimum-cli export onnx --model pythia-160m-step100000 --task text-generation-with-past pythia-160m-onnx/`'), r.stderr);
});

test('README vLLM and SGLang lines ({model_name} filled in): the same ONNX and server routes', () => {
  for (const line of [
    'lm_eval --model vllm --model_args pretrained=EleutherAI/pythia-160m,tensor_parallel_size=1,dtype=auto,gpu_memory_utilization=0.8,data_parallel_size=1 --tasks lambada_openai --batch_size auto',
    'lm_eval --model sglang --model_args pretrained=EleutherAI/pythia-160m,dp_size=1,tp_size=1,dtype=auto --tasks gsm8k_cot --batch_size auto',
  ]) {
    const r = runCli(['run', ...words(line)]);
    assert.equal(r.status, 2, r.stderr);
    assert.match(r.stderr, /^lmaudit: --model (vllm|sglang): lmaudit loads no PyTorch weights\. Export the same checkpoint to ONNX .*optimum-cli export onnx --model EleutherAI\/pythia-160m --task text-generation-with-past pythia-160m-onnx\/.*openai-completions/m);
  }
});

test("README local-completions line ({yourip} filled in): lm-eval's names are lmaudit's openai-completions and openai-chat", () => {
  const line = 'lm_eval --model local-completions --tasks gsm8k --model_args model=facebook/opt-125m,base_url=http://127.0.0.1:9/v1/completions,num_concurrent=1,max_retries=3,tokenized_requests=False,batch_size=16';
  const r = runCli(['run', ...words(line), '--out', join(tmp(), 's')]);
  assert.equal(r.status, 2, r.stderr);
  // The one argument whose meaning lmaudit does not share is named, with what to give instead.
  assert.match(r.stderr, /tokenized_requests=False: lmaudit's openai-completions sends the prompt as token ids it tokenised itself .*leave tokenized_requests out and give tokenizer=<folder with tokenizer\.json> or tokenizer_backend=remote/);
  // Without it the line reaches the openai-completions backend (nothing listens on port 9: it stops before sending).
  const ok = runCli(['run', ...words(line.replace('tokenized_requests=False,', '')), '--model_args', 'tokenizer=fixtures/models/gpt2-tiny', '--out', join(tmp(), 's')]);
  assert.equal(ok.status, 2, ok.stderr);
  assert.ok(!/Unknown model backend|not an argument/.test(ok.stderr), ok.stderr);
  assert.match(ok.stderr, /127\.0\.0\.1:9/);
  const chat = runCli(['run', '--model', 'local-chat-completions', '--tasks', 'gsm8k', '--model_args', 'model=m,base_url=http://127.0.0.1:9/v1/chat/completions,tokenized_requests=False', '--apply_chat_template', '--out', join(tmp(), 's')]);
  assert.equal(chat.status, 2, chat.stderr);
  assert.ok(!/Unknown model backend|not an argument/.test(chat.stderr), chat.stderr);
  assert.match(chat.stderr, /127\.0\.0\.1:9/);
});

test('docs/interface.md flags run with their lm-eval meaning: --device recorded, samples written, --use_cache is the store, bare --fewshot_as_multiturn', () => {
  const dir = tmp();
  const cache = join(dir, 'cache');
  const args = ['run', '--model', 'dummy', '--tasks', 'arc_easy', 'gsm8k', '--limit', '2', '--device', 'cuda:0', '--log_samples', '--write_out', '--use_cache', cache,
    '--cache_requests', '--predict_only', '--verbosity', 'DEBUG', '--show_config', '--output_path', join(dir, 'out'), '--fewshot_as_multiturn', '--apply_chat_template', '--max_batch_size', '64'];
  const r = runCli(args);
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stderr, /--device cuda:0: asked for device cuda:0; the dummy backend runs on no device \(it computes nothing\) \(recorded in the provenance\)/);
  // --show_config prints each task's configuration (JSON, before the table).
  const config = JSON.parse(r.stdout.slice(0, r.stdout.indexOf('\n}\n') + 2)) as Record<string, { output_type: string }>;
  assert.deepEqual(Object.keys(config), ['arc_easy', 'gsm8k']);
  assert.equal(config.gsm8k!.output_type, 'generate_until');
  assert.match(r.stdout, new RegExp(`Store: ${cache} \\(10 request\\(s\\) sent this time\\)`));
  const manifest = JSON.parse(readFileSync(join(cache, 'provenance.json'), 'utf8')) as { runs: { notes: { kind: string; message: string }[] }[] };
  const notes = manifest.runs[0]!.notes.filter((n) => n.kind === 'lmeval-flag').map((n) => n.message);
  assert.ok(notes.includes('--device: asked for device cuda:0; the dummy backend runs on no device (it computes nothing)'), notes.join('\n'));
  // The finished cache answers a second run through the replay backend, into a new store.
  const withoutOutputPath = args.filter((a, i) => a !== '--output_path' && args[i - 1] !== '--output_path');
  const again = runCli(withoutOutputPath);
  assert.equal(again.status, 2);
  assert.equal(again.stderr, `lmaudit: --use_cache ${cache} holds a finished run: its answers are replayed into a new store; give --out <new store> (or --output_path <dir>)\n`);
  const replayed = runCli([...withoutOutputPath.filter((a) => a !== '--show_config'), '--out', join(dir, 'replayed')]);
  assert.equal(replayed.status, 0, replayed.stderr);
  assert.match(replayed.stderr, new RegExp(`--use_cache ${cache} holds a finished run: its answers are replayed \\(--model replay\\), none is sent to a model`));
  assert.match(replayed.stdout, /^Replayed: 10 request\(s\) answered from the store this time, none sent to a model$/m);
  // …and the store line does not then say they were sent.
  assert.match(replayed.stdout, new RegExp(`^Store: ${join(dir, 'replayed')} \\(10 request\\(s\\) answered by replay this time\\)$`, 'm'));
  const other = runCli(['run', '--model', 'onnx', '--model_args', 'pretrained=fixtures/models/gpt2-tiny', '--tasks', 'arc_easy', '--use_cache', cache, '--out', join(dir, 'other')]);
  assert.equal(other.status, 2);
  assert.equal(other.stderr, `lmaudit: --use_cache ${cache}: its answers came from the dummy backend, not onnx; give a new --use_cache folder for this model\n`);
  // Bare --fewshot_as_multiturn before another flag, and with a value.
  for (const tail of [['--fewshot_as_multiturn', '--apply_chat_template'], ['--apply_chat_template', '--fewshot_as_multiturn', 'false']]) {
    const t = runCli(['run', '--model', 'dummy', '--tasks', 'arc_easy', '--limit', '1', '--out', join(tmp(), 's'), ...tail]);
    assert.equal(t.status, 0, t.stderr);
  }
});

test('README lines with --wandb_args and --hf_hub_log_args, and --trust_remote_code: refused with the reason and the alternative', () => {
  const base = ['run', '--model', 'dummy', '--tasks', 'hellaswag,mmlu_abstract_algebra', '--limit', '10', '--out', join(tmp(), 's')];
  const wandb = runCli([...base, '--wandb_args', 'project=lm-eval-harness-integration', '--log_samples']);
  assert.equal(wandb.status, 2);
  assert.match(wandb.stderr, /--wandb_args: lmaudit sends nothing to outside services\. .*lmaudit report <store> --out report\.html/);
  const hub = runCli([...base, '--log_samples', '--hf_hub_log_args', 'hub_results_org=EleutherAI,hub_repo_name=lm-eval-results,push_results_to_hub=True,push_samples_to_hub=True,public_repo=False']);
  assert.equal(hub.status, 2);
  assert.match(hub.stderr, /--hf_hub_log_args: lmaudit pushes nothing to the Hugging Face Hub\. .*huggingface-cli upload <org>\/<repo> <dir>/);
  const remote = runCli([...base, '--trust_remote_code']);
  assert.equal(remote.status, 2);
  assert.match(remote.stderr, /--trust_remote_code: lmaudit never runs code from a model or dataset repository/);
});

test('README "lm-eval --tasks list": the task list, as `lmaudit tasks` prints it', () => {
  const r = runCli(['run', '--tasks', 'list']);
  assert.equal(r.status, 0, r.stderr);
  const t = runCli(['tasks']);
  assert.equal(r.stdout, t.stdout);
  assert.match(r.stdout, /^arc_easy +task +multiple_choice +0 +tasks\/arc\/arc_easy\.yaml$/m);
});

test('`lm-eval run` examples (lm_eval/_cli/run.py): space-separated --model_args and --tasks, and the short flags', () => {
  const hf = runCli(['run', ...words('lm-eval run --model hf --model_args pretrained=gpt2 dtype=float32 --tasks hellaswag').slice(1)]);
  assert.equal(hf.status, 2, hf.stderr);
  assert.ok(hf.stderr.includes('`optimum-cli export onnx --model gpt2 --task text-generation-with-past gpt2-onnx/`'), hf.stderr);
  const vllm = runCli(['run', ...words('lm-eval run --model vllm --model_args pretrained=EleutherAI/gpt-j-6B --tasks arc_easy arc_challenge --num_fewshot 5').slice(1)]);
  assert.equal(vllm.status, 2, vllm.stderr);
  assert.match(vllm.stderr, /^lmaudit: --model vllm: lmaudit loads no PyTorch weights/);
  // The same shape on the dummy backend runs: both tasks, the short flags of lm-eval's run.py.
  const dir = tmp();
  const r = runCli(['run', '-M', 'dummy', '-t', 'arc_easy', 'arc_challenge', '-L', '2', '-f', '0', '-b', '4', '-o', join(dir, 'out'), '--out', join(dir, 's')]);
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /^\|arc_challenge\|/m);
  assert.match(r.stdout, /^\|arc_easy +\|/m);
  for (const [flag, value, why] of [['--samples', '{"arc_easy":[0]}', /--samples: lmaudit chooses documents with --limit only/], ['--config', 'c.yaml', /--config: lm-eval's YAML file of flags is not read/], ['--confirm_run_unsafe_code', null, /lmaudit runs no task code/]] as const) {
    const x = runCli(['run', '-M', 'dummy', '-t', 'arc_easy', '--out', join(tmp(), 's'), flag, ...(value === null ? [] : [value])]);
    assert.equal(x.status, 2);
    assert.match(x.stderr, why);
  }
});

test('--output_path ending in .json names the results file, the samples beside it, as lm-eval 0.4.13 writes them', () => {
  // lm_eval … --output_path lmeval-out/jsonpath/res.json (run here on the fixture model) wrote
  // lmeval-out/jsonpath/res_<date_id>.json and lmeval-out/jsonpath/samples_arc_easy_<date_id>.jsonl, no model
  // subfolder (EvaluationTracker: Path.suffix == ".json"); lmaudit made a folder named res.json.
  const dir = tmp();
  const r = runCli(['run', '--model', 'dummy', '--tasks', 'arc_easy', '--limit', '2', '--output_path', join(dir, 'res.json')]);
  assert.equal(r.status, 0, r.stderr);
  const names = readdirSync(dir).sort();
  assert.equal(names.length, 3, names.join(', '));
  assert.match(names[0]!, /^res_\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d(\.\d{6})?\.json$/);
  const stamp = names[0]!.slice('res_'.length, -'.json'.length);
  assert.deepEqual(names.slice(1), [`samples_arc_easy_${stamp}.jsonl`, `store_${stamp}`]);
  assert.match(r.stdout, new RegExp(`^lm-eval file: ${join(dir, names[0]!).replace(/[.]/g, '\\.')}$`, 'm'));
});

test('--limit 0 is refused before anything runs, as lm-eval 0.4.13 refuses it', () => {
  // lm_eval … --tasks arc_easy --limit 0 (run here on the fixture model): ValueError: task.build_requests() did not
  // find any docs! lmaudit wrote an empty run and results file.
  const dir = tmp();
  const r = runCli(['run', '--model', 'dummy', '--tasks', 'arc_easy', '--limit', '0', '--output_path', join(dir, 'out')]);
  assert.equal(r.status, 2);
  assert.equal(r.stderr, "lmaudit: field '--limit': task 'arc_easy': no documents to evaluate (--limit 0 selects none of 2376); lm-eval refuses such a run (task.build_requests() did not find any docs)\n");
  assert.deepEqual(readdirSync(dir), []);
});
