/**
 * The lm-eval flags of `lmaudit run` that have no lmaudit setting of their own: each is accepted
 * with lm-eval's meaning (and said how lmaudit honours it), or refused with the reason and what
 * to do instead, so that an lm-eval command line pasted after `lmaudit run` runs or says exactly
 * why not. Flag names and arities are lm-eval 0.4.13's (lm_eval/_cli/run.py).
 */
import type { Command } from 'commander';
import { BadInputError, didYouMean, UnsupportedError } from '../errors.ts';
import type { ModelArgs } from '../models/lm.ts';
import type { RecordNote } from '../store/schema.ts';

export interface LmevalFlags {
  device?: string;
  log_samples?: boolean;
  write_out?: boolean;
  use_cache?: string;
  cache_requests?: string | boolean;
  predict_only?: boolean;
  verbosity?: string;
  show_config?: boolean;
  max_batch_size?: string;
  trust_remote_code?: boolean;
  check_integrity?: boolean;
  wandb_args?: string[];
  wandb_config_args?: string[];
  hf_hub_log_args?: string[];
  trackio_args?: string[];
  samples?: string;
  config?: string;
  metadata?: string[];
  confirm_run_unsafe_code?: boolean;
}

export function addLmevalFlags(command: Command): Command {
  return command
    .option('--device <device>', "lm-eval's device (cuda:0, cpu, mps): recorded in the provenance; the onnx backend runs on the CPU, API backends on their server")
    .option('-s, --log_samples', "lm-eval's flag: accepted; every sample is always written (the store, and samples_<task>_<ts>.jsonl with --output_path)")
    .option('-w, --write_out', "lm-eval's flag: accepted; every prompt is in the store (`lmaudit prompts` prints them)")
    .option('-c, --use_cache <store>', "lm-eval's response cache: lmaudit's store is the cache — a new folder becomes the run's store, an unfinished one is resumed (only the missing requests are sent), a finished one answers the run by replay into a new --out")
    .option('--cache_requests [mode]', "lm-eval's request cache (true|refresh|delete): accepted; lmaudit builds the requests afresh each run and keeps responses in the store (--use_cache, --resume)")
    .option('-x, --predict_only', "lm-eval's flag: outputs only — stored as usual, every task's metrics replaced by lm-eval's bypass (nothing is scored; a task whose scoring lmaudit cannot port runs too)")
    .option('-v, --verbosity <level>', "lm-eval's log level: accepted (lmaudit's progress goes to stderr whatever it is)")
    .option('--show_config', "lm-eval's flag: print each task's configuration after the run")
    .option('--max_batch_size <n>', "lm-eval's cap for --batch_size auto: accepted (auto is 1 here)")
    .option('--trust_remote_code', 'refused: lmaudit runs no code from a model repository')
    .option('--check_integrity', "refused: lm-eval's task unit tests are Python; `lmaudit prompts` shows the requests a task builds")
    .option('--wandb_args <args...>', 'refused: lmaudit sends nothing to Weights & Biases')
    .option('--wandb_config_args <args...>', 'refused: lmaudit sends nothing to Weights & Biases')
    .option('--hf_hub_log_args <args...>', 'refused: lmaudit pushes nothing to the Hugging Face Hub')
    .option('--trackio_args <args...>', 'refused: lmaudit sends nothing to outside services')
    .option('-E, --samples <json>', 'refused: documents are chosen with --limit (the first N) only')
    .option('-C, --config <path>', "refused: lm-eval's YAML of flags; give the flags on the command line")
    .option('--metadata <args...>', 'refused: no shipped task reads metadata')
    .option('--confirm_run_unsafe_code', 'refused: lmaudit runs no task code');
}

/** lm-eval's model names that are lmaudit backends under another name (lm_eval/models/openai_completions.py registers both). */
const BACKEND_ALIASES: Record<string, string> = {
  'local-completions': 'openai-completions',
  'local-chat-completions': 'openai-chat',
  'openai-chat-completions': 'openai-chat',
  'anthropic-chat': 'anthropic',
  'anthropic-chat-completions': 'anthropic',
};

/** lm-eval's local model types that load PyTorch weights: lmaudit runs the same checkpoint exported to ONNX. */
const TORCH_MODELS = ['hf', 'hf-auto', 'huggingface', 'vllm', 'sglang', 'steered', 'hf-multimodal', 'vllm-vlm'];

/**
 * The lmaudit backend for lm-eval's `--model` name. A PyTorch model type is refused with the two
 * ways lmaudit runs the same checkpoint: an ONNX export (the exact command), or a server.
 */
