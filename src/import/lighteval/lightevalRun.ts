/**
 * One lighteval run (a results file and its details) as a provenance block and store tables.
 *
 * Configured vs used: config_tasks gives what the task asked for (num_fewshots, generation_size, stop_sequence),
 * the details what each item carried (its few-shot docs, doc.generation_size, doc.stop_sequences); summary_tasks'
 * hash_examples (xxh64 over the sorted per-row xxh64 of doc.query) is recomputed from the details, so a details
 * file that is not the one the results were computed from is named. `lighteval_sha` is recorded as the results
 * file says, with what it is: "?" for a pip install, and on the Open LLM Leaderboard (suite `harness`) the commit
 * of the leaderboard's wrapper, not of lighteval. An `api_key` in the model config is redacted, never stored.
 */
import { readFile } from 'node:fs/promises';
import { checkingFieldLines } from '../../util/jsonFieldLine.ts';
import { BadInputError } from '../../errors.ts';
import { emptyRunProvenance, emptyTaskProvenance, inferred, recorded, same, type Fact, type RunProvenance, type Setting } from '../../store/schema.ts';
import { sha256Hex } from '../../util/hash.ts';
import { isPlainObject, parsePythonJson } from '../../util/json.ts';
import type { ImportedRun } from '../types.ts';
import { readDetails, taskHash, type DetailsTables } from './details.ts';

type Json = Record<string, unknown>;
const o = (v: unknown): Json | undefined => (isPlainObject(v) ? v : undefined);
const rec = (value: unknown, from: string): Setting => same(recorded(value, from));
const put = (group: Record<string, Setting>, field: string, value: unknown, from: string) => {
  if (value !== undefined && value !== null) group[field] = rec(value, from);
};

/** Group averages (`…:_average|k`) and `all` are summaries over tasks, not tasks. */
export const isSummaryKey = (key: string) => key === 'all' || /:_average(\||$)/.test(key);

function distinct(values: unknown[], how: string): Fact {
  const seen = new Map(values.map((v) => [JSON.stringify(v ?? null), v ?? null]));
  if (seen.size === 0) return { status: 'unknown' };
  const all = [...seen.values()];
  return inferred(all.length === 1 ? all[0] : all, how);
}

