/**
 * A HELM run's settings as lmaudit's disclosure items. The adapter spec is what was configured; each request
 * state's request is what was sent (the multiple-choice-joint adapter sends no stop sequences and one completion
 * whatever the adapter spec says, so the two differ there). HELM writes no version of itself: the version is
 * inferred from which fields are present.
 */
import {
  emptyRunProvenance,
  emptyTaskProvenance,
  inferred,
  recorded,
  same,
  type Fact,
  type RunProvenance,
  type Setting,
} from '../../store/schema.ts';
import { isPlainObject } from '../../util/json.ts';

type Json = Record<string, unknown>;
const o = (v: unknown): Json | undefined => (isPlainObject(v) ? v : undefined);

export interface HelmRecords {
  folder: string;
  runSpec: Json;
  requestStates: Json[];
  stats: Json[];
  hasScenarioState: boolean;
  hasPerInstanceStats: boolean;
  files: { path: string; sha256: string; role: string }[];
}

const rec = (value: unknown, from: string): Setting => same(recorded(value, from));

/** The run spec's name without its model argument: the benchmark, so runs of one benchmark by two models share a task. */
export function helmTaskName(runSpec: Json): string {
  const name = String(runSpec.name ?? 'helm');
  const colon = name.indexOf(':');
  if (colon < 0) return name;
  const args = name.slice(colon + 1).split(',').filter((arg) => !arg.startsWith('model='));
  return `${name.slice(0, colon)}${args.length > 0 ? `:${args.join(',')}` : ''}`;
}

/** The distinct values the request states sent for one field (one value when every request agreed). */
function sentValues(states: Json[], pick: (s: Json) => unknown): Fact {
  if (states.length === 0) return { status: 'unknown' };
  const seen = new Map<string, unknown>();
  for (const s of states) {
    const v = pick(s);
    seen.set(JSON.stringify(v ?? null), v ?? null);
  }
  const values = [...seen.values()];
  return inferred(values.length === 1 ? values[0] : values, `the ${states.length} request state(s) of scenario_state.json${values.length === 1 ? ' all sent this' : ' sent these values'}`);
}

/** The newest HELM change whose field is present, and the oldest whose field is absent (§ version differences). */
const VERSION_MARKS: { field: (spec: Json, states: Json[]) => boolean; name: string; since: string }[] = [
  { field: (spec) => 'model_deployment' in spec, name: 'adapter_spec.model_deployment', since: 'Nov 2023 (65a0236e3)' },
  { field: (spec) => 'num_trials' in spec, name: 'adapter_spec.num_trials', since: 'Dec 2023 (346f765d9)' },
  { field: (spec) => 'chain_of_thought_prefix' in spec, name: 'adapter_spec.chain_of_thought_prefix', since: 'Nov 2024 (6f5ca606e)' },
  { field: (spec) => 'output_mapping_pattern' in spec, name: 'adapter_spec.output_mapping_pattern', since: 'Sep 2025 (bb5f04f12)' },
];

function helmVersion(spec: Json, states: Json[]): Fact {
  const present = VERSION_MARKS.filter((m) => m.field(spec, states));
  const absent = VERSION_MARKS.filter((m) => !m.field(spec, states));
  const after = present.at(-1);
  const before = absent[0];
  const range = [after ? `written by HELM from ${after.since} on (${after.name} present)` : null, before ? `before ${before.since} or with the field left out (${before.name} absent)` : null]
    .filter((x) => x !== null)
    .join('; ');
  return inferred(range, 'HELM writes no version in a run folder; the range is read from which adapter_spec fields are present');
}

