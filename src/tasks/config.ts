/**
 * lm-eval's `TaskConfig` / `FewshotConfig` / `GroupConfig` (lm_eval/config/*.py): the
 * keys a task YAML may hold, their defaults, and the post-processing lm-eval applies
 * (generation_kwargs defaults, few-shot inheritance). Unknown keys are refused with a
 * "did you mean", naming the file.
 */
import { BadInputError, closestNames } from '../errors.ts';
import { PyFloat } from '../py/values.ts';
import { fieldLocation } from './include.ts';
import type { FunctionRef } from './yaml.ts';

export type OutputType = 'loglikelihood' | 'loglikelihood_rolling' | 'multiple_choice' | 'generate_until';
const OUTPUT_TYPES: readonly OutputType[] = ['loglikelihood', 'loglikelihood_rolling', 'multiple_choice', 'generate_until'];

/** A `doc_to_*` spec: an int, a template or column name, a list/dict of choices, or a ported function. */
export type FieldSpec = string | number | unknown[] | Record<string, unknown> | FunctionRef | null;

export interface FewshotConfig {
  sampler: string;
  split: string | null;
  process_docs: FunctionRef | null;
  samples: Record<string, unknown>[] | FunctionRef | null;
  fewshot_indices: number[] | null;
  doc_to_text: FieldSpec;
  doc_to_choice: FieldSpec;
  doc_to_target: FieldSpec;
  gen_prefix: string | null;
  fewshot_delimiter: string;
  target_delimiter: string;
}

export interface TaskConfig {
  task: string;
  task_alias: string | null;
  tag: string[];
  dataset_path: string | null;
  dataset_name: string | null;
  dataset_kwargs: Record<string, unknown> | null;
  training_split: string | null;
  validation_split: string | null;
  test_split: string | null;
  fewshot_split: string | null;
  process_docs: FunctionRef | null;
  doc_to_text: FieldSpec;
  doc_to_target: FieldSpec;
  doc_to_choice: FieldSpec;
  /** Whether the task runs model-written code (lm-eval refuses it without --confirm_run_unsafe_code); default false. */
  unsafe_code: boolean;
  process_results: FunctionRef | string | null;
  description: string;
  target_delimiter: string;
  fewshot_delimiter: string;
  fewshot_config: FewshotConfig;
  num_fewshot: number | null;
  metric_list: Record<string, unknown>[] | null;
  output_type: OutputType;
  generation_kwargs: Record<string, unknown> | null;
  repeats: number;
  filter_list: unknown[] | null;
  should_decontaminate: boolean;
  doc_to_decontamination_query: string | null;
  gen_prefix: string | null;
  metadata: Record<string, unknown>;
  /** The YAML file the config came from (after includes). */
  source: string;
}

/** Keys of lm-eval's TaskConfig, plus `group`/`task_list` that the index pops. */
export const TASK_KEYS = [
  'task', 'task_alias', 'tag', 'group', 'task_list', 'custom_dataset', 'dataset_path', 'dataset_name', 'dataset_kwargs',
  'training_split', 'validation_split', 'test_split', 'fewshot_split', 'process_docs', 'doc_to_text', 'doc_to_target',
  'doc_to_image', 'doc_to_audio', 'unsafe_code', 'doc_to_choice', 'process_results', 'use_prompt', 'description',
  'target_delimiter', 'fewshot_delimiter', 'fewshot_config', 'num_fewshot', 'metric_list', 'output_type',
  'generation_kwargs', 'repeats', 'filter_list', 'should_decontaminate', 'doc_to_decontamination_query', 'gen_prefix',
  'metadata',
] as const;

export const FEWSHOT_KEYS = [
  'sampler', 'split', 'process_docs', 'fewshot_indices', 'samples', 'doc_to_text', 'doc_to_choice', 'doc_to_target',
  'gen_prefix', 'fewshot_delimiter', 'target_delimiter',
] as const;

export const GROUP_KEYS = ['group', 'group_alias', 'task', 'aggregate_metric_list', 'metadata'] as const;

export function checkKeys(raw: Record<string, unknown>, known: readonly string[], file: string, prefix = ''): void {
  for (const key of Object.keys(raw)) {
    if (known.includes(key)) continue;
    const close = closestNames(key, known);
    const hint = close.length > 0 ? ` Did you mean: ${close.join(', ')}?` : '';
    throw new BadInputError(`unknown key '${prefix}${key}'.${hint}`, fieldLocation(file, `${prefix}${key}`));
  }
}

const str = (v: unknown): string | null => (v === null || v === undefined ? null : typeof v === 'string' ? v : String(v));