export async function importLightevalRun(resultsPath: string | null, detailsFiles: { path: string; task: string; dateId: string }[]): Promise<ImportedRun> {
  const files: { path: string; sha256: string; role: string }[] = [];
  let results: Json = {};
  if (resultsPath !== null) {
    const bytes = await readFile(resultsPath);
    const text = bytes.toString('utf8');
    const read = o(parsePythonJson(text, { file: resultsPath })) ?? {};
    checkingFieldLines(text, { file: resultsPath }, () => {
      if (o(read.config_general) === undefined) throw new BadInputError('a lighteval results file whose config_general is missing or not an object', { file: resultsPath, field: 'config_general' });
      checkResultsShape(read, resultsPath);
    });
    results = read;
    files.push({ path: resultsPath, sha256: sha256Hex(bytes), role: 'lighteval-results' });
  }
  for (const d of detailsFiles) files.push({ path: d.path, sha256: sha256Hex(await readFile(d.path)), role: 'lighteval-details' });
  const runId = `lighteval-${sha256Hex(files.map((f) => `${f.role}:${f.sha256}`).join('\n')).slice(0, 16)}`;
  const details = new Map<string, DetailsTables>();
  for (const d of detailsFiles) details.set(d.task, await readDetails(d.path, d.task, runId));

  const general = o(results.config_general) ?? {};
  const modelConfig = o(general.model_config);
  const label = String(general.model_name ?? modelConfig?.model_name ?? detailsFiles[0]?.path ?? resultsPath);
  const p = emptyRunProvenance({ run_id: runId, label, source_kind: 'lighteval', source_format: resultsPath === null ? 'lighteval details' : 'lighteval results + details' });
  const taskNames = [...new Set([...Object.keys(o(results.results) ?? {}).filter((k) => !isSummaryKey(k)), ...details.keys()])];
  runLevel(p, general, modelConfig, taskNames, details, files);
  for (const task of taskNames) {
    p.tasks[task] = taskLevel(task, results, general, modelConfig, details.get(task));
    p.reported[task] = o(o(results.results)?.[task]) ?? {};
    const recordedHashes = o(o(o(results.summary_tasks)?.[task])?.hashes) ?? {};
    const d = details.get(task);
    for (const kind of ['examples', 'input_tokens', 'cont_tokens'] as const) {
      const expected = recordedHashes[`hash_${kind}`];
      if (typeof expected !== 'string' || d === undefined || !d.used.every((u) => u.hashes[kind] !== null)) continue;
      const found = taskHash(d.used.map((u) => u.hashes[kind]!));
      if (found !== expected) {
        const what = kind === 'examples' ? 'doc.query values' : kind === 'input_tokens' ? 'input token ids' : 'output token ids';
        p.notes.push({ task, kind: 'lighteval_hash_mismatch', message: `summary_tasks hash_${kind} is ${expected}, but the details' ${what} hash to ${found}: the details are not the items the results were computed from`, evidence: [resultsPath ?? '', detailsFiles.find((f) => f.task === task)?.path ?? ''] });
      }
    }
  }
  for (const [key, value] of Object.entries(o(results.results) ?? {})) if (isSummaryKey(key)) p.reported[key] = o(value) ?? {};
  if (resultsPath === null) p.notes.push({ task: null, kind: 'lighteval_no_results', message: 'details without their results file: no printed aggregate and no run configuration', evidence: detailsFiles.map((f) => f.path) });
  const tables = { instances: [] as Json[], responses: [] as Json[], scores: [] as Json[], filtered: [] as Json[] };
  for (const d of details.values()) for (const k of ['instances', 'responses', 'scores', 'filtered'] as const) tables[k].push(...d[k]);
  return {
    provenance: p,
    tables: { instances: { rows: tables.instances }, responses: { rows: tables.responses }, scores: { rows: tables.scores }, filtered: { rows: tables.filtered } },
    skipped: [],
  };
}

/**
 * The blocks of a results file have the types lighteval writes, or are refused naming the field: read as absent,
 * a `results` list or a task entry that was a number dropped every reported number, and a mistyped config_tasks
 * or hashes block dropped the configuration or the hash check, without a word.
 */
function checkResultsShape(results: Json, file: string): void {
  const objectAt = (value: unknown, field: string, absentOk = true): Json | undefined => {
    if (absentOk && (value === undefined || value === null)) return undefined;
    if (!isPlainObject(value)) throw new BadInputError('not an object', { file, field });
    return value;
  };
  for (const key of ['results', 'config_tasks', 'summary_tasks', 'versions']) objectAt(results[key], key);
  const general = o(results.config_general)!;
  if (general.model_name !== undefined && general.model_name !== null && typeof general.model_name !== 'string') throw new BadInputError('not a model name (a string)', { file, field: 'config_general.model_name' });
  for (const [task, metrics] of Object.entries(o(results.results) ?? {})) {
    for (const [metric, value] of Object.entries(objectAt(metrics, `results.${task}`, false)!)) {
      if (typeof value === 'string' || typeof value === 'boolean') throw new BadInputError(`a metric value that is ${typeof value === 'string' ? 'text' : 'a boolean'}, not a number`, { file, field: `results.${task}.${metric}` });
    }
  }
  for (const [task, config] of Object.entries(o(results.config_tasks) ?? {})) {
    const shots = objectAt(config, `config_tasks.${task}`, false)!.num_fewshots;
    if (shots !== undefined && shots !== null && !(Number.isInteger(shots) && (shots as number) >= 0)) throw new BadInputError('not a few-shot count (an integer from 0)', { file, field: `config_tasks.${task}.num_fewshots` });
  }
  for (const [task, summary] of Object.entries(o(results.summary_tasks) ?? {})) objectAt(objectAt(summary, `summary_tasks.${task}`, false)!.hashes, `summary_tasks.${task}.hashes`);
}