export function helmProvenance(r: HelmRecords, runId: string, task: string, items: number): RunProvenance {
  const spec = o(r.runSpec.adapter_spec)!;
  const states = r.requestStates;
  const requests = states.map((s) => o(s.request)!);
  const p = emptyRunProvenance({ run_id: runId, label: String(r.runSpec.name ?? r.folder), source_kind: 'helm', source_format: 'HELM run folder' });
  p.harness.name = same(inferred('helm', 'a run folder of run_spec.json, scenario_state.json, per_instance_stats.json and stats.json is what helm-run writes'));
  p.harness.version = same(helmVersion(spec, states));
  if (spec.model !== undefined) p.model.model_id = { configured: recorded(spec.model, 'adapter_spec.model'), used: sentValues(states, (s) => o(s.request)?.model) };
  if (spec.model_deployment !== undefined) p.model.backend = { configured: recorded(spec.model_deployment, 'adapter_spec.model_deployment (the serving deployment)'), used: sentValues(states, (s) => o(s.request)?.model_deployment) };
  p.records.files = rec(r.files, 'import');

  const t = emptyTaskProvenance();
  t.task.name = rec(task, 'run_spec.name without its model argument');
  t.task.run_spec = rec(r.runSpec.name, 'run_spec.name');
  const scenario = o(r.runSpec.scenario_spec);
  if (scenario !== undefined) {
    t.task.dataset_path = rec(scenario.class_name, 'run_spec.scenario_spec.class_name');
    t.task.dataset_name = rec(scenario.args, 'run_spec.scenario_spec.args');
  }
  // The split setting is the pool HELM samples the eval instances from (a set, listed sorted); the splits the
  // sampled instances happen to come from are kept beside it, not set against it.
  t.task.dataset_split = same(spec.eval_splits !== undefined ? recorded(spec.eval_splits, 'adapter_spec.eval_splits') : inferred(['test', 'valid'], 'adapter_spec.eval_splits absent: HELM samples the eval instances from the test and valid splits pooled'));
  if (states.length > 0) t.task.splits_of_items = same(inferred([...new Set(states.map((s) => String(o(s.instance)?.split)))].sort(), 'the splits of the instances in scenario_state.json'));
  t.task.groups = rec(r.runSpec.groups, 'run_spec.groups');

  t.scoring.output_type = same(inferred(`${String(spec.method)} (HELM adapter method)`, 'adapter_spec.method'));
  t.scoring.scoring_path = rec(r.runSpec.metric_specs, 'run_spec.metric_specs');
  t.scoring.metrics = same(inferred([...new Set(r.stats.map((s) => String(o(s.name)?.name)))], 'stat names in stats.json'));
  if (String(spec.method).startsWith('multiple_choice')) {
    t.scoring.primary_score = same(inferred('exact_match', "HELM's per-instance correctness for multiple-choice adapters (the option chosen is a correct reference)"));
  }
  if (String(spec.method).startsWith('multiple_choice_joint')) {
    const pattern = spec.output_mapping_pattern;
    t.scoring.filters = same(inferred(
      `the top completion, stripped${typeof pattern === 'string' ? `, matched by output_mapping_pattern ${JSON.stringify(pattern)}` : ''}, mapped through output_mapping (letter to option text), then compared with each correct reference`,
      'HELM evaluate_reference_metrics for multiple_choice_joint',
    ));
  }

  // HELM's `instructions` open the prompt text, where lm-eval puts a task's description; a system message exists
  // only when requests carry chat messages.
  t.system.description = rec(spec.instructions, "adapter_spec.instructions (the text that opens the prompt, as lm-eval's description)");
  if (spec.global_prefix !== undefined && spec.global_prefix !== '') t.system.global_prefix = rec(spec.global_prefix, 'adapter_spec.global_prefix');
  if (states.length > 0 && requests.every((q) => q.messages === undefined)) {
    t.system.instruction = same(inferred(null, 'every request is one prompt text (request.prompt), with no chat messages: no system message was sent'));
  }
  t.chat_template.template_pieces = rec(
    Object.fromEntries(['global_prefix', 'global_suffix', 'instructions', 'input_prefix', 'input_suffix', 'reference_prefix', 'reference_suffix', 'output_prefix', 'output_suffix', 'instance_prefix', 'substitutions', 'chain_of_thought_prefix', 'chain_of_thought_suffix'].filter((k) => spec[k] !== undefined).map((k) => [k, spec[k]])),
    'adapter_spec',
  );
  if (requests.some((q) => q.messages !== undefined)) t.chat_template.applied = same(inferred(true, 'requests carry messages (chat form)'));

  t.fewshot.count = {
    configured: recorded(spec.max_train_instances, 'adapter_spec.max_train_instances (the requested few-shot count)'),
    used: sentValues(states, (s) => s.num_train_instances),
  };
  if (typeof spec.sample_train === 'boolean') t.fewshot.sampler = rec(spec.sample_train ? 'sampled (sample_train true)' : 'first in order (sample_train false)', 'adapter_spec.sample_train');
  t.fewshot.seed = same(inferred('trial t samples its examples with seed t', 'HELM in_context_learning_adapter'));
  t.fewshot.split = same(inferred('train', 'HELM draws in-context examples from the train split'));

  const sent = (field: string) => sentValues(states, (s) => o(s.request)?.[field]);
  // The adapter turns the spec into requests: what reaches the model is the request. Where an adapter method
  // overrides a field whatever the spec says, the configured side is what that method sends, with the spec's value
  // kept beside it (adapter_spec_decoding), so the same intent compares as the same across runs.
  const decoding = Object.fromEntries(['temperature', 'max_tokens', 'num_outputs', 'stop_sequences', 'random'].filter((k) => spec[k] !== undefined).map((k) => [k, spec[k]]));
  t.generation.adapter_spec_decoding = rec(decoding, 'adapter_spec');
  const requestSettings = sentValues(states, (s) => Object.fromEntries(Object.entries(o(s.request)!).filter(([k]) => !['prompt', 'messages', 'multimodal_prompt', 'model', 'model_deployment'].includes(k))));
  // settings are the request's decoding fields as sent; the spec's own are adapter_spec_decoding (their keys differ: num_outputs becomes num_completions or top_k_per_token).
  if (states.length > 0) t.generation.settings = same(requestSettings);
  const joint = String(spec.method).startsWith('multiple_choice_joint');
  t.generation.stop_sequences = {
    configured: joint
      ? inferred([], `HELM's multiple_choice_joint adapter sends no stop sequences whatever the run spec says (adapter_spec.stop_sequences is ${JSON.stringify(spec.stop_sequences ?? null)})`)
      : recorded(spec.stop_sequences, 'adapter_spec.stop_sequences'),
    used: sent('stop_sequences'),
  };
  t.generation.max_tokens = { configured: recorded(spec.max_tokens, 'adapter_spec.max_tokens'), used: sent('max_tokens') };
  t.generation.temperature = { configured: recorded(spec.temperature, 'adapter_spec.temperature'), used: sent('temperature') };
  t.generation.completions = {
    configured: joint ? inferred(1, `HELM's multiple_choice_joint adapter asks one completion (adapter_spec.num_outputs ${String(spec.num_outputs)} becomes top_k_per_token)`) : recorded(spec.num_outputs, 'adapter_spec.num_outputs'),
    used: sent('num_completions'),
  };

  t.repeats.repeats = rec(spec.num_train_trials, 'adapter_spec.num_train_trials (few-shot resamples; each trial repeats every instance)');
  if (spec.num_trials !== undefined) t.repeats.seeded_repeats = rec(spec.num_trials, 'adapter_spec.num_trials');
  t.repeats.reducer = same(inferred('mean over trials of the per-trial means', 'HELM runner: each trial merged, then trial means merged (stats.json count = trials)'));
  t.repeats.aggregation = same(inferred('per split: Σsum / Σcount over the instances of a trial; splits are never pooled', 'HELM runner (stats.json is per split)'));

  t.samples.limit = rec(spec.max_eval_instances, 'adapter_spec.max_eval_instances');
  const ids = new Set(states.map((s) => String(o(s.instance)?.id)));
  if (r.hasScenarioState) {
    t.samples.document_count = same(inferred(ids.size, 'distinct instance ids in scenario_state.json'));
    t.samples.document_ids = same(inferred([...ids], 'instance ids in scenario_state.json (HELM ids are positions in the scenario, not content keys)'));
    t.failures.errors = same(inferred(states.filter((s) => o(s.result)?.success === false).map((s) => o(s.instance)?.id), 'request states whose result.success is false'));
    t.failures.empty_answers = same(inferred(states.filter((s) => o(s.result) !== undefined && String(o((o(s.result)!.completions as unknown[] | undefined)?.[0])?.text ?? '').trim() === '').length, 'request states whose top completion is empty'));
    t.failures.truncations = same(inferred(states.filter((s) => s.prompt_truncated === true).map((s) => o(s.instance)?.id), 'request states with prompt_truncated true'));
  }

  p.tasks[task] = t;
  // HELM writes no mean for a stat of count 0 (training_co2_cost on most runs): no value, null; undefined printed as
  // the word "undefined" in `ls` and vanished from a written store's provenance.
  p.reported[task] = Object.fromEntries(r.stats.map((s) => [reportedKey(o(s.name) ?? {}), s.mean ?? null]));
  if (!r.hasScenarioState) p.notes.push({ task, kind: 'helm_no_scenario_state', message: 'no scenario_state.json: the aggregates are imported without their requests and completions', evidence: [r.folder] });
  if (r.hasScenarioState && !r.hasPerInstanceStats) p.notes.push({ task, kind: 'helm_no_per_instance_stats', message: `no per_instance_stats.json: the ${items} item(s) have no per-item metric values`, evidence: [r.folder] });
  return p;
}

/** A stats.json entry's key in `reported`: `<name>,split=<split>[/<sub_split>]`, then `,<perturbation>:<computed_on>`. */
export function reportedKey(name: Json): string {
  const pert = o(name.perturbation);
  return `${String(name.name)},${statFilter(name)}${pert === undefined ? '' : `,${String(pert.name)}${pert.computed_on === undefined ? '' : `:${String(pert.computed_on)}`}`}`;
}

/** The filter a per-instance stat is stored under: its split (and sub-split). */
export function statFilter(name: Json): string {
  return `split=${String(name.split)}${name.sub_split === undefined ? '' : `/${String(name.sub_split)}`}`;
}

/** A per-instance stat's filter: its split, and the instance's perturbation when it has one (kept apart from the plain stat). */
export function instanceStatFilter(name: Json): string {
  const pert = o(name.perturbation);
  return `${statFilter(name)}${pert === undefined ? '' : `,${String(pert.name)}`}`;
}

