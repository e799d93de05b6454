/**
 * One lm-eval run (0.4.x, or v0.3 results without samples): a results file and the
 * samples files paired with it, or a samples file alone. Builds the store rows, the
 * provenance block, `reported` and the consistency notes.
 */
import { emptyRunProvenance, inferred, recorded, same, UNKNOWN as UNKNOWN_FACT, type RecordNote, type SourceFile } from '../../store/schema.ts';
import { isPlainObject } from '../../util/json.ts';
import type { ImportOptions, ImportedRun, SkippedRecord } from '../types.ts';
import { checkSamples } from './checks.ts';
import { modelArgsFromSamplesName, type RunGroup } from './pairing.ts';
import { fillRunProvenance, modelArgsOf, taskProvenance, type SamplesShape, type TaskFacts } from './resultsProvenance.ts';
import { appendRows, emptyRows, runIdOf, sourceFile, tablesOf, verbatim } from './runCommon.ts';
import { readSamplesFile, type SampleLine } from './sampleLine.ts';
import { buildTaskRows, inferRequestType, requestTypeOf } from './sampleRows.ts';
import { pyDumps } from '../../util/orderedJson.ts';

type Json = Record<string, unknown>;
const obj = (v: unknown): Json => (isPlainObject(v) ? v : {});

export async function importLmevalRun(
  group: Extract<RunGroup, { kind: 'lmeval' }>,
  results: Json | null,
  options: ImportOptions,
): Promise<ImportedRun> {
  const skipped: SkippedRecord[] = [];
  const files: SourceFile[] = [];
  if (group.results !== null) files.push(await sourceFile(group.results, isPlainObject(results?.configs) ? 'results' : 'results (v0.3)'));
  for (const s of group.samples) files.push(await sourceFile(s.probe, `samples:${s.task}`));
  const runId = runIdOf(files);
  const res = results ?? {};
  const configs = obj(res.configs);
  const notes: RecordNote[] = [];
  const rows = emptyRows();
  const facts = new Map<string, TaskFacts>();
  let shape: SamplesShape | null = null;

  for (const s of group.samples) {
    const lines = await readSamplesFile(s.probe.path, options, skipped);
    const cfg = obj(configs[s.task]);
    const requestType = requestTypeOf(cfg.output_type) ?? (lines[0] ? inferRequestType(lines[0]) : 'unknown');
    const delimiter = cfg.output_type === 'multiple_choice' ? (typeof cfg.target_delimiter === 'string' ? cfg.target_delimiter : ' ') : null;
    appendRows(rows, buildTaskRows({ runId, task: s.task, requestType, targetDelimiter: delimiter }, lines));
    facts.set(s.task, factsOf(lines, requestType));
    shape ??= shapeOf(lines);
    const nsamples = obj(obj(res['n-samples'])[s.task]);
    const limit = obj(res.config).limit;
    notes.push(
      ...checkSamples({
        task: s.task,
        file: s.probe.path,
        lines,
        taskHash: typeof obj(res.task_hashes)[s.task] === 'string' ? (obj(res.task_hashes)[s.task] as string) : null,
        expectedDocs: typeof nsamples.effective === 'number' ? { value: nsamples.effective, from: `n-samples.${s.task}.effective` }
          : typeof limit === 'number' && limit >= 1 ? { value: Math.trunc(limit), from: 'config.limit' } : null,
      }),
    );
    if (s.taskFrom === 'file name' && group.results !== null && !(s.task in configs) && !(s.task in obj(res.results))) {
      notes.push({ task: s.task, kind: 'task_not_in_results', message: `samples file ${s.probe.name} names task '${s.task}', which the results file does not list`, evidence: [] });
    }
  }

  const label = group.results?.path ?? group.samples[0]!.probe.path;
  const prov = emptyRunProvenance({ run_id: runId, label, source_kind: 'lm-eval', source_format: formatName(group, res) });
  fillRunProvenance(prov, results ?? null, shape);
  const named = results === null ? modelArgsFromSamplesName(group.samples[0]!.probe.name) : null;
  if (named !== null) {
    const how = `from the samples file name ${group.samples[0]!.probe.name} (≤0.4.2 names samples after model_args)`;
    prov.model.args = same(inferred(modelArgsOf(named), how));
    const id = modelArgsOf(named).pretrained ?? modelArgsOf(named).model;
    if (id !== undefined) prov.model.model_id = same(inferred(id, how));
  }
  prov.records.files = same(recorded(files, 'the files imported'));
  const taskNames = new Set([...Object.keys(obj(res.results)), ...Object.keys(configs), ...group.samples.map((s) => s.task)]);
  for (const task of taskNames) {
    const block = taskProvenance(task, res, facts.get(task) ?? null);
    const s = group.samples.find((x) => x.task === task);
    if (!(task in configs) && !(task in obj(res.results)) && s !== undefined) {
      block.task.name = same(inferred(task, `from the samples file name ${s.probe.name}`));
    }
    prov.tasks[task] = block;
  }
  // Group structure: kept on the group's own block (repeats.group_weighting), the only per-task home the schema has.
  for (const [group, subtasks] of Object.entries(obj(res.group_subtasks))) {
    if (!Array.isArray(subtasks) || subtasks.length === 0) continue;
    prov.tasks[group] ??= taskProvenance(group, res, null);
    prov.tasks[group].repeats.group_weighting = {
      configured: recorded({ subtasks }, `group_subtasks.${group}`),
      used: UNKNOWN_FACT,
    };
  }
  for (const [task, values] of Object.entries(obj(res.results))) prov.reported[task] = verbatim(values) as Json;
  const nonFinite = Object.entries(obj(res.results)).flatMap(([task, v]) =>
    Object.entries(obj(v)).filter(([, x]) => typeof x === 'number' && !Number.isFinite(x)).map(([k, x]) => `${task}: "${k}": ${String(x)}`));
  if (nonFinite.length > 0) {
    notes.push({ task: null, kind: 'non_finite_reported', message: 'the results file holds bare NaN/Infinity tokens (not valid JSON); kept in reported as the strings "NaN"/"Infinity"', evidence: nonFinite });
  }
  if (Object.values(obj(res.group_subtasks)).some((subs) => Array.isArray(subs) && subs.length > 0)) {
    notes.push({ task: null, kind: 'groups', message: 'group structure as recorded (group_subtasks)', evidence: Object.entries(obj(res.group_subtasks)).map(([g, subs]) => `${g}: ${JSON.stringify(subs)}`) });
  }
  prov.notes = notes;
  return { provenance: prov, tables: tablesOf(rows), skipped };
}

