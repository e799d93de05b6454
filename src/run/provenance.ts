/**
 * The provenance block of an `lmaudit run`: every disclosure item with the value as
 * configured (flags, task YAML) and as used (what reached the model, what the backend
 * did). At the start of a run the "used" side holds only what is known before any
 * request is sent; `finish` writes the block again with what the run observed.
 */
import { cpus, platform, release, arch } from 'node:os';
import { dumpsPy } from '../py/json.ts';
import type { ModelArgs, ModelDescription } from '../models/lm.ts';
import type { BuiltTask } from '../prompt/build.ts';
import { pyStrOf } from '../prompt/build.ts';
import type { ChatTemplate } from '../prompt/chatTemplate.ts';
import type { Seeds } from '../prompt/prompts.ts';
import {
  emptyRunProvenance,
  emptyTaskProvenance,
  inferred,
  recorded,
  same,
  UNKNOWN,
  type Fact,
  type RunProvenance,
  type Setting,
  type SourceFile,
  type TaskProvenance,
} from '../store/schema.ts';
import { sha256Hex } from '../util/hash.ts';
import { lmevalMaxTokenKey } from '../formats/lmevalGenKwargs.ts';
import { BOOTSTRAP_ITERS, BYPASS, filterPipelines, runMetricSpecs, type TaskScores } from './scoring.ts';
import type { GenerationSettings } from '../models/lm.ts';
import { propagateShots, type GroupResult } from './groups.ts';

/** What a run observed, per task, once its responses are in. */
export interface TaskObservations {
  stopUsed: string[][];
  settingsSent: GenerationSettings[];
  truncatedRequests: number;
  truncatedTokens: number;
  emptyAnswers: number;
  errors: number;
}

export interface RunFacts {
  runId: string;
  label: string;
  model: string;
  modelArgs: ModelArgs;
  batchSize: number;
  description: ModelDescription;
  tasks: readonly BuiltTask[];
  chatTemplate: ChatTemplate | null;
  /** --apply_chat_template as given (true: the model's own template). */
  applyChatTemplate: string | boolean | null;
  fewshotAsMultiturn: boolean | null;
  systemInstruction: string | null;
  genKwargs: Record<string, unknown> | null;
  numFewshot: number | null;
  limit: number | null;
  seeds: Seeds;
  lmauditVersion: string;
  settings: ReadonlyMap<string, GenerationSettings>;
  /** The backend's context length (lm-eval's max_length). */
  maxLength: number;
  /** --predict_only: every task's metrics were replaced by lm-eval's bypass. */
  predictOnly?: boolean;
}

// Credentials by their usual names; not tokenizer settings such as add_bos_token or eos_token.
const SECRET = /api[_-]?key|secret|passw(or)?d|bearer|(access|auth|hf|api)[_-]?token|^(token|key)$/i;
const FROM_FLAGS = 'lmaudit run flags';

/** model_args as recorded: values of secret-looking keys are never written. */
export function redactedArgs(args: ModelArgs): Record<string, unknown> {
  return Object.fromEntries(Object.entries(args).map(([k, v]) => [k, SECRET.test(k) ? '<redacted>' : v]));
}

/** Python-typed values (PyFloat) as plain JSON for the provenance block. */
const plain = (v: unknown): unknown => (v === undefined ? null : JSON.parse(JSON.stringify(v, (_k, x) => (x !== null && typeof x === 'object' && 'value' in x && Object.keys(x).length === 1 ? x.value : typeof x === 'bigint' ? String(x) : x))));
const flag = (v: unknown): Fact => recorded(plain(v), FROM_FLAGS);

export function machine(): Record<string, unknown> {
  const cpu = cpus();
  return { cpu_model: cpu[0]?.model ?? null, cpu_cores: cpu.length, os: `${platform()} ${release()}`, arch: arch() };
}