export function lmauditBackend(model: string, args: ModelArgs): string {
  const alias = BACKEND_ALIASES[model];
  if (alias !== undefined) {
    // lm-eval's TemplateAPI argument: lmaudit's completions backend always sends token ids it tokenised itself
    // (tokenized_requests=True); chat sends messages, which is what lm-eval's chat backends do (False) as well.
    if (alias === 'openai-completions' && args.tokenized_requests === false) {
      throw new UnsupportedError(`--model_args tokenized_requests=False: lmaudit's ${alias} sends the prompt as token ids it tokenised itself (lm-eval's tokenized_requests=True), so that the store holds exactly the tokens the model saw; leave tokenized_requests out and give tokenizer=<folder with tokenizer.json> or tokenizer_backend=remote`);
    }
    if (alias === 'openai-chat' && args.tokenized_requests === true) throw new UnsupportedError('--model_args tokenized_requests=True: a chat endpoint takes messages, not token ids (lm-eval refuses it too)');
    delete args.tokenized_requests;
    return alias;
  }
  if (!TORCH_MODELS.includes(model)) return model;
  const pretrained = typeof args.pretrained === 'string' && args.pretrained !== '' ? args.pretrained : '<model>';
  const name = pretrained.replace(/\/+$/, '').split('/').pop() ?? 'model';
  const folder = `${name}-onnx`;
  const revision = typeof args.revision === 'string' ? args.revision : null;
  // optimum's text-generation-with-past writes model.onnx with past in and present out: the layout src/models/onnx/modelFolder.ts reads first.
  const steps = revision === null
    ? [`optimum-cli export onnx --model ${pretrained} --task text-generation-with-past ${folder}/`]
    : [`huggingface-cli download ${pretrained} --revision ${revision} --local-dir ${name}-${revision}`, `optimum-cli export onnx --model ${name}-${revision} --task text-generation-with-past ${folder}/`];
  throw new UnsupportedError(
    `--model ${model}: lmaudit loads no PyTorch weights. Export the same checkpoint to ONNX (pip install "optimum[exporters]"): ${steps.map((s) => `\`${s}\``).join(' then ')}, ` +
      `then run \`lmaudit run --model onnx --model_args pretrained=${folder} …\` (the same flags). ` +
      `A model served by vLLM, SGLang or TGI runs through \`--model openai-completions --model_args model=${pretrained},base_url=http://<host>:8000/v1\` (lm-eval's local-completions).`,
  );
}

/** The devices each backend runs on, for `--device`. */
const BACKEND_DEVICES: Record<string, string> = {
  onnx: 'the CPU only (onnxruntime-node without its CUDA provider)',
  dummy: 'no device (it computes nothing)',
  replay: 'no device (answers come from a store)',
  'openai-completions': "the server's devices (a served model: --device does not move it)",
  'openai-chat': "the server's devices (a served model: --device does not move it)",
  anthropic: "Anthropic's servers (--device does not apply)",
};

export interface LmevalFlagEffects {
  /** Provenance notes: what was asked and what lmaudit did with it. */
  notes: RecordNote[];
  /** Said on stderr before the run. */
  warnings: string[];
}

/** Refuses the flags lmaudit does not honour, and says (and records) what the accepted ones did. */
export function lmevalFlagEffects(flags: LmevalFlags, backend: string): LmevalFlagEffects {
  if (flags.trust_remote_code) {
    throw new UnsupportedError('--trust_remote_code: lmaudit never runs code from a model or dataset repository (an ONNX export holds the whole computation, and the tokenizer is read from tokenizer.json). Export on a machine you trust with `optimum-cli export onnx --trust-remote-code …`, then run the folder with --model onnx');
  }
  if (flags.check_integrity) {
    throw new UnsupportedError("--check_integrity: lm-eval's task tests are Python test files that lmaudit does not run; `lmaudit prompts --tasks <names> --limit 5` prints the exact requests a task builds, to check them before a run");
  }
  const refused: [unknown, string][] = [
    [flags.trackio_args, '--trackio_args: lmaudit sends nothing to outside services; the run is in the store (and lm-eval\'s files with --output_path)'],
    [flags.samples, '--samples: lmaudit chooses documents with --limit only (the first N, or a share below 1); `lmaudit prompts --tasks <task>` lists the document ids'],
    [flags.config, "--config: lm-eval's YAML file of flags is not read; give the same flags on the command line"],
    [flags.metadata, '--metadata: no task lmaudit ships reads task metadata (lm-eval passes it to tasks such as RULER)'],
    [flags.confirm_run_unsafe_code, '--confirm_run_unsafe_code: lmaudit runs no task code, so tasks that execute generated code are refused before anything is sent'],
  ];
  for (const [value, message] of refused) if (value !== undefined) throw new UnsupportedError(message);
  if (flags.wandb_args !== undefined || flags.wandb_config_args !== undefined) {
    throw new UnsupportedError('--wandb_args: lmaudit sends nothing to outside services. The run is in the store and, with --output_path, in lm-eval\'s results and samples files: log those with wandb yourself, or share `lmaudit report <store> --out report.html`');
  }
  if (flags.hf_hub_log_args !== undefined) {
    throw new UnsupportedError('--hf_hub_log_args: lmaudit pushes nothing to the Hugging Face Hub. Write lm-eval\'s files with --output_path <dir> and upload them with `huggingface-cli upload <org>/<repo> <dir>`');
  }
  if (typeof flags.cache_requests === 'string' && !['true', 'refresh', 'delete'].includes(flags.cache_requests.toLowerCase())) {
    throw new BadInputError(`--cache_requests takes true, refresh or delete, got '${flags.cache_requests}'.${didYouMean(String(flags.cache_requests), ['true', 'refresh', 'delete'])}`);
  }
  const notes: RecordNote[] = [];
  const warnings: string[] = [];
  const note = (flag: string, message: string) => notes.push({ task: null, kind: 'lmeval-flag', message: `${flag}: ${message}`, evidence: [] });
  if (flags.device !== undefined) {
    const devices = BACKEND_DEVICES[backend] ?? 'its own devices';
    const message = `asked for device ${flags.device}; the ${backend} backend runs on ${devices}`;
    note('--device', message);
    if (!(backend === 'onnx' && flags.device === 'cpu')) warnings.push(`--device ${flags.device}: ${message} (recorded in the provenance)`);
  }
  if (flags.cache_requests !== undefined) note('--cache_requests', 'accepted; lmaudit builds the requests afresh (responses are what a store keeps: --use_cache, --resume)');
  if (flags.predict_only) note('--predict_only', "outputs only: every task's metrics were replaced by lm-eval's bypass, so no metric was computed");
  if (flags.max_batch_size !== undefined) note('--max_batch_size', `accepted (${flags.max_batch_size}); --batch_size auto is 1 in lmaudit`);
  return { notes, warnings };
}
