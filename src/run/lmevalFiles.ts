/**
 * lm-eval's output files for a run (lmeval-scoring-and-outputs.md §5): under
 * `--output_path DIR`, `DIR/<model_name_sanitized>/results_<date_id>.json` (json.dumps
 * indent=2) and one `samples_<task>_<date_id>.jsonl` per task (json.dumps, one line per
 * document × filter), so lm-eval's tooling and lmaudit's own importer read the run.
 * The results file says it was written by lmaudit (`lmaudit_version`), not lm-eval.
 */
import { basename, dirname, extname, join } from 'node:path';
import { BadInputError } from '../errors.ts';
import { dumpsPy } from '../py/json.ts';
import { PyFloat } from '../py/values.ts';
import type { BuiltTask } from '../prompt/build.ts';
import { FEWSHOT_KEYS, type TaskConfig } from '../tasks/config.ts';
import { FunctionRef } from '../tasks/yaml.ts';
import { writeFileAtomic } from '../util/atomicFile.ts';
import { checkWritableParent, makeFolders } from '../store/outputPath.ts';
import { sha256Hex } from '../util/hash.ts';
import type { ModelArgs, ModelDescription } from '../models/lm.ts';
import { sanitizeModelName } from '../formats/lmevalModelName.ts';
import { pyStrOf } from '../prompt/build.ts';

import { BOOTSTRAP_ITERS, BYPASS, type TaskScores } from './scoring.ts';
import { groupsInLoadOrder, propagateShots, type GroupResult } from './groups.ts';

/** `datetime.now().isoformat().replace(":", "-")` in local time (microseconds omitted when zero, as Python does). */
export function dateId(date: Date): string {
  const p = (n: number, w = 2) => String(n).padStart(w, '0');
  const base = `${date.getFullYear()}-${p(date.getMonth() + 1)}-${p(date.getDate())}T${p(date.getHours())}-${p(date.getMinutes())}-${p(date.getSeconds())}`;
  return date.getMilliseconds() === 0 ? base : `${base}.${p(date.getMilliseconds() * 1000, 6)}`;
}

/** lm-eval's model_name: the first of these model_args keys; lmaudit falls back to the backend name (lm-eval: a random id). */
export function modelName(model: string, args: ModelArgs): string {
  for (const key of ['peft', 'delta', 'pretrained', 'model', 'path', 'engine']) {
    if (args[key] !== undefined && args[key] !== null) return String(args[key]);
  }
  return model;
}

export interface LmevalFilesInput {
  outputPath: string;
  date: Date;
  model: string;
  modelArgs: ModelArgs;
  batchSize: number;
  /** --batch_size as typed: lm-eval writes the text ("1", "auto:4"), not the number. */
  batchSizeText?: string;
  limit: number | null;
  genKwargs: Record<string, unknown> | null;
  seeds: { random: number | null; numpy: number | null; torch: number | null; fewshot: number | null };
  tasks: readonly BuiltTask[];
  scores: readonly TaskScores[];
  groups: readonly GroupResult[];
  systemInstruction: string | null;
  fewshotAsMultiturn: boolean | null;
  chatTemplate: string | null;
  /** What lm-eval's add_tokenizer_info writes for a model with a tokenizer (ModelDescription.tokenizerInfo). */
  tokenizerInfo?: ModelDescription['tokenizerInfo'];
  maxLength: number;
  lmauditVersion: string;
  totalSeconds: number;
}

/**
 * The folder lm-eval's EvaluationTracker writes into: an --output_path ending in .json names the results file
 * (<stem>_<date_id>.json, the samples beside it, in its folder); any other is a folder with a subfolder per model.
 */
export function lmevalFilesDir(outputPath: string, model: string): string {
  return extname(outputPath) === '.json' ? dirname(outputPath) : join(outputPath, sanitizeModelName(model));
}

/**
 * Checked before a run or merge does any work: that lm-eval's files can be written under --output_path (no file on
 * the way, not a kernel file system, writable). Found only once the run was over, a store was written and the
 * command failed all the same (or, under /proc, hung in mkdir).
 */