export function runProvenance(
  f: RunFacts,
  observed: ReadonlyMap<string, TaskObservations> | null,
  scores: readonly TaskScores[] | null,
  timing: { wallMs: number; inferenceMs: number; counters?: Record<string, number> } | null,
  records: SourceFile[],
  groups: readonly GroupResult[] = [],
): RunProvenance {
  const prov = emptyRunProvenance({ run_id: f.runId, label: f.label, source_kind: 'lmaudit', source_format: 'lmaudit run' });
  const d = f.description;
  prov.harness.name = same(recorded('lmaudit'));
  prov.harness.version = same(recorded(f.lmauditVersion, 'package.json'));
  prov.harness.runtime = {
    configured: UNKNOWN,
    used: recorded({ node: process.versions.node, ...d.runtime }, 'process.versions, backend'),
  };
  // The machine is the environment item, as lm-eval's pretty_env_info is for its runs. No accelerator is used by
  // the backends of this stage; the API backends record theirs as unknown.
  const host = machine();
  prov.environment.cpu = same(recorded({ model: host.cpu_model, cores: host.cpu_cores, arch: host.arch }, 'os module'));
  prov.environment.os = same(recorded(host.os, 'os module'));
  prov.environment.libraries = same(recorded({ node: process.versions.node, ...d.runtime }, 'process.versions, backend'));
  // How long it took and how much work the backend did are measurements, not settings: a note, not a setting to diff.
  if (timing !== null) {
    const counters = timing.counters ?? {};
    prov.notes.push({
      task: null,
      kind: 'timing',
      message: `wall ${(timing.wallMs / 1000).toFixed(2)} s, of which ${(timing.inferenceMs / 1000).toFixed(2)} s in inference calls${Object.keys(counters).length > 0 ? `; backend counters ${JSON.stringify(counters)}` : ''}`,
      evidence: [JSON.stringify({ wall_seconds: timing.wallMs / 1000, inference_seconds: timing.inferenceMs / 1000, backend_counters: counters })],
    });
  }
  prov.model.backend = same(recorded(f.model, '--model'));
  // What a server changed against the configuration (API backends): one note each, configured and used side by side.
  for (const adj of d.adjustments ?? []) {
    prov.notes.push({ task: null, kind: 'server_adjustment', message: `${adj.setting}: configured ${JSON.stringify(adj.configured)}, used ${JSON.stringify(adj.used)} (${adj.why})`, evidence: [JSON.stringify(adj)] });
  }
  prov.model.model_id = { configured: flag(redactedArgs(f.modelArgs)), used: recorded(d.modelId, 'backend') };
  prov.model.dtype = { configured: UNKNOWN, used: d.dtype === null ? UNKNOWN : recorded(d.dtype, 'backend') };
  prov.model.args = same(flag(redactedArgs(f.modelArgs)));
  prov.model.batch_size = same(flag(f.batchSize));
  // A served model runs on the server, whose hardware no API reports: this machine is not its device.
  const where = d.servedBy === undefined ? machine() : { server: d.servedBy, hardware: 'not reported by the server' };
  prov.model.device = { configured: UNKNOWN, used: recorded({ ...where, files_sha256: d.files, adds_bos: d.addsBos, eos_token: d.eosToken, max_length: f.maxLength }, d.servedBy === undefined ? 'os module, backend' : 'backend') };
  prov.records.files = records.length > 0 ? same(recorded(records)) : same(UNKNOWN);
  for (const t of f.tasks) prov.tasks[t.config.task] = taskBlock(f, t, observed?.get(t.config.task) ?? null);
  if (scores !== null) {
    for (const s of scores) {
      const entry: Record<string, unknown> = {};
      for (const r of s.results) {
        entry[`${r.metric},${r.filter}`] = r.value;
        entry[`${r.metric}_stderr,${r.filter}`] = r.stderr;
      }
      prov.reported[s.task] = entry;
    }
  }
  // Group structure on the group's own block (repeats.group_weighting), where the lm-eval importer keeps it too.
  const groupShots = propagateShots(groups, new Map(f.tasks.map((t) => [t.config.task, t.numFewshot])));
  for (const g of groups) {
    const block = emptyTaskProvenance();
    block.task.name = same(recorded(g.group));
    block.task.version = same(g.version === null ? UNKNOWN : recorded(plain(g.version)));
    block.repeats.group_weighting = { configured: recorded({ subtasks: g.children, aggregate_metric_list: plain(g.aggregateMetricList) }, 'group YAML'), used: recorded({ leaves: g.leaves }, 'leaf tasks averaged') };
    // The settings a run applies to every task alike are its groups' too (the lm-eval importer reads them for a group
    // from the run's results file): the chat template, the system instruction, the few-shot seed and the limit.
    const leaf = g.leaves.map((l) => prov.tasks[l]).find((b) => b !== undefined);
    if (leaf !== undefined) {
      for (const f of ['applied', 'text', 'sha256', 'fewshot_as_multiturn'] as const) block.chat_template[f] = structuredClone(leaf.chat_template[f]);
      block.system.instruction = structuredClone(leaf.system.instruction);
      block.fewshot.seed = structuredClone(leaf.fewshot.seed);
      block.samples.limit = structuredClone(leaf.samples.limit);
    }
    // The n-shot lm-eval's results file gives the group (none for a group holding groups).
    const shots = groupShots.get(g.group);
    if (shots !== undefined) block.fewshot.count = { configured: UNKNOWN, used: recorded(shots, `n-shot.${g.group}`) };
    prov.tasks[g.group] = block;
    if (g.results.length > 0) {
      const entry: Record<string, unknown> = {};
      for (const r of g.results) {
        entry[`${r.metric},${r.filter}`] = r.value;
        entry[`${r.metric}_stderr,${r.filter}`] = r.stderr;
      }
      prov.reported[g.group] = entry;
    }
  }
  return prov;
}

