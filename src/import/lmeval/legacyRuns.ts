/**
 * Runs from the formats before 0.4: a v0.3 `--write_out` file (one task, no results
 * file beside it: the console log that holds its numbers is plain text), and a 2022
 * BigScience fork agg/slim/examples set (one evaluation per promptsource template).
 */
import { emptyRunProvenance, emptyTaskProvenance, inferred, recorded, same, type RecordNote, type SourceFile } from '../../store/schema.ts';
import { isPlainObject } from '../../util/json.ts';
import type { ImportOptions, ImportedRun, SkippedRecord } from '../types.ts';
import { checkSamples } from './checks.ts';
import { checkBigscienceResults } from './resultsShape.ts';
import { BIGSCIENCE_TEMPLATE_FIELDS, readBigscienceExamples, readWriteOutFile } from './legacyRecords.ts';
import { pyDumps, toValue } from '../../py/orderedJson.ts';
import type { RunGroup } from './pairing.ts';
import { fillRunProvenance } from './resultsProvenance.ts';
import { appendRows, emptyRows, readResultsJson, runIdOf, sourceFile, tablesOf, verbatim } from './runCommon.ts';
import { buildTaskRows } from './sampleRows.ts';
import { pushTo } from '../../util/groupBy.ts';

type Json = Record<string, unknown>;

export async function importWriteOutRun(group: Extract<RunGroup, { kind: 'write-out' }>, options: ImportOptions): Promise<ImportedRun> {
  const skipped: SkippedRecord[] = [];
  const task = group.file.name.replace(/_write_out_info\.json$/, '').replace(/\.json$/, '');
  const files = [await sourceFile(group.file, `write_out:${task}`)];
  const runId = runIdOf(files);
  const lines = await readWriteOutFile(group.file.path, options, skipped);
  const first = lines[0]?.resps[0]?.[0];
  const requestType = first?.k === 'str' ? 'generate_until' : 'loglikelihood';
  const rows = buildTaskRows({ runId, task, requestType, targetDelimiter: null }, lines);
  const prov = emptyRunProvenance({ run_id: runId, label: group.file.path, source_kind: 'lm-eval', source_format: 'lm-eval v0.3 write_out' });
  prov.harness.name = same(recorded('lm-evaluation-harness', 'file format'));
  prov.harness.version = same(inferred('v0.3.x', 'write_out layout: prompt_i/logit_i/truth records'));
  prov.records.files = same(recorded(files, 'the files imported'));
  const t = emptyTaskProvenance();
  t.task.name = same(inferred(task, `file name ${group.file.name} without _write_out_info.json`));
  const choices = Math.max(0, ...lines.map((l) => l.requests.length));
  const outputType = requestType === 'generate_until' ? 'generate_until' : choices > 1 ? 'multiple_choice' : 'loglikelihood';
  t.scoring.output_type = same(inferred(outputType, requestType === 'generate_until' ? 'logit_0 holds generated text' : `logit_i hold log-probabilities of ${choices} request(s) per document`));
  t.scoring.metrics = same(recorded([...new Set(lines.flatMap((l) => l.metricValues.map(([m]) => m)))], 'record fields other than doc_id/prompt_i/logit_i/truth'));
  t.samples.document_count = same(inferred(new Set(lines.map((l) => l.docId)).size, 'records in the file'));
  t.samples.document_ids = same(recorded(lines.map((l) => l.docId), 'doc_id'));
  t.repeats.repeats = same(inferred(1, 'write_out records one response per request'));
  prov.tasks[task] = t;
  const notes: RecordNote[] = checkSamples({ task, file: group.file.path, lines, taskHash: null, expectedDocs: null });
  const stringValues = lines.flatMap((l) => l.metricValues).filter(([, v]) => v.k === 'str').length;
  if (stringValues > 0) {
    notes.push({ task, kind: 'string_metric_values', message: `${stringValues} per-sample metric values are recorded as strings ("True", "0.5"); value holds their numeric reading, value_json the recording`, evidence: [] });
  }
  notes.push(writeOutPromptNote(task, requestType, lines));
  notes.push({ task, kind: 'no_results_file', message: 'v0.3 write_out files have no results file; the aggregate numbers, if any, are in a console log (plain text), which is not imported', evidence: [] });
  prov.notes = notes;
  return { provenance: prov, tables: tablesOf(rows), skipped };
}

/**
 * lm-eval v0.3 wrote `prompt_i` as "".join(map(lambda x: "".join(x), req.args)) (evaluator.py): a log-likelihood
 * request's context followed by its continuation, a greedy_until request's context followed by its generation
 * arguments joined — a list of stops joins the stops, a dict joins its keys ("until"). The context the model was sent
 * is a prefix whose end the file does not mark: a prompt shown or compared is that whole join.
 */
function writeOutPromptNote(task: string, requestType: string, lines: readonly { requests: { context: string | null }[] }[]): RecordNote {
  const prompts = lines.flatMap((l) => l.requests.map((r) => r.context ?? ''));
  const what =
    requestType === 'generate_until'
      ? `its generation arguments joined (a dict of them joins its keys: ${prompts.filter((p) => p.endsWith('until')).length} of ${prompts.length} prompts here end in "until")`
      : 'the continuation scored';
  return {
    task,
    kind: 'write_out_prompt',
    message: `prompt_i is v0.3's "".join over each request's arguments: the context followed by ${what}; the context the model was sent is a prefix of it whose end the file does not mark, so prompts shown and compared are that whole text`,
    evidence: [],
  };
}

