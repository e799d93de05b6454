/**
 * The EvalSpec (and plan) of an Inspect log as lmaudit's provenance block.
 * Inspect omits None fields, so every absent field stays `unknown`; where
 * Inspect applies a documented default to an absent field (epochs 1, reducer
 * mean, fail_on_error true, score_on_error false) the default is `inferred`,
 * never `recorded`. Configured vs used: task_args_passed vs task_args, and the
 * plan's generate config vs that config overlaid with model_generate_config.
 *
 * Fields the schema's disclosure list lacks (task args, dataset shuffling and
 * size, error policy, limits, packages) are added as extra keys in the closest
 * group; the schema's groups are open records, so they validate.
 */
import {
  emptyRunProvenance,
  emptyTaskProvenance,
  inferred,
  recorded,
  same,
  type RunProvenance,
  type Setting,
  type TaskProvenance,
} from '../../store/schema.ts';
import { arr, obj, type Json } from './migrate.ts';
import { messageText, promptMessages } from './messages.ts';
import type { InspectLog } from './readLog.ts';
import { inspectAgentSettings } from '../agents/inspectAgent.ts';

const rec = (value: unknown, from: string): Setting => same(recorded(value, from));

/** Sets `group[field]` only when the log recorded the value (absent stays unknown). */
function put(group: Record<string, Setting>, field: string, value: unknown, from: string): void {
  if (value !== undefined && value !== null) group[field] = rec(value, from);
}

/** Inspect's effective generate config: plan.config overridden by every non-null model_generate_config field. */
export function effectiveGenerateConfig(header: Json): { configured: Json; used: Json } {
  const configured = obj(obj(header.plan)?.config) ?? {};
  const overrides = Object.entries(obj(obj(header.eval)?.model_generate_config) ?? {}).filter(([, v]) => v !== null && v !== undefined);
  return { configured, used: { ...configured, ...Object.fromEntries(overrides) } };
}

function planStep(header: Json, solver: string): Json | undefined {
  return (arr(obj(header.plan)?.steps) ?? []).map(obj).find((s) => s?.solver === solver);
}

export function inspectVersion(header: Json): string | undefined {
  const v = obj(obj(header.eval)?.packages)?.inspect_ai;
  return typeof v === 'string' ? v : undefined;
}

export function runProvenance(log: InspectLog, runId: string, sha256: string): RunProvenance {
  const spec = obj(log.header.eval)!;
  const p = emptyRunProvenance({ run_id: runId, label: log.file.split('/').pop()!, source_kind: 'inspect', source_format: log.format });
  p.harness.name = rec('inspect_ai', 'eval.packages');
  const version = inspectVersion(log.header);
  put(p.harness, 'version', version, 'eval.packages.inspect_ai');
  // eval.revision is the git checkout Inspect was run from (the task code's), not inspect_ai's: in real logs run
  // from inspect_ai's own repository it names another commit than the package's version does (33c76a75 beside
  // 0.3.42.dev228+g349eca8e). inspect_ai's commit is in its version when it is a development build (setuptools-scm:
  // +g<commit>, and .d<date> when built from a modified tree); a release names none.
  const build = version === undefined ? null : /\+g([0-9a-f]{7,40})(\.d\d{8})?$/.exec(version);
  if (build !== null) {
    p.harness.commit = same(inferred(build[1], 'the +g<commit> of eval.packages.inspect_ai (a development build names its commit)'));
    // Only a .d<date> says anything: an editable install keeps the version of when it was installed, so its absence
    // does not show the tree was clean when the eval ran.
    if (build[2] !== undefined) p.harness.dirty = same(inferred(true, 'the .d<date> suffix of eval.packages.inspect_ai (setuptools-scm marks a build from a modified tree)'));
  }
  put(p.harness, 'runtime', spec.packages, 'eval.packages');
  put(p.harness, 'run_from_git', spec.revision, "eval.revision: the git checkout Inspect was run from (the task code's), not inspect_ai's commit");
  const model = typeof spec.model === 'string' ? spec.model : undefined;
  if (model !== undefined) {
    p.model.model_id = rec(model, 'eval.model');
    p.model.backend = same(inferred(model.split('/')[0], "provider prefix of eval.model ('provider/model')"));
  }
  put(p.model, 'args', spec.model_args, 'eval.model_args');
  put(p.model, 'base_url', spec.model_base_url, 'eval.model_base_url');
  put(p.model, 'roles', spec.model_roles, 'eval.model_roles');
  const served = log.samples.map((s) => obj(s.output)?.model).find((m) => typeof m === 'string');
  if (served !== undefined) p.model.revision = same(inferred(served, 'sample output.model: the model version the provider reported'));
  p.records.files = rec([{ path: log.file, sha256, role: `inspect-${log.format}` }], 'import');
  p.reported[String(spec.task)] = reportedMetrics(log.header);
  const agent = inspectAgentSettings(log.header as Record<string, unknown>, log.samples as Record<string, unknown>[]);
  if (agent !== undefined) [p.agent, p.notes] = [agent.agent, [...p.notes, ...agent.notes]];
  return p;
}