/** Builds a TaskConfig from a merged YAML mapping (includes resolved, group overrides applied). */
export function toTaskConfig(raw: Record<string, unknown>, file: string): TaskConfig {
  checkKeys(raw, TASK_KEYS, file);
  if ('class' in raw) throw new BadInputError('Python `class:` tasks are not supported', { file, field: 'class' });
  const where = (field: string) => fieldLocation(file, field);
  if (typeof raw.task !== 'string') throw new BadInputError('a task needs a string `task` name', where('task'));
  const outputType = (raw.output_type ?? 'generate_until') as OutputType;
  if (!OUTPUT_TYPES.includes(outputType)) {
    throw new BadInputError(`output_type must be one of ${OUTPUT_TYPES.join(', ')}`, where('output_type'));
  }
  const fewshotDelimiter = str(raw.fewshot_delimiter) ?? '\n\n';
  const targetDelimiter = str(raw.target_delimiter) ?? ' ';
  const tag = raw.tag === undefined || raw.tag === null ? [] : Array.isArray(raw.tag) ? raw.tag.map(String) : [String(raw.tag)];
  const config: TaskConfig = {
    task: raw.task,
    task_alias: str(raw.task_alias),
    tag,
    dataset_path: str(raw.dataset_path),
    dataset_name: str(raw.dataset_name),
    dataset_kwargs: (raw.dataset_kwargs as Record<string, unknown>) ?? null,
    training_split: str(raw.training_split),
    validation_split: str(raw.validation_split),
    test_split: str(raw.test_split),
    fewshot_split: str(raw.fewshot_split),
    process_docs: (raw.process_docs as FunctionRef) ?? null,
    doc_to_text: (raw.doc_to_text as FieldSpec) ?? null,
    doc_to_target: (raw.doc_to_target as FieldSpec) ?? null,
    doc_to_choice: (raw.doc_to_choice as FieldSpec) ?? null,
    unsafe_code: Boolean(raw.unsafe_code ?? false),
    process_results: (raw.process_results as FunctionRef) ?? null,
    description: str(raw.description) ?? '',
    target_delimiter: targetDelimiter,
    fewshot_delimiter: fewshotDelimiter,
    fewshot_config: undefined as unknown as FewshotConfig,
    num_fewshot: raw.num_fewshot === undefined || raw.num_fewshot === null ? null : intField(raw.num_fewshot, where('num_fewshot')),
    metric_list: (raw.metric_list as Record<string, unknown>[]) ?? null,
    output_type: outputType,
    generation_kwargs: null,
    repeats: raw.repeats === undefined ? 1 : intField(raw.repeats, where('repeats')),
    filter_list: (raw.filter_list as unknown[]) ?? null,
    should_decontaminate: Boolean(raw.should_decontaminate ?? false),
    doc_to_decontamination_query: str(raw.doc_to_decontamination_query),
    gen_prefix: str(raw.gen_prefix),
    metadata: (raw.metadata as Record<string, unknown>) ?? {},
    source: file,
  };
  config.generation_kwargs = generationKwargs(raw.generation_kwargs, outputType, fewshotDelimiter, file);
  config.fewshot_config = fewshotConfig(raw.fewshot_config, config, file);
  return config;
}

function intField(v: unknown, where: { file: string; field: string }): number {
  if (typeof v === 'number' && Number.isInteger(v)) return v;
  throw new BadInputError(`expected an integer, got ${JSON.stringify(v)}`, where);
}

/** TaskConfig.__post_init__: temperature cast to float, `until` defaulted, the generate_until default dict. */
function generationKwargs(raw: unknown, outputType: OutputType, fewshotDelimiter: string, file: string): Record<string, unknown> | null {
  if (raw === undefined || raw === null) {
    if (outputType !== 'generate_until') return null;
    return { temperature: new PyFloat(0), do_sample: false, max_gen_toks: 256, until: [fewshotDelimiter] };
  }
  if (typeof raw !== 'object' || Array.isArray(raw)) throw new BadInputError('generation_kwargs must be a mapping', fieldLocation(file, 'generation_kwargs'));
  const kwargs = { ...(raw as Record<string, unknown>) };
  if ('temperature' in kwargs) kwargs.temperature = toPyFloat(kwargs.temperature, file);
  if (!('until' in kwargs)) kwargs.until = [fewshotDelimiter];
  return kwargs;
}

function toPyFloat(v: unknown, file: string): PyFloat {
  if (v instanceof PyFloat) return v;
  if (typeof v === 'number') return new PyFloat(v);
  if (typeof v === 'boolean') return new PyFloat(v ? 1 : 0);
  if (typeof v === 'string' && v.trim() !== '' && !Number.isNaN(Number(v))) return new PyFloat(Number(v));
  throw new BadInputError(`generation_kwargs.temperature must be a number, got ${JSON.stringify(v)}`, fieldLocation(file, 'generation_kwargs.temperature'));
}

/** FewshotConfig.from_dict: inherit the top-level fields, then the YAML `fewshot_config` keys win. */
function fewshotConfig(raw: unknown, c: TaskConfig, file: string): FewshotConfig {
  const own = (raw ?? {}) as Record<string, unknown>;
  if (typeof own !== 'object' || Array.isArray(own)) throw new BadInputError('fewshot_config must be a mapping', fieldLocation(file, 'fewshot_config'));
  checkKeys(own, FEWSHOT_KEYS, file, 'fewshot_config.');
  const pick = <T>(key: string, inherited: T): T => (key in own ? (own[key] as T) : inherited);
  return {
    sampler: String(pick('sampler', 'default') ?? 'default'),
    split: str(pick('split', c.fewshot_split)),
    process_docs: pick('process_docs', c.process_docs),
    samples: pick('samples', null),
    fewshot_indices: pick('fewshot_indices', null),
    doc_to_text: pick('doc_to_text', c.doc_to_text),
    doc_to_choice: pick('doc_to_choice', c.doc_to_choice),
    doc_to_target: pick('doc_to_target', c.doc_to_target),
    gen_prefix: str(pick('gen_prefix', c.gen_prefix)),
    fewshot_delimiter: str(pick('fewshot_delimiter', c.fewshot_delimiter)) ?? c.fewshot_delimiter,
    target_delimiter: str(pick('target_delimiter', c.target_delimiter)) ?? c.target_delimiter,
  };
}