export async function importBigscienceRun(group: Extract<RunGroup, { kind: 'bigscience' }>, options: ImportOptions): Promise<ImportedRun> {
  const skipped: SkippedRecord[] = [];
  const files: SourceFile[] = [];
  for (const r of group.results) files.push(await sourceFile(r, r.name.startsWith('slim-') ? 'results (slim view)' : 'results'));
  for (const e of group.examples) files.push(await sourceFile(e, 'examples'));
  const runId = runIdOf(files);
  const notes: RecordNote[] = [];
  const full = group.results.find((r) => !r.name.startsWith('slim-')) ?? group.results[0];
  const results: Json = full ? await readResultsJson(full, checkBigscienceResults) : {};
  const entries = Array.isArray(results.results) ? results.results.filter(isPlainObject) : [];
  const prov = emptyRunProvenance({ run_id: runId, label: (full ?? group.examples[0]!).path, source_kind: 'lm-eval', source_format: 'lm-eval BigScience fork (2022)' });
  fillRunProvenance(prov, { config: results.config }, null);
  prov.harness.name = same(recorded('lm-evaluation-harness (BigScience promptsource fork)', 'file format'));
  prov.harness.version = same(inferred('BigScience fork, 2022', "results is a list of one-metric dicts with prompt_name/prompt_jinja; examples-*.jsonl"));
  prov.records.files = same(recorded(files, 'the files imported'));

  const TEMPLATE = new Set<string>(['task_name', ...BIGSCIENCE_TEMPLATE_FIELDS]);
  for (const e of entries) {
    const task = `${String(e.dataset_name ?? e.task_name)}+${String(e.prompt_name)}`;
    const reported = (prov.reported[task] ??= {});
    for (const [k, v] of Object.entries(e)) if (!TEMPLATE.has(k)) reported[k] = verbatim(v);
  }
  for (const slim of group.results.filter((r) => r !== full)) {
    const other = await readResultsJson(slim, checkBigscienceResults);
    const differ: string[] = [];
    for (const e of Array.isArray(other.results) ? other.results.filter(isPlainObject) : []) {
      const task = `${String(e.dataset_name ?? e.task_name)}+${String(e.prompt_name)}`;
      for (const [k, v] of Object.entries(e)) {
        if (TEMPLATE.has(k)) continue;
        if (prov.reported[task]?.[k] !== verbatim(v)) differ.push(`${task} ${k}: slim ${String(v)}, agg ${String(prov.reported[task]?.[k])}`);
      }
    }
    notes.push(differ.length === 0
      ? { task: null, kind: 'slim_results_agree', message: `${slim.name} repeats the numbers of ${full?.name} exactly`, evidence: [] }
      : { task: null, kind: 'slim_results_differ', message: `${slim.name} disagrees with ${full?.name}`, evidence: differ });
  }

  const rows = emptyRows();
  const config = isPlainObject(results.config) ? results.config : {};
  for (const file of group.examples) {
    const lines = await readBigscienceExamples(file.path, options, skipped);
    const byTask = new Map<string, typeof lines>();
    for (const l of lines) pushTo(byTask, l.task, l);
    for (const [task, taskLines] of byTask) {
      const built = buildTaskRows({ runId, task, requestType: 'generate_until', targetDelimiter: null }, taskLines.map((l) => l.sample));
      const fewshotByDoc = new Map(taskLines.map((l) => [l.sample.docId, l.fewshotIds === null ? null : pyDumps(l.fewshotIds)]));
      for (const r of built.instances) r.fewshot_doc_ids = fewshotByDoc.get(r.doc_id) ?? null;
      appendRows(rows, built);
      const template = taskLines[0]!.template;
      const t = emptyTaskProvenance();
      t.task.name = same(inferred(task, 'dataset_name + "+" + prompt_name of the examples (one evaluation per promptsource template)'));
      if (template.dataset_path) t.task.dataset_path = same(recorded(toValue(template.dataset_path), 'examples dataset_path'));
      if (template.dataset_name) t.task.dataset_name = same(recorded(toValue(template.dataset_name), 'examples dataset_name'));
      t.scoring.output_type = same(inferred('generate_until', "examples record generated text in 'pred'"));
      t.scoring.metrics = same(recorded(Object.keys(prov.reported[task] ?? {}), 'agg results entries'));
      t.fewshot.count = same(config.num_fewshot === undefined ? inferred(null, 'not recorded') : recorded(config.num_fewshot, 'config.num_fewshot'));
      t.samples.limit = same(config.limit === undefined ? inferred(null, 'not recorded') : recorded(config.limit, 'config.limit'));
      t.samples.document_count = same(inferred(new Set(taskLines.map((l) => l.sample.docId)).size, 'examples lines for this template'));
      t.samples.document_ids = same(recorded(taskLines.map((l) => l.sample.docId), 'examples doc_id'));
      prov.tasks[task] = t;
      notes.push({ task, kind: 'prompt_template', message: 'the promptsource template the examples were rendered with', evidence: Object.entries(template).map(([k, v]) => `${k}: ${pyDumps(v)}`) });
      notes.push(...checkSamples({ task, file: file.path, lines: taskLines.map((l) => l.sample), taskHash: null, expectedDocs: null }));
    }
  }
  for (const task of Object.keys(prov.reported)) {
    if (prov.tasks[task] === undefined) {
      const t = emptyTaskProvenance();
      t.task.name = same(recorded(task, 'agg results dataset_name + prompt_name'));
      prov.tasks[task] = t;
    }
  }
  prov.notes = notes;
  return { provenance: prov, tables: tablesOf(rows), skipped };
}