function runLevel(p: RunProvenance, general: Json, modelConfig: Json | undefined, tasks: string[], details: Map<string, DetailsTables>, files: { path: string; sha256: string; role: string }[]): void {
  p.harness.name = same(inferred('lighteval', 'results_<date_id>.json with config_general and summary_tasks, or details_<task>_<date_id>.parquet'));
  const eras = [...new Set([...details.values()].map((d) => d.era))];
  const suites = tasks.map((t) => t.split('|')).filter((parts) => parts.length >= 3).map((parts) => parts[0]);
  const era = eras.length === 1 ? eras[0]! : null;
  const version =
    era?.startsWith('D') ? (suites.length === 0 ? '0.12.1 or later (details era D; task names without a suite)' : '0.11.0 to 0.12.0 (details era D; task names suite|task|fewshot)')
    : era?.startsWith('B') ? '0.4.0 to 0.7.x (details era B: every cell a Python str())'
    : era !== null ? 'up to 0.10.x (flat details columns with native values: era A, or C from 0.8.0)'
    : modelConfig !== undefined ? '0.11.0 or later (config_general.model_config)' : 'up to 0.10.x (no config_general.model_config)';
  p.harness.version = same(inferred(version, 'lighteval writes no version; the range comes from the details columns and the task naming'));
  const sha = general.lighteval_sha;
  if (typeof sha === 'string') {
    p.harness.commit = same(sha === '?'
      ? inferred(null, 'config_general.lighteval_sha is "?": lighteval was installed from a package, its commit is not recorded')
      : suites.includes('harness')
        ? inferred(sha, "config_general.lighteval_sha of an Open LLM Leaderboard run (suite 'harness'): the commit of the leaderboard's wrapper around lighteval, not of lighteval")
        : recorded(sha, 'config_general.lighteval_sha'));
  }
  const model = general.model_name ?? modelConfig?.model_name;
  put(p.model, 'model_id', model, general.model_name !== undefined ? 'config_general.model_name' : 'config_general.model_config.model_name');
  put(p.model, 'dtype', general.model_dtype ?? modelConfig?.dtype, general.model_dtype !== undefined ? 'config_general.model_dtype' : 'config_general.model_config.dtype');
  put(p.model, 'revision', general.model_sha ?? modelConfig?.revision, general.model_sha !== undefined ? 'config_general.model_sha' : 'config_general.model_config.revision');
  put(p.model, 'batch_size', modelConfig?.batch_size ?? general.override_batch_size, modelConfig?.batch_size !== undefined ? 'config_general.model_config.batch_size' : 'config_general.override_batch_size');
  put(p.model, 'backend', modelConfig?.provider, 'config_general.model_config.provider');
  if (modelConfig !== undefined) {
    const redacted = modelConfig.api_key !== undefined && modelConfig.api_key !== null;
    p.model.args = rec({ ...modelConfig, ...(redacted ? { api_key: '<redacted by lmaudit>' } : {}) }, `config_general.model_config${redacted ? ' (api_key redacted)' : ''}`);
    if (redacted) p.notes.push({ task: null, kind: 'lighteval_api_key', message: 'config_general.model_config holds an api_key; lmaudit redacted it and stored none of it', evidence: [] });
  }
  // total_evaluation_time_secondes is how long the run took, not a runtime version: stored, it made two runs of the
  // same configuration differ in their settings. lighteval records no Python or library versions, so runtime stays unknown.
  p.records.files = rec(files, 'import');
}