export async function checkLmevalFilesPath(outputPath: string): Promise<void> {
  // The folder of a results file, else a model's folder below it: the path checked is one inside what will be made.
  const inside = extname(outputPath) === '.json' ? outputPath : join(outputPath, 'model', 'results.json');
  try {
    await checkWritableParent(inside, "lm-eval's files");
  } catch (error) {
    if (error instanceof BadInputError) throw new BadInputError(error.detail, { file: outputPath, field: '--output_path' });
    throw error;
  }
}

/** Writes the files and returns their paths (results first). */
export async function writeLmevalFiles(input: LmevalFilesInput): Promise<string[]> {
  const name = modelName(input.model, input.modelArgs);
  const toFile = extname(input.outputPath) === '.json';
  const dir = lmevalFilesDir(input.outputPath, name);
  await makeFolders(dir, "the folder of lm-eval's files");
  const stamp = dateId(input.date);
  const taskHashes: Record<string, string> = {};
  const samplesFiles: string[] = [];
  for (const s of input.scores) {
    const lines = s.samples.map((r) => dumpsPy(r));
    taskHashes[s.task] = sha256Hex(s.samples.map((r) => `${r.doc_hash}${r.prompt_hash}${r.target_hash}`).join(''));
    const file = join(dir, `samples_${s.task}_${stamp}.jsonl`);
    await writeFileAtomic(file, lines.map((l) => `${l}\n`).join(''));
    samplesFiles.push(file);
  }
  const results = resultsJson(input, name, taskHashes);
  const resultsFile = join(dir, toFile ? `${basename(input.outputPath, '.json')}_${stamp}.json` : `results_${stamp}.json`);
  await writeFileAtomic(resultsFile, dumpsPy(results, 2));
  return [resultsFile, ...samplesFiles];
}

const float = (x: number) => new PyFloat(x);
/** An aggregate as lm-eval writes it: a float, except bypass_agg's int (--predict_only). */
const resultValue = (r: { value: number; aggregation?: string }) => (r.aggregation === BYPASS ? r.value : float(r.value));
const sorted = <T>(entries: [string, T][]) => Object.fromEntries([...entries].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));

export interface ResultSections {
  results: Record<string, Record<string, unknown>>;
  groups?: Record<string, Record<string, unknown>>;
  group_subtasks: Record<string, string[]>;
  versions: Record<string, unknown>;
  'n-shot': Record<string, number>;
  higher_is_better: Record<string, Record<string, unknown>>;
}

/**
 * The parts of lm-eval's results dict that its printed table (utils.make_table) reads too: results, groups,
 * group_subtasks, versions, n-shot, higher_is_better.
 */
