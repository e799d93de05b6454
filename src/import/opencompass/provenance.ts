/**
 * An OpenCompass work folder's settings as lmaudit's disclosure items. Every setting lives in the dumped config
 * (configs/<ts>.py): the model entry (abbr, type, path, generation_kwargs, max_out_len, meta_template …) and each
 * dataset entry (reader_cfg, infer_cfg, eval_cfg). OpenCompass writes no version of itself and no seed.
 * Each metric's scale is stated: AccEvaluator and several built-in evaluators report percent (0–100); a custom
 * evaluator may use any scale, inferred from its per-item `correct` when recorded, else unknown.
 */
import { basename } from 'node:path';
import { emptyRunProvenance, emptyTaskProvenance, inferred, recorded, same, type RunProvenance, type Setting } from '../../store/schema.ts';
import { isPlainObject } from '../../util/json.ts';

type Json = Record<string, unknown>;
const o = (v: unknown): Json | undefined => (isPlainObject(v) ? v : undefined);
const rec = (value: unknown, from: string): Setting => same(recorded(value, from));

/** A file of the work folder as read: its text, the sha256 of its bytes and its role. */
export interface SourceText {
  path: string;
  text: string;
  sha256: string;
  role: string;
}

export interface OpenCompassDataset {
  abbr: string;
  shards: string[];
  result: Json | undefined;
  resultPath: string | undefined;
  summary: { dataset: string; version: string; metric: string; mode: string; values: Record<string, string> }[];
}

interface WorkRun {
  work: string;
  model: string;
  config: Json | undefined;
  configPath: string | undefined;
  datasets: OpenCompassDataset[];
  sources: SourceText[];
  instances: Record<string, unknown>[];
  runId: string;
}

/** Keys of a results file that are not metrics. */
const NOT_METRICS = new Set(['details', 'type']);

/** Evaluators whose scores OpenCompass's own code multiplies by 100 (icl_evaluator, read at 0.2.4 and 0.5.3). */
const PERCENT_EVALUATORS = /\.(AccEvaluator|AccContaminationEvaluator|RougeEvaluator|MccEvaluator|SquadEvaluator|EMEvaluator|BleuEvaluator)$/;

/** The scale of a results metric, and how it is known. */
export function metricScale(evaluator: string | undefined, value: unknown, correct: number[]): Setting {
  if (evaluator !== undefined && PERCENT_EVALUATORS.test(evaluator)) {
    return same(inferred('0-100 (percent)', `${evaluator.split('.').pop()} multiplies its score by 100 (OpenCompass icl_evaluator code)`));
  }
  if (typeof value === 'number' && correct.length > 0) {
    const k = correct.reduce((x, y) => x + y, 0);
    if (value === k / correct.length) return same(inferred('0-1 (a fraction)', `the custom evaluator's value ${value} equals the fraction of items whose recorded correct is true (${k} of ${correct.length}), not a percentage`));
    if (value === (k / correct.length) * 100) return same(inferred('0-100 (percent)', `the value ${value} equals 100 × the fraction of items recorded correct (${k} of ${correct.length})`));
  }
  return same(inferred('unknown', `${evaluator ?? 'the evaluator'} is not one of OpenCompass's percent evaluators and no per-item correct pins its scale`));
}