function taskLevel(task: string, results: Json, general: Json, modelConfig: Json | undefined, details: DetailsTables | undefined) {
  const t = emptyTaskProvenance();
  const tasks = o(results.config_tasks) ?? {};
  // Keys are the full name from 0.11, `suite|task` before.
  const configKey = task in tasks ? task : task.split('|').slice(0, -1).join('|');
  const cfg = o(tasks[configKey]);
  const at = (field: string) => `config_tasks[${JSON.stringify(configKey)}].${field}`;
  t.task.name = rec(task, details !== undefined ? 'details file name' : 'results key');
  if (cfg !== undefined) {
    put(t.task, 'version', cfg.version, at('version'));
    put(t.task, 'dataset_path', cfg.hf_repo, at('hf_repo'));
    put(t.task, 'dataset_name', cfg.hf_subset, at('hf_subset'));
    put(t.task, 'dataset_split', cfg.evaluation_splits, at('evaluation_splits'));
    t.task.dataset_revision = cfg.hf_revision === null ? same(recorded(null, `${at('hf_revision')}: null, the dataset was not pinned`)) : rec(cfg.hf_revision, at('hf_revision'));
    put(t.task, 'prompt_function', cfg.prompt_function, at('prompt_function'));
    put(t.scoring, 'metrics', cfg.metrics, at('metrics'));
    put(t.fewshot, 'sampler', cfg.few_shots_select, at('few_shots_select'));
    put(t.fewshot, 'split', cfg.few_shots_split, at('few_shots_split'));
  }
  const hashes = o(o(o(results.summary_tasks)?.[task])?.hashes);
  if (hashes !== undefined) t.task.dataset_hash = rec(hashes, `summary_tasks[${JSON.stringify(task)}].hashes (lighteval's xxh64 of the queries, prompts and tokens)`);
  const requested = cfg?.num_fewshots ?? (/\|(\d+)$/.exec(task) ? Number(/\|(\d+)$/.exec(task)![1]) : undefined);
  t.fewshot.count = {
    configured: requested === undefined ? { status: 'unknown' } : recorded(requested, cfg?.num_fewshots !== undefined ? at('num_fewshots') : 'the task name suite|task|fewshot'),
    used: details === undefined ? { status: 'unknown' } : distinct(details.used.map((u) => u.fewshot), details.era.startsWith('D') ? 'doc.fewshot_samples per details row' : 'num_effective_few_shots per details row'),
  };
  // How many few-shot seeds the run drew, not a seed: stored as the seed, "1" read as few-shot seed 1.
  put(t.fewshot, 'seed_count', general.num_fewshot_seeds, 'config_general.num_fewshot_seeds (how many few-shot seeds)');
  const generation = o(modelConfig?.generation_parameters) ?? o(general.generation_parameters);
  if (generation !== undefined) t.generation.settings = rec(generation, modelConfig !== undefined ? 'config_general.model_config.generation_parameters' : 'config_general.generation_parameters');
  const usedSize = details === undefined || details.used.every((u) => u.generationSize === undefined) ? { status: 'unknown' as const } : distinct(details.used.map((u) => u.generationSize), 'doc.generation_size per details row');
  const usedStop = details === undefined || details.used.every((u) => u.stop === undefined) ? { status: 'unknown' as const } : distinct(details.used.map((u) => u.stop), 'doc.stop_sequences per details row (as configured for the item; an API backend may not honour them)');
  t.generation.max_tokens = { configured: cfg?.generation_size === undefined ? { status: 'unknown' } : recorded(cfg.generation_size, at('generation_size')), used: usedSize };
  t.generation.stop_sequences = { configured: cfg?.stop_sequence === undefined ? { status: 'unknown' } : recorded(cfg.stop_sequence, at('stop_sequence')), used: usedStop };
  put(t.system, 'instruction', modelConfig?.system_prompt, 'config_general.model_config.system_prompt');
  put(t.samples, 'limit', general.max_samples, 'config_general.max_samples');
  if (details !== undefined) {
    t.samples.document_count = same(inferred(new Set(details.instances.map((i) => i.doc_id)).size, 'details rows (one per doc and sampling method)'));
    t.scoring.output_type = same(distinct(details.used.map((u) => u.method), 'doc.sampling_methods per details row'));
    t.scoring.filters = same(inferred(details.filtered.length > 0 ? 'text_post_processed (reasoning tags removed) when present, else text' : 'none', 'lighteval metrics read model_response.text_post_processed when present'));
    t.chat_template.prompt_recorded = same(inferred(details.used.every((u) => u.promptRecorded), 'whether every details row holds the prompt as sent (model_response.input or full_prompt); where it does not, arg_context is doc.query, the formatted question without few-shot examples or system prompt'));
    t.failures.empty_answers = same(inferred(details.instances.filter((i) => i.request_type === 'generate_until' && (i.response_text === null || String(i.response_text).trim() === '')).length, 'generative items whose first text is empty'));
  }
  t.repeats.aggregation = same(inferred('each metric by its corpus_level_fn (mean for most); `all` averages every key of every task, stderr keys included', 'lighteval results pipeline'));
  return t;
}