/** `results.scores[*].metrics` verbatim, keyed "metric,scorer[,reducer]" like lm-eval's "metric,filter". */
function reportedMetrics(header: Json): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const score of arr(obj(header.results)?.scores) ?? []) {
    const s = obj(score);
    if (s === undefined) continue;
    const view = s.reducer === undefined ? String(s.name) : `${String(s.name)},${String(s.reducer)}`;
    for (const [key, metric] of Object.entries(obj(s.metrics) ?? {})) out[`${key},${view}`] = obj(metric)?.value;
  }
  return out;
}

export function taskProvenance(log: InspectLog): TaskProvenance {
  const header = log.header;
  const spec = obj(header.eval)!;
  const config = obj(spec.config) ?? {};
  const dataset = obj(spec.dataset) ?? {};
  const t = emptyTaskProvenance();

  put(t.task, 'name', spec.task, 'eval.task');
  put(t.task, 'version', spec.task_version, 'eval.task_version');
  put(t.task, 'dataset_path', dataset.location, 'eval.dataset.location');
  put(t.task, 'dataset_name', dataset.name, 'eval.dataset.name');
  put(t.task, 'file', spec.task_file, 'eval.task_file');
  if (spec.task_args !== undefined || spec.task_args_passed !== undefined) {
    const passedRecorded = !log.migrations.includes('eval.task_args_passed missing -> copy of task_args');
    t.task.args = {
      configured: passedRecorded
        ? recorded(spec.task_args_passed, 'eval.task_args_passed')
        : inferred(spec.task_args_passed, 'log predates task_args_passed; Inspect migrates it as a copy of task_args'),
      used: recorded(spec.task_args, 'eval.task_args (defaults included)'),
    };
  }
  put(t.task, 'solver', spec.solver, 'eval.solver');

  t.scoring.output_type = same(inferred('generate_until', 'Inspect scores generated text'));
  put(t.scoring, 'scoring_path', spec.scorers, 'eval.scorers');
  const metricNames = (arr(obj(header.results)?.scores) ?? []).map((s) => ({ name: obj(s)?.name, scorer: obj(s)?.scorer, reducer: obj(s)?.reducer, params: obj(s)?.params, metrics: Object.entries(obj(obj(s)?.metrics) ?? {}).map(([key, m]) => ({ key, name: obj(m)?.name, params: obj(m)?.params, value: obj(m)?.value })) }));
  if (metricNames.length > 0) t.scoring.metrics = rec(metricNames, 'results.scores');
  else put(t.scoring, 'metrics', spec.metrics, 'eval.metrics');
  t.scoring.filters = same(inferred('none', 'Inspect has no filter stage; each scorer extracts its own answer'));

  const system = planStep(header, 'system_message');
  put(t.system, 'instruction', obj(system?.params)?.template, 'plan.steps[system_message].params.template');
  const first = log.samples[0];
  if (first !== undefined) {
    const sent = promptMessages(first).filter((m) => m.role === 'system').map(messageText);
    t.system.message_sent = same(inferred(sent.length > 0 ? sent.join('\n') : null, 'system messages before the first reply in the first sample'));
  }
  // Inspect always sends chat messages; whoever renders them (the API provider, or the tokenizer for hf/vllm) applies a template the log does not record.
  t.chat_template.applied = same(inferred(true, 'Inspect sends chat messages; the provider (or the local tokenizer for hf/vllm) applies its chat template; its text is not in the log'));
  put(t.scoring, 'plan', { steps: arr(obj(header.plan)?.steps), finish: obj(header.plan)?.finish }, 'plan');

  const gen = effectiveGenerateConfig(header);
  t.generation.settings = { configured: recorded(gen.configured, 'plan.config'), used: recorded(gen.used, 'plan.config + eval.model_generate_config') };
  const mc = planStep(header, 'multiple_choice');
  const maxTokens = gen.used.max_tokens ?? obj(mc?.params)?.max_tokens;
  put(t.generation, 'max_tokens', maxTokens, gen.used.max_tokens !== undefined ? 'generate config' : 'plan.steps[multiple_choice].params.max_tokens');
  put(t.generation, 'stop_sequences', gen.used.stop_seqs, 'generate config stop_seqs');
  // Mid-run retunes change the config the run finished under; kept as recorded, in order, for the diff to apply.
  put(t.generation, 'config_updates', header.config_updates, 'config_updates');

  t.repeats.repeats = config.epochs !== undefined ? rec(config.epochs, 'eval.config.epochs') : same(inferred(1, 'eval.config.epochs absent: Inspect default 1'));
  t.repeats.reducer = config.epochs_reducer !== undefined
    ? rec(config.epochs_reducer, 'eval.config.epochs_reducer')
    : same(inferred(['mean'], 'eval.config.epochs_reducer absent: Inspect default mean'));
  t.repeats.aggregation = same(inferred('micro', 'Inspect metrics run over one reduced score per sample'));

  put(t.samples, 'limit', config.limit, 'eval.config.limit');
  put(t.samples, 'document_ids', dataset.sample_ids, 'eval.dataset.sample_ids');
  put(t.samples, 'dataset_size', dataset.samples, 'eval.dataset.samples');
  put(t.samples, 'shuffled', dataset.shuffled, 'eval.dataset.shuffled');
  put(t.samples, 'sample_id', config.sample_id, 'eval.config.sample_id');
  put(t.samples, 'sample_shuffle', config.sample_shuffle, 'eval.config.sample_shuffle');
  const ids = new Set(log.samples.map((s) => `${typeof s.id}:${String(s.id)}`));
  t.samples.document_count = same(inferred(ids.size, 'distinct sample ids in the log'));

  fillFailures(t, log, config);
  return t;
}

