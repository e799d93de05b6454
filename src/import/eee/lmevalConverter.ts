/**
 * What EEE's lm-eval converter did to an lm-eval run, undone where it is one-to-one, so that a run and its
 * EEE conversion compare by meaning (interchange-formats.md §2.9; converters/lm_eval/adapter.py and utils.py
 * at 9bce4136): `eval_library.name` "lm_eval" is lm-evaluation-harness; inference_engine "transformers",
 * "vllm", "llama.cpp" were lm-eval's model types hf, vllm, gguf; `generation_args.max_tokens` was
 * `max_gen_toks`, and every other generation kwarg went into `additional_details`, JSON-encoded unless it was
 * a string; `max_attempts` is the EEE schema's default, not lm-eval's; `revision` and `sha` were lm-eval's
 * `model_revision` and `model_sha`. Each value is labelled inferred, with how.
 */
import { inferred, same, type RunProvenance, type Setting, type TaskProvenance } from '../../store/schema.ts';
import { isPlainObject } from '../../util/json.ts';
import type { Json } from './aggregate.ts';

const ENGINES: Record<string, string> = { transformers: 'hf', vllm: 'vllm', 'llama.cpp': 'gguf' };
const FROM = "EEE's lm-eval converter";

export const isLmevalConversion = (raw: Json): boolean => isPlainObject(raw.eval_library) && raw.eval_library.name === 'lm_eval';

/** A converter-written detail: JSON-decoded where it decodes (the converter encoded every non-string). */
function decoded(text: unknown): unknown {
  if (typeof text !== 'string') return text;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

export function lmevalRunMeaning(p: RunProvenance, raw: Json): void {
  p.harness.name = same(inferred('lm-evaluation-harness', `eval_library.name "lm_eval" (${FROM}'s name for lm-evaluation-harness)`));
  const model = isPlainObject(raw.model_info) ? raw.model_info : {};
  const engine = isPlainObject(model.inference_engine) ? model.inference_engine.name : undefined;
  if (typeof engine === 'string' && ENGINES[engine] !== undefined) {
    p.model.backend = same(inferred(ENGINES[engine], `model_info.inference_engine.name "${engine}" (${FROM} writes it for lm-eval's model type ${ENGINES[engine]})`));
  }
  const details = isPlainObject(model.additional_details) ? model.additional_details : {};
  if (typeof details.revision === 'string' && typeof details.sha === 'string') {
    p.model.revision = same(inferred({ model_revision: details.revision, model_sha: details.sha }, `model_info.additional_details revision and sha (${FROM}'s copies of lm-eval's model_revision and model_sha)`));
  }
}

export function lmevalTaskMeaning(t: TaskProvenance, result: Json, at: string): void {
  const generation = isPlainObject(result.generation_config) ? result.generation_config : undefined;
  if (generation === undefined) return;
  const args = isPlainObject(generation.generation_args) ? generation.generation_args : {};
  const details = isPlainObject(generation.additional_details) ? generation.additional_details : {};
  const kwargs: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(details)) if (k !== 'num_fewshot') kwargs[k] = decoded(v);
  for (const k of ['temperature', 'top_p', 'top_k'] as const) if (args[k] !== undefined && args[k] !== null) kwargs[k] = args[k];
  if (args.max_tokens !== undefined && args.max_tokens !== null) kwargs.max_gen_toks = args.max_tokens;
  const how = `${at}.generation_config: ${FROM}'s mapping undone (max_tokens was max_gen_toks; additional_details JSON-decoded; max_attempts is EEE's schema default, dropped)`;
  const setting = (value: unknown): Setting => same(inferred(value, how));
  t.generation.settings = setting(kwargs);
  if (kwargs.until !== undefined) t.generation.stop_sequences = setting(kwargs.until);
  if (kwargs.max_gen_toks !== undefined) t.generation.max_tokens = setting(kwargs.max_gen_toks);
}

/**
 * The lm-eval task, filter and metric of a converted result: the converter names a result `task` or
 * `task/filter` (the task is `source_data.dataset_name`) and writes the metric name into
 * `metric_config.evaluation_description`.
 */
export function lmevalTarget(result: Json, evaluationName: string): { task: string; filter: string; metric?: string } {
  const source = isPlainObject(result.source_data) ? result.source_data : {};
  const config = isPlainObject(result.metric_config) ? result.metric_config : {};
  const task = typeof source.dataset_name === 'string' ? source.dataset_name : evaluationName;
  const filter = evaluationName.startsWith(`${task}/`) ? evaluationName.slice(task.length + 1) : 'none';
  return { task, filter, ...(typeof config.evaluation_description === 'string' ? { metric: config.evaluation_description } : {}) };
}