function taskBlock(f: RunFacts, t: BuiltTask, o: TaskObservations | null): TaskProvenance {
  const c = t.config;
  const p = emptyTaskProvenance();
  const yaml = (v: unknown, field: string): Fact => (v === null || v === undefined ? UNKNOWN : recorded(plain(v), `${c.source}: ${field}`));
  const used = (v: unknown, how: string): Fact => recorded(plain(v), how);
  p.task.name = same(recorded(c.task));
  p.task.version = same(yaml(c.metadata.version, 'metadata.version'));
  p.task.dataset_path = same(yaml(c.dataset_path, 'dataset_path'));
  p.task.dataset_name = same(yaml(c.dataset_name, 'dataset_name'));
  const split = c.test_split ?? c.validation_split;
  p.task.dataset_split = { configured: yaml(split, c.test_split !== null ? 'test_split' : 'validation_split'), used: used(split, 'the split the documents were read from') };
  p.task.dataset_hash = same(recorded(sha256Hex(t.docs.map((d) => d.doc_hash).join('')), 'sha256 of the evaluated documents’ doc_hash values, in order'));

  const specs = runMetricSpecs(t, f.predictOnly ?? false);
  const pipelines = filterPipelines(t);
  p.scoring.output_type = { configured: yaml(c.output_type, 'output_type'), used: used([t.docs[0]?.request_type ?? null], 'request types sent') };
  // The lm-eval importer's words for a task scored by its own code (scored_by_process_results is the flag).
  if (f.predictOnly) {
    // lm-eval's override_metric("bypass") also replaces the task's process_results by the built-in one.
    p.scored_by_process_results = false;
    p.scoring.scoring_path = same(recorded(`none: metrics bypassed (--predict_only), outputs stored only`, '--predict_only'));
    p.scoring.metrics = { configured: c.metric_list === null ? UNKNOWN : yaml(c.metric_list, 'metric_list'), used: used([BYPASS], 'lm-eval’s bypass metric (--predict_only): no metric computed') };
  } else {
    p.scored_by_process_results = c.process_results !== null;
    p.scoring.scoring_path = same(recorded(c.process_results !== null ? 'process_results (task code)' : c.output_type === 'generate_until' ? 'generate + filter + metric' : 'loglikelihood comparison', c.process_results !== null ? 'process_results' : 'output_type'));
    p.scoring.metrics = { configured: c.metric_list === null ? inferred(specs.map((s) => ({ metric: s.metric })), 'no metric_list: lm-eval’s defaults for the output type') : yaml(c.metric_list, 'metric_list'), used: used(specs.map((s) => s.metric), 'metrics computed') };
  }
  p.scoring.filters = { configured: c.filter_list === null ? inferred(pipelines, 'no filter_list: lm-eval applies take_first as filter "none"') : yaml(c.filter_list, 'filter_list'), used: used(pipelines.map((x) => x.name), 'filter pipelines applied') };

  const tpl = f.chatTemplate;
  const delimiters = [...new Set(t.docs.map((d) => d.target_delimiter_used).filter((x) => x !== null))];
  p.chat_template.applied = { configured: flag(f.applyChatTemplate ?? false), used: used(tpl !== null, 'prompts rendered') };
  p.chat_template.text = tpl === null ? same(recorded(null)) : { configured: flag(f.applyChatTemplate), used: used(tpl.source, `chat template from ${tpl.origin}`) };
  p.chat_template.sha256 = same(recorded(tpl === null ? null : tpl.sha256));
  p.chat_template.fewshot_as_multiturn = { configured: flag(f.fewshotAsMultiturn), used: used(t.fewshotAsMultiturn, 'prompts rendered') };
  // The delimiter between prompt and answer that reached the model (chat templates drop it unless gen_prefix needs it).
  p.chat_template.target_delimiter = { configured: yaml(c.target_delimiter, 'target_delimiter'), used: delimiters.length === 0 ? UNKNOWN : used(delimiters.length === 1 ? delimiters[0] : delimiters, 'continuations sent') };

  const systems = [...new Set(t.docs.map((d) => d.system_message))];
  p.system.instruction = same(flag(f.systemInstruction));
  p.system.description = same(recorded(c.description, `${c.source}: description`));
  p.system.message_sent = { configured: UNKNOWN, used: used(systems.length === 1 ? systems[0] : systems, 'system message placed before each prompt (null: none)') };

  const shotCounts = [...new Set(t.docs.map((d) => d.fewshot_doc_ids.length))];
  // A YAML num_fewshot of 0 is what lm-eval configures whatever --num_fewshot says (evaluator.py: "Manual configuration
  // will be ignored"; its configs.<task>.num_fewshot then reads 0): the flag asked, the task's configuration answered.
  const yamlWins = f.numFewshot !== null && c.num_fewshot === 0;
  const configuredShots = f.numFewshot === null ? yaml(c.num_fewshot, 'num_fewshot') : yamlWins ? recorded(0, `${c.source}: num_fewshot 0, which lm-eval keeps over --num_fewshot ${String(f.numFewshot)}`) : flag(f.numFewshot);
  p.fewshot.count = { configured: configuredShots, used: used(shotCounts.length === 1 ? shotCounts[0] : shotCounts, 'few-shot examples in each prompt') };
  p.fewshot.sampler = same(recorded(c.fewshot_config.sampler));
  p.fewshot.seed = same(flag(f.seeds.fewshot));
  p.fewshot.split = same(yaml(c.fewshot_split ?? c.fewshot_config.split, 'fewshot_split'));

  if (c.output_type === 'generate_until') {
    const sent = f.settings.get(c.task) ?? null;
    const configured = recorded({ task: plain(c.generation_kwargs), cli: plain(f.genKwargs) }, `${c.source}: generation_kwargs + --gen_kwargs`);
    p.generation.settings = { configured, used: sent === null ? UNKNOWN : used(lmevalKwargs(sent), sent.doSample ? 'generation kwargs after lm-eval\'s normalisation, sent to the backend (the first repeat seeded with seed, each other with a 32-bit mix of seed and its repeat index)' : 'generation kwargs after lm-eval\'s normalisation, sent to the backend') };
    const stops = o === null ? null : uniqueJson(o.stopUsed);
    p.generation.stop_sequences = { configured: used(sent?.until ?? null, 'until after --gen_kwargs'), used: stops === null ? UNKNOWN : used(stops.length === 1 ? stops[0] : stops, 'stop sequences the backend applied') };
    const merged = { ...(c.generation_kwargs ?? {}), ...(f.genKwargs ?? {}) };
    // The alias lm-eval's normalize_gen_kwargs takes: the first by priority that is given and not null.
    const maxKey = lmevalMaxTokenKey(merged);
    p.generation.max_tokens = { configured: maxKey === undefined ? UNKNOWN : recorded(plain(merged[maxKey]), 'generation_kwargs + --gen_kwargs'), used: sent === null ? UNKNOWN : used(sent.maxGenToks, 'max tokens applied (lm-eval default 256)') };
    const added = stops === null || sent === null ? null : [...new Set(stops.flat().filter((s) => !sent.until.includes(s)))];
    p.generation.backend_additions = { configured: UNKNOWN, used: added === null ? UNKNOWN : used({ stop_sequences: added, bos_added: f.description.addsBos }, 'backend') };
  } else {
    // Nothing was generated: the settings are known to be none (null), not unknown.
    const none = recorded(null, `${c.output_type}: no generation`);
    p.generation.settings = same(none);
    p.generation.stop_sequences = same(none);
    p.generation.max_tokens = same(none);
    p.generation.backend_additions = { configured: UNKNOWN, used: used({ bos_added: f.description.addsBos }, 'backend') };
  }

  p.repeats.repeats = same(yaml(c.repeats, 'repeats'));
  p.repeats.aggregation = same(recorded({ per_metric: Object.fromEntries(specs.map((s) => [s.metric, s.aggregation])), bootstrap_iters: BOOTSTRAP_ITERS, arithmetic: 'CPython 3.11 sum (left fold)' }));
  p.samples.limit = same(flag(f.limit));
  p.samples.document_count = { configured: recorded({ original: t.evalDocCount, effective: t.docs.length }), used: used(t.docs.length, 'documents sent') };
  p.samples.document_ids = same(recorded(t.docs.map((d) => String(d.doc_id))));
  if (o !== null) {
    p.failures.errors = same(used(o.errors, 'requests that failed'));
    p.failures.empty_answers = same(used(o.emptyAnswers, 'generated texts that are empty'));
    p.failures.truncations = same(used({ requests: o.truncatedRequests, tokens_dropped: o.truncatedTokens }, 'backend usage: context tokens dropped to fit max_length'));
    p.failures.in_denominator = same(recorded(true, 'every document is scored; none is skipped'));
  }
  return p;
}

/** The settings sent, spelled as lm-eval's normalize_gen_kwargs returns them, so configured and used compare key by key. */
function lmevalKwargs(g: GenerationSettings): Record<string, unknown> {
  return {
    ...g.extra,
    until: g.until,
    do_sample: g.doSample,
    temperature: g.temperature ?? 0,
    ...(g.topP !== null && { top_p: g.topP }),
    ...(g.topK !== null && { top_k: g.topK }),
    ...(g.seed !== null && { seed: g.seed }),
    max_gen_toks: g.maxGenToks,
  };
}

function uniqueJson<T>(xs: readonly T[]): T[] {
  const seen = new Map<string, T>();
  for (const x of xs) seen.set(dumpsPy(x), x);
  return [...seen.values()];
}

/** The settings a resume must match, each as text (so that 1 and 1.0 differ as they do for Python). */
export function configFingerprint(parts: Record<string, unknown>): Record<string, string> {
  return Object.fromEntries(Object.entries(parts).map(([k, v]) => [k, typeof v === 'string' ? v : dumpsPy(v ?? null)]));
}

export function pyVersionString(v: unknown): string {
  return v === null || v === undefined ? 'Yaml' : pyStrOf(v);
}

export type { Setting };