export function opencompassProvenance(r: WorkRun): RunProvenance {
  const p = emptyRunProvenance({ run_id: r.runId, label: `${r.work} (${r.model})`, source_kind: 'opencompass', source_format: 'OpenCompass work folder' });
  p.harness.name = same(inferred('opencompass', 'predictions/, results/, summary/ and configs/ in the layout OpenCompass writes'));
  const configName = r.configPath === undefined ? undefined : basename(r.configPath);
  p.harness.version = same(
    configName === undefined
      ? { status: 'unknown' }
      : inferred(
          /^\d{8}_\d{6}\.py$/.test(configName) ? 'before Jun 2024 (a32f21a3): the config dump is named <ts>.py, not <ts>_<pid>.py' : 'Jun 2024 (a32f21a3) or later: the config dump is named <ts>_<pid>.py',
          'OpenCompass writes no version in its outputs; the range comes from the config file name',
        ),
  );
  p.records.files = rec(r.sources.map((s) => ({ path: s.path, sha256: s.sha256, role: s.role })), 'import');
  const model = (Array.isArray(r.config?.models) ? r.config.models : []).map(o).find((m) => m?.abbr === r.model);
  const from = (field: string) => `configs/${configName} models[abbr=${r.model}].${field}`;
  p.model.model_id = model === undefined ? same(inferred(r.model, 'the model folder name (the model abbr); no config entry read')) : rec(model.abbr, from('abbr'));
  if (model !== undefined) {
    if (model.type !== undefined) p.model.backend = rec(model.type, from('type'));
    if (model.path !== undefined) p.model.args = rec(Object.fromEntries(['path', 'tokenizer_path', 'peft_path', 'model_kwargs', 'tokenizer_kwargs', 'max_seq_len', 'batch_padding'].filter((k) => model[k] !== undefined).map((k) => [k, model[k]])), from('path, tokenizer_path, model_kwargs …'));
    const dtype = o(model.model_kwargs)?.torch_dtype;
    if (dtype !== undefined) p.model.dtype = rec(dtype, from('model_kwargs.torch_dtype'));
    if (model.batch_size !== undefined) p.model.batch_size = rec(model.batch_size, from('batch_size'));
    const gpus = o(model.run_cfg)?.num_gpus;
    if (gpus !== undefined) p.environment.gpu = rec(`${String(gpus)} GPU(s), kind not recorded`, from('run_cfg.num_gpus'));
  }
  const configDatasets = (Array.isArray(r.config?.datasets) ? r.config.datasets : []).map(o);
  for (const d of r.datasets) {
    const cfg = configDatasets.find((c) => c?.abbr === d.abbr);
    p.tasks[d.abbr] = taskBlock(d, cfg, model, configName, r.instances.filter((i) => i.task === d.abbr));
    p.reported[d.abbr] = reported(d, r.model);
  }
  if (r.config === undefined) p.notes.push({ task: null, kind: 'opencompass_no_config', message: 'no configs/*.py in the work folder: model, prompt template, decoding and scoring settings are unknown', evidence: [r.work] });
  return p;
}