function fillFailures(t: TaskProvenance, log: InspectLog, config: Json): void {
  const errored = log.samples.filter((s) => obj(s.error) !== undefined).map((s) => ({ id: s.id, epoch: s.epoch, message: obj(s.error)?.message }));
  t.failures.errors = same(inferred(errored, 'samples with sample.error set'));
  const limited = log.samples.filter((s) => obj(s.limit) !== undefined).map((s) => ({ id: s.id, epoch: s.epoch, limit: s.limit }));
  t.failures.truncations = same(inferred(limited, 'samples stopped by a limit (sample.limit); a limit is not an error and the sample was scored'));
  const limits = Object.fromEntries(
    ['message_limit', 'token_limit', 'token_limit_type', 'turn_limit', 'time_limit', 'working_limit', 'cost_limit'].filter((k) => config[k] !== undefined).map((k) => [k, config[k]]),
  );
  if (Object.keys(limits).length > 0) t.failures.limits = rec(limits, 'eval.config');
  t.failures.fail_on_error = config.fail_on_error !== undefined ? rec(config.fail_on_error, 'eval.config.fail_on_error') : same(inferred(true, 'absent: Inspect default true'));
  t.failures.score_on_error = config.score_on_error !== undefined ? rec(config.score_on_error, 'eval.config.score_on_error') : same(inferred(false, 'absent: Inspect default false'));
  put(t.failures, 'continue_on_fail', config.continue_on_fail, 'eval.config.continue_on_fail');
  put(t.failures, 'retry_on_error', config.retry_on_error, 'eval.config.retry_on_error');
  t.failures.in_denominator = same(
    inferred(
      'errored samples count in the metrics only through the scores they carry (from inspect_ai 0.3.248; earlier versions excluded them)',
      'Inspect results pipeline by version',
    ),
  );
  const results = obj(log.header.results);
  if (results !== undefined) {
    put(t.failures, 'total_samples', results.total_samples, 'results.total_samples');
    put(t.failures, 'completed_samples', results.completed_samples, 'results.completed_samples');
  }
  put(t.failures, 'status', log.header.status, log.rebuiltFromJournal ? 'rebuilt from _journal/start.json (no header.json)' : 'status');
}