export function resultSections(input: Pick<LmevalFilesInput, 'tasks' | 'scores' | 'groups'>): ResultSections {
  const results: Record<string, Record<string, unknown>> = {};
  for (const s of input.scores) {
    const task = input.tasks.find((t) => t.config.task === s.task)!;
    const entry: Record<string, unknown> = { name: s.task, alias: task.config.task_alias ?? s.task };
    // sample_len: the count of the last (metric, filter) processed, as lm-eval's.
    entry.sample_len = s.results.at(-1)?.n ?? 0;
    for (const r of s.results) {
      entry[`${r.metric},${r.filter}`] = resultValue(r);
      entry[`${r.metric}_stderr,${r.filter}`] = r.stderr === 'N/A' ? 'N/A' : float(r.stderr);
    }
    results[s.task] = entry;
  }
  const groups: Record<string, Record<string, unknown>> = {};
  for (const g of input.groups) {
    // api/group.py Group.aggregate: a group without aggregate_metric_list is its alias and name only; one with it has
    // the summed sample_len of its leaf tasks and is in `groups` even when no leaf returned a metric (--predict_only).
    if (g.aggregateMetricList === null || g.aggregateMetricList.length === 0) {
      results[g.group] = { alias: g.alias, name: g.group };
      continue;
    }
    const sampleLen = g.leaves.reduce((n, leaf) => n + (typeof results[leaf]?.sample_len === 'number' ? (results[leaf]!.sample_len as number) : 0), 0);
    const entry: Record<string, unknown> = { alias: g.alias, name: g.group, sample_len: sampleLen };
    for (const r of g.results) {
      entry[`${r.metric},${r.filter}`] = resultValue(r);
      entry[`${r.metric}_stderr,${r.filter}`] = r.stderr === 'N/A' ? 'N/A' : float(r.stderr);
    }
    if (g.results.length > 0) entry.sample_count = Object.fromEntries(g.results.map((r) => [`${r.metric},${r.filter}`, r.n]));
    results[g.group] = entry;
    groups[g.group] = entry;
  }
  // lm-eval (evaluator_utils._propagate_num_fewshot / _propagate_higher_is_better) gives a group the n-shot its
  // children share and the union of their higher_is_better, in one pass over the groups in load order: a parent
  // comes before its subgroups, so a group holding groups (mmlu) gets neither, and a group gets higher_is_better
  // for every metric of its children, aggregated or not (propagateShots for the n-shot).
  const loaded = groupsInLoadOrder(input.groups);
  const shots = propagateShots(input.groups, new Map(input.tasks.map((t) => [t.config.task, t.numFewshot])));
  const directions = new Map<string, Record<string, unknown>>(input.scores.map((s) => [s.task, s.bypassed ? { [BYPASS]: true } : Object.fromEntries(s.results.map((r) => [r.metric, r.higherIsBetter]))]));
  for (const g of loaded) {
    const merged: Record<string, unknown> = {};
    for (const c of g.children) {
      for (const [m, h] of Object.entries(directions.get(c) ?? {})) {
        if (!(m in merged)) merged[m] = h;
        else if (merged[m] !== null && merged[m] !== h) merged[m] = null;
      }
    }
    if (Object.keys(merged).length > 0) directions.set(g.group, merged);
  }
  return {
    results,
    ...(Object.keys(groups).length > 0 && { groups }),
    group_subtasks: Object.fromEntries(loaded.map((g) => [g.group, g.children])),
    versions: sorted([
      ...input.tasks.map((t): [string, unknown] => [t.config.task, t.config.metadata.version ?? 'Yaml']),
      ...input.groups.map((g): [string, unknown] => [g.group, g.version === null ? 'N/A' : pyStrOf(g.version)]),
    ]),
    'n-shot': sorted([...shots]),
    // A bypassed task's is the task's (override_metric's), whether or not any document returned the metric.
    higher_is_better: sorted([...directions]),
  };
}

function resultsJson(input: LmevalFilesInput, name: string, taskHashes: Record<string, string>): Record<string, unknown> {
  const sections = resultSections(input);
  const cli = input.chatTemplate;
  const { results, groups, group_subtasks, versions, higher_is_better } = sections;
  return {
    results,
    ...(groups !== undefined && { groups }),
    group_subtasks,
    configs: sorted(input.tasks.map((t) => [t.config.task, taskConfigJson(t.config, t.numFewshot, { genKwargs: input.genKwargs, modelArgs: input.modelArgs, predictOnly: input.scores.some((s) => s.task === t.config.task && s.bypassed) })])),
    versions,
    'n-shot': sections['n-shot'],
    higher_is_better,
    // effective is lm-eval's sample_len: under --predict_only, 0 for a task whose documents return no metric.
    'n-samples': Object.fromEntries(input.tasks.map((t) => {
      const s = input.scores.find((x) => x.task === t.config.task);
      return [t.config.task, { original: t.evalDocCount, effective: s?.bypassed ? (s.results.at(-1)?.n ?? 0) : t.docs.length }];
    })),
    config: {
      model: input.model,
      model_args: input.modelArgs,
      batch_size: input.batchSizeText ?? input.batchSize,
      batch_sizes: [],
      device: null,
      use_cache: null,
      limit: input.limit === null ? null : float(input.limit),
      bootstrap_iters: BOOTSTRAP_ITERS,
      gen_kwargs: input.genKwargs ?? {},
      random_seed: input.seeds.random,
      numpy_seed: input.seeds.numpy,
      torch_seed: input.seeds.torch,
      fewshot_seed: input.seeds.fewshot,
    },
    git_hash: null,
    date: float(input.date.getTime() / 1000),
    pretty_env_info: 'N/A (written by lmaudit run, not lm-eval)',
    transformers_version: 'N/A',
    lmaudit_version: input.lmauditVersion,
    upper_git_hash: null,
    ...(input.tokenizerInfo !== undefined && {
      tokenizer_pad_token: input.tokenizerInfo.pad,
      tokenizer_eos_token: input.tokenizerInfo.eos,
      tokenizer_bos_token: input.tokenizerInfo.bos,
      eot_token_id: input.tokenizerInfo.eotTokenId,
    }),
    max_length: input.maxLength,
    task_hashes: taskHashes,
    model_source: input.model,
    model_name: name,
    model_name_sanitized: sanitizeModelName(name),
    system_instruction: input.systemInstruction,
    system_instruction_sha: input.systemInstruction === null ? null : sha256Hex(input.systemInstruction),
    // lm-eval 0.4.13 turns it on with a chat template unless --fewshot_as_multiturn false (the prompts were built so).
    fewshot_as_multiturn: input.fewshotAsMultiturn ?? (cli !== null ? true : null),
    chat_template: cli,
    chat_template_sha: cli ? sha256Hex(cli) : null,
    total_evaluation_time_seconds: String(input.totalSeconds),
  };
}