function formatName(group: Extract<RunGroup, { kind: 'lmeval' }>, res: Json): string {
  const parts: string[] = [];
  if (group.results !== null) parts.push(isPlainObject(res.configs) ? 'results' : 'v0.3 results');
  if (group.samples.length > 0) parts.push('samples');
  return `lm-eval ${parts.join('+')}`;
}

function shapeOf(lines: readonly SampleLine[]): SamplesShape | null {
  const first = lines[0];
  if (first === undefined) return null;
  return { arguments: first.requests[0]?.shape ?? null, hashes: first.docHash !== null, filterKey: first.filter !== null };
}

function factsOf(lines: readonly SampleLine[], requestType: string): TaskFacts {
  const docs: string[] = [];
  const seen = new Set<string>();
  const gen = new Map<string, unknown>();
  let maxRepeats = 0;
  let empty = 0;
  const filters: string[] = [];
  const metrics: string[] = [];
  for (const l of lines) {
    const f = l.filter ?? 'none';
    if (!filters.includes(f)) filters.push(f);
    for (const [m] of l.metricValues) if (!metrics.includes(m)) metrics.push(m);
    if (seen.has(l.docId)) continue;
    seen.add(l.docId);
    docs.push(l.docId);
    for (const r of l.requests) if (r.genKwargs !== null) gen.set(pyDumps(r.genKwargs), JSON.parse(pyDumps(r.genKwargs).replace(/\bNaN\b|-?\bInfinity\b/g, 'null')));
    for (const reps of l.resps) {
      maxRepeats = Math.max(maxRepeats, reps.length);
      if (requestType === 'generate_until') empty += reps.filter((r) => r.k === 'str' && r.v === '').length;
    }
  }
  return {
    documents: docs.length,
    documentIds: docs,
    genKwargsUsed: [...gen.values()],
    maxRepeats,
    requestTypes: [requestType],
    filtersSeen: filters,
    metricsSeen: metrics,
    emptyAnswers: requestType === 'generate_until' ? empty : null,
  };
}