function taskBlock(d: OpenCompassDataset, cfg: Json | undefined, model: Json | undefined, configName: string | undefined, instances: Record<string, unknown>[]) {
  const t = emptyTaskProvenance();
  const at = (field: string) => `configs/${configName} datasets[abbr=${d.abbr}].${field}`;
  t.task.name = rec(d.abbr, cfg ? at('abbr') : 'predictions/results file name (the dataset abbr)');
  const version = d.summary[0]?.version;
  if (version !== undefined) t.task.version = rec(version, 'summary CSV version column: the first 6 hex digits of sha256 over the dataset infer_cfg (a prompt-configuration hash, not a data hash)');
  const infer = o(cfg?.infer_cfg);
  const evalCfg = o(cfg?.eval_cfg);
  const reader = o(cfg?.reader_cfg);
  const inferencer = String(o(infer?.inferencer)?.type ?? '');
  const evaluator = o(evalCfg?.evaluator)?.type;
  if (cfg !== undefined) {
    if (cfg.path !== undefined) t.task.dataset_path = rec(cfg.path, at('path'));
    t.task.dataset_name = rec(cfg.name ?? cfg.type, at(cfg.name !== undefined ? 'name' : 'type'));
    t.task.dataset_type = rec(cfg.type, at('type'));
    if (reader?.test_split !== undefined) t.task.dataset_split = rec(reader.test_split, at('reader_cfg.test_split'));
    t.task.prompt_template = rec(infer?.prompt_template, at('infer_cfg.prompt_template'));
    t.task.reader_cfg = rec(reader, at('reader_cfg'));
    t.scoring.output_type = rec(inferencer.endsWith('PPLInferencer') ? 'loglikelihood (perplexity per label)' : inferencer.endsWith('GenInferencer') ? 'generate_until' : inferencer, at('infer_cfg.inferencer.type'));
    t.scoring.scoring_path = rec(evalCfg, at('eval_cfg'));
    t.scoring.metrics = rec(evaluator, at('eval_cfg.evaluator.type'));
    t.scoring.filters = rec(evalCfg?.pred_postprocessor ?? 'none (no pred_postprocessor)', at('eval_cfg.pred_postprocessor'));
    const retriever = String(o(infer?.retriever)?.type ?? '');
    const rounds = (o(o(infer?.prompt_template)?.template)?.round as unknown[] | undefined)?.length ?? 0;
    t.fewshot.sampler = rec(retriever, at('infer_cfg.retriever.type'));
    if (retriever.endsWith('ZeroRetriever')) {
      t.fewshot.count = same(inferred(0, `ZeroRetriever retrieves no examples${rounds > 1 ? `; the template has ${rounds} rounds, which may hold examples written into it` : ''}`));
    }
    t.samples.limit = reader?.test_range !== undefined ? rec(reader.test_range, at('reader_cfg.test_range')) : same(inferred('none', 'reader_cfg.test_range absent: the whole test split'));
    t.repeats.repeats = cfg.n !== undefined ? rec(cfg.n, at('n')) : same(inferred(1, 'dataset n absent: OpenCompass evaluates each item once'));
  }
  if (model !== undefined) {
    const template = model.meta_template;
    t.chat_template.applied = template === undefined ? same(inferred(false, 'no meta_template in the model config')) : rec(true, 'models[].meta_template');
    if (template !== undefined) t.chat_template.text = rec(template, 'models[].meta_template');
    const maxOut = o(infer?.inferencer)?.max_out_len ?? model.max_out_len;
    if (maxOut !== undefined) t.generation.max_tokens = rec(maxOut, o(infer?.inferencer)?.max_out_len !== undefined ? 'datasets[].infer_cfg.inferencer.max_out_len' : 'models[].max_out_len');
    t.generation.settings = rec({ generation_kwargs: model.generation_kwargs, max_out_len: maxOut, max_seq_len: model.max_seq_len }, 'models[].generation_kwargs, max_out_len, max_seq_len');
    const stops = model.stop_words ?? o(model.generation_kwargs)?.eos_token_id;
    if (stops !== undefined) t.generation.stop_sequences = rec(stops, model.stop_words !== undefined ? 'models[].stop_words' : 'models[].generation_kwargs.eos_token_id (token ids)');
  }
  const docs = new Set(instances.map((i) => i.doc_id));
  t.samples.document_count = same(inferred(docs.size, `records in ${d.shards.length} predictions file(s)`));
  t.failures.empty_answers = same(inferred(instances.filter((i) => i.request_idx === 0 && (i.response_text === null || String(i.response_text).trim() === '')).length, 'predictions that are empty'));
  const correct = detailsCorrect(d.result);
  for (const metric of Object.keys(d.result ?? {}).filter((k) => !NOT_METRICS.has(k))) {
    t.scoring[`scale ${metric}`] = metricScale(typeof evaluator === 'string' ? evaluator : undefined, d.result![metric], correct);
  }
  return t;
}

/** The per-item `correct` values of a results file's details (empty when the evaluator recorded none). */
export function detailsCorrect(result: Json | undefined): number[] {
  const details = result?.details;
  const entries = Array.isArray(details) ? details : Object.values(o(details) ?? {});
  // A list (0.4+: one value per repeat) counts as its mean, as the item's score.
  const values = entries.map((e) => o(e)?.correct).map((v) => (Array.isArray(v) && v.length > 0 && v.every((x) => typeof x === 'boolean' || typeof x === 'number') ? v.reduce((a: number, x) => a + Number(x), 0) / v.length : v));
  return values.length > 0 && values.every((v) => typeof v === 'boolean' || typeof v === 'number') ? values.map(Number) : [];
}

function reported(d: OpenCompassDataset, model: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(d.result ?? {})) if (!NOT_METRICS.has(k)) out[k] = v;
  for (const row of d.summary) {
    const cell = row.values[model]!;
    out[`${row.metric},summary csv (2 decimals)`] = cell === '-' ? null : Number(cell);
  }
  return out;
}
