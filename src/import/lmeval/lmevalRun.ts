/**
 * One lm-eval run (0.4.x, or v0.3 results without samples): a results file and the
 * samples files paired with it, or a samples file alone. Builds the store rows, the
 * provenance block, `reported` and the consistency notes.
 */
import { emptyRunProvenance, inferred, recorded, same, UNKNOWN as UNKNOWN_FACT, type RecordNote, type SourceFile } from '../../store/schema.ts';
import { BadInputError } from '../../errors.ts';
import { isPlainObject } from '../../util/json.ts';
import type { ImportOptions, ImportedRun, SkippedRecord } from '../types.ts';
import { OneTaskRecords, SampleChecks } from './checks.ts';
import { modelArgsFromSamplesName, type RunGroup } from './pairing.ts';
import { fillRunProvenance, modelArgsOf, taskProvenance, type SamplesShape, type TaskFacts } from './resultsProvenance.ts';
import { runIdOf, sourceFile, verbatim } from './runCommon.ts';
import { forEachSampleLine, type SampleLine } from './sampleLine.ts';
import { inferRequestType, requestTypeOf, TaskRowBuilder, type TaskRowSink } from './sampleRows.ts';
import { openPartedStager } from '../../store/partedTable.ts';
import { openRowRunStager } from '../../store/rowRunStager.ts';
import { pyDumps } from '../../py/orderedJson.ts';

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
  const facts = new Map<string, TaskFacts>();
  let shape: SamplesShape | null = null;

  // Rows go into DuckDB as each record is read (a samples file may be gigabytes).
  const stagers = await openRunStagers();
  let tables: ImportedRun['tables'];
  try {
    for (const s of group.samples) {
      const cfg = obj(configs[s.task]);
      const configured = requestTypeOf(cfg.output_type);
      const delimiter = cfg.output_type === 'multiple_choice' ? (typeof cfg.target_delimiter === 'string' ? cfg.target_delimiter : ' ') : null;
      const nsamples = obj(obj(res['n-samples'])[s.task]);
      const limit = obj(res.config).limit;
      const checks = new SampleChecks({
        task: s.task,
        file: s.probe.path,
        taskHash: typeof obj(res.task_hashes)[s.task] === 'string' ? (obj(res.task_hashes)[s.task] as string) : null,
        expectedDocs: typeof nsamples.effective === 'number' ? { value: nsamples.effective, from: `n-samples.${s.task}.effective` }
          : typeof limit === 'number' && limit >= 1 ? { value: Math.trunc(limit), from: 'config.limit' } : null,
      });
      // Without a config, the first record says what kind of request the task made.
      const reading = { builder: null as TaskRowBuilder | null, facts: new TaskFactsCollector(configured ?? 'unknown') };
      const oneTask = new OneTaskRecords(s.probe.path);
      await forEachSampleLine(s.probe, options, skipped, (line) => {
        oneTask.add(line);
        if (reading.builder === null) {
          const requestType = configured ?? inferRequestType(line);
          reading.builder = new TaskRowBuilder({ runId, task: s.task, requestType, targetDelimiter: delimiter }, stagers.sink);
          reading.facts = new TaskFactsCollector(requestType);
          shape ??= shapeOf(line);
        }
        reading.facts.add(line, reading.builder.add(line));
        checks.add(line);
        return stagers.due ? stagers.rotate() : undefined;
      });
      if (reading.builder === null && !skipped.some((k) => k.file === s.probe.path)) {
        throw new BadInputError(s.probe.head.trimStart().startsWith('[') ? 'the samples file is an empty JSON array: no records' : 'the samples file holds no records', { file: s.probe.path });
      }
      facts.set(s.task, reading.facts.facts());
      notes.push(...checks.notes());
      if (s.taskFrom === 'file name' && group.results !== null && !(s.task in configs) && !(s.task in obj(res.results))) {
        notes.push({ task: s.task, kind: 'task_not_in_results', message: `samples file ${s.probe.name} names task '${s.task}', which the results file does not list`, evidence: [] });
      }
    }
    tables = await stagers.finish();
  } catch (error) {
    await stagers.abort();
    throw error;
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
  return { provenance: prov, tables, skipped };
}