/**
 * A task's config as lm-eval's results `configs` hold it (TaskConfig.to_dict): its fields in TaskConfig's order, the
 * top-level None fields dropped (nested ones kept, as in fewshot_config), functions as their `!function` name; `tag`
 * is never written (lm-eval's task index takes it out); generation_kwargs with --gen_kwargs merged in, as
 * ConfigurableTask.set_config does; metadata with the model arguments and the YAML's path, as TaskManager adds them.
 */
export function taskConfigJson(c: TaskConfig, numFewshot: number, run: { genKwargs?: Record<string, unknown> | null; modelArgs?: ModelArgs; predictOnly?: boolean } = {}): Record<string, unknown> {
  const keep = (v: unknown): unknown => {
    if (v instanceof FunctionRef) return String(v);
    if (Array.isArray(v)) return v.map(keep);
    if (v !== null && typeof v === 'object' && Object.getPrototypeOf(v) === Object.prototype) {
      return Object.fromEntries(Object.entries(v).filter(([, x]) => x !== undefined).map(([k, x]) => [k, keep(x)]));
    }
    return v;
  };
  const genKwargs = c.generation_kwargs === null ? null : { ...c.generation_kwargs, ...(run.genKwargs ?? {}) };
  const fields: Record<string, unknown> = {
    task: c.task,
    task_alias: c.task_alias,
    dataset_path: c.dataset_path,
    dataset_name: c.dataset_name,
    dataset_kwargs: c.dataset_kwargs,
    training_split: c.training_split,
    validation_split: c.validation_split,
    test_split: c.test_split,
    fewshot_split: c.fewshot_split,
    process_docs: c.process_docs,
    doc_to_text: c.doc_to_text,
    doc_to_target: c.doc_to_target,
    unsafe_code: c.unsafe_code,
    doc_to_choice: c.doc_to_choice,
    // override_metric("bypass") sets these two config fields (api/task.py).
    process_results: run.predictOnly ? 'process_results' : c.process_results,
    description: c.description,
    target_delimiter: c.target_delimiter,
    fewshot_delimiter: c.fewshot_delimiter,
    // FewshotConfig's fields in its dataclass order (FEWSHOT_KEYS), as asdict writes them.
    fewshot_config: Object.fromEntries(FEWSHOT_KEYS.map((k) => [k, c.fewshot_config[k]])),
    num_fewshot: numFewshot,
    metric_list: run.predictOnly ? [{ metric: BYPASS }] : c.metric_list,
    output_type: c.output_type,
    generation_kwargs: genKwargs,
    repeats: c.repeats,
    filter_list: c.filter_list,
    should_decontaminate: c.should_decontaminate,
    doc_to_decontamination_query: c.doc_to_decontamination_query,
    gen_prefix: c.gen_prefix,
    metadata: { ...c.metadata, ...(run.modelArgs ?? {}), config_source: c.source },
  };
  return Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== null && v !== undefined).map(([k, v]) => [k, keep(v)]));
}