function formatName(group: Extract<RunGroup, { kind: 'lmeval' }>, res: Json): string {
  const parts: string[] = [];
  if (group.results !== null) parts.push(isPlainObject(res.configs) ? 'results' : 'v0.3 results');
  if (group.samples.length > 0) parts.push('samples');
  return `lm-eval ${parts.join('+')}`;
}

function shapeOf(first: SampleLine): SamplesShape {
  return { arguments: first.requests[0]?.shape ?? null, hashes: first.docHash !== null, filterKey: first.filter !== null };
}

/** What the provenance block says of a task's records, gathered record by record. */
class TaskFactsCollector {
  private readonly docs: string[] = [];
  private readonly gen = new Map<string, unknown>();
  private maxRepeats = 0;
  private empty = 0;
  private readonly filters: string[] = [];
  private readonly metrics: string[] = [];

  constructor(private readonly requestType: string) {}

  /** `firstOfDocument`: the row builder's word (its set of documents seen is the one set kept; a file may hold a million). */
  add(l: SampleLine, firstOfDocument: boolean): void {
    const f = l.filter ?? 'none';
    if (!this.filters.includes(f)) this.filters.push(f);
    for (const [m] of l.metricValues) if (!this.metrics.includes(m)) this.metrics.push(m);
    if (!firstOfDocument) return;
    this.docs.push(l.docId);
    for (const r of l.requests) {
      if (r.genKwargs === null) continue;
      const json = pyDumps(r.genKwargs);
      if (!this.gen.has(json)) this.gen.set(json, JSON.parse(json.replace(/\bNaN\b|-?\bInfinity\b/g, 'null')));
    }
    for (const reps of l.resps) {
      this.maxRepeats = Math.max(this.maxRepeats, reps.length);
      if (this.requestType === 'generate_until') this.empty += reps.filter((r) => r.k === 'str' && r.v === '').length;
    }
  }

  facts(): TaskFacts {
    return {
      documents: this.docs.length,
      documentIds: this.docs,
      genKwargsUsed: [...this.gen.values()],
      maxRepeats: this.maxRepeats,
      requestTypes: [this.requestType],
      filtersSeen: this.filters,
      metricsSeen: this.metrics,
      emptyAnswers: this.requestType === 'generate_until' ? this.empty : null,
    };
  }
}

/**
 * The run's four store tables, filled as records are read and written out in parts as they
 * fill (partedTable.ts): `due` after a record means a part is full and `rotate` must be awaited.
 */
async function openRunStagers(): Promise<{
  sink: TaskRowSink;
  readonly due: boolean;
  rotate(): Promise<void>;
  finish(): Promise<ImportedRun['tables']>;
  abort(): Promise<void>;
}> {
  const instances = await openPartedStager('instances');
  const responses = await openPartedStager('responses');
  const scores = await openRowRunStager('scores', ['run_id', 'task', 'doc_id', 'filter']);
  const filtered = await openPartedStager('filtered');
  const all = [instances.parted, responses.parted, scores.parted, filtered.parted];
  return {
    sink: {
      instances: (row) => instances.add(row),
      responses: (row) => responses.add(row),
      scores: (s) => scores.add(s.shared, [s.metrics, s.values, s.valueJsons]),
      filtered: (row) => filtered.add(row),
    },
    get due() {
      return all.some((t) => t.due);
    },
    async rotate() {
      for (const t of all) if (t.due) await t.rotate();
    },
    finish: async () => ({
      instances: await instances.parted.finish(),
      responses: await responses.parted.finish(),
      scores: await scores.parted.finish(),
      filtered: await filtered.parted.finish(),
    }),
    abort: async () => {
      for (const t of all) await t.abort();
    },
  };
}
