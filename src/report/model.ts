/**
 * What an audit appendix holds, independent of format: the disclosure table
 * per run and task, the rescoring matrix (cells, standard errors, intervals,
 * spread), the falsifier, and with --against the diff, paired statistics per
 * recorded score and per rescoring cell. Every format renders this one object;
 * JSON is this object.
 */
import type { DeclaredFalsifierResult } from '../audit/declaredFalsifier.ts';
import { summary, type DiffResult, type RunSummary } from '../audit/diff.ts';
import { selectRuns } from '../audit/runPairs.ts';
import { singleRunFalsifier, type Falsifier } from '../audit/falsifier.ts';
import { loadDocs, type DocRecord } from '../audit/itemJoin.ts';
import { isScoreKey, stderrKeyOf } from '../audit/reportedStderr.ts';
import { queryRows, sqlString } from '../util/duckdb.ts';
import { pyFloatRepr } from '../py/float.ts';
import { isHelmBookkeepingStat } from '../formats/helmStats.ts';
import type { PairedOptions } from '../audit/pairedStats.ts';
import { disclosureCounts, effectiveFact, itemGroup } from '../audit/provenanceView.ts';
import { diffSettings } from '../audit/settingsDiff.ts';
import { findImpossible, type ImpossibleFinding } from '../audit/cannotBeRight.ts';
import { taskCode } from '../audit/taskCode.ts';
import type { OpenStore } from '../store/readStore.ts';
import { AGENT_FIELDS, DISCLOSURE_FIELDS, type AgentField, type DisclosureItem, type Fact, type RunProvenance } from '../store/schema.ts';
import { computeMatrix, type ScopeResult } from '../score/matrix.ts';
import { buildTables, type AuditTable } from '../audit/table.ts';
import { agentSweeps, type AgentSweep } from '../score/agents/sweep.ts';
import type { AsRecordedSection } from '../score/asRecorded.ts';
import { asRecordedDetails, reproducedCell, reproducedResults } from './asRecordedView.ts';

export const REPORT_VERSION = 1;

export interface DisclosureField {
  field: string;
  status: 'recorded' | 'inferred' | 'unknown';
  value?: unknown;
  how?: string;
}

export interface DisclosureRow {
  item: DisclosureItem;
  recorded: boolean;
  known: number;
  fields: number;
  detail: DisclosureField[];
}

/** One agent setting (RunProvenance.agent): the value it effectively had, and the configured one where that differs. */
export interface AgentSettingRow extends DisclosureField {
  field: AgentField;
  configured?: DisclosureField;
}

export interface DisclosureTable {
  run: RunSummary;
  task: string | null;
  /** How many of the disclosure items (DISCLOSURE_ITEMS) the source recorded (any field known). */
  recordedItems: number;
  rows: DisclosureRow[];
  /** Agent runs: every agent setting (AGENT_FIELDS), `unknown` where the records do not say. Null for other runs. */
  agent: AgentSettingRow[] | null;
  /** The importer's notes on inconsistencies inside the records. */
  notes: { kind: string; message: string }[];
}

/** The answer first: one row per run and task. */
export interface SummaryRow {
  run_id: string;
  label: string;
  task: string;
  /** The source's own numbers: every 'metric,filter' it reported, with its stderr (values verbatim: NaN, strings, null kept). */
  reported: { score: string; value: unknown; stderr: unknown }[];
  /** Lowest and highest cell of the rescoring matrix (null: no matrix for this task, or no scored cell). */
  spread: { lowest: number; lowestCell: string; highest: number; highestCell: string; caution?: string | null } | null;
  /** Why there is no spread, when there is none. */
  spreadNote: string | null;
  falsifier: Falsifier['status'];
  /** The falsifier is the comparison's with --against (else this run's alone). */
  falsifierAgainst: boolean;
  disclosure: { recorded: number; of: number };
  cannotBeRight: string[];
  /** Whether the numbers the source reported for the task come back from its stored samples (asRecordedView.ts). */
  reproduced: string;
}

export interface ReportData {
  report_version: number;
  tool: string;
  title: string;
  subject: { location: string; runs: RunSummary[] };
  /** Per task: reported score ± stderr, reading spread, falsifier status, disclosure count. */
  summary: SummaryRow[];
  /** Findings that make a run wrong whatever it is compared with. */
  cannotBeRight: ImpossibleFinding[];
  disclosure: DisclosureTable[];
  /** Tasks left out of the detailed disclosure tables (they are in the matrix and JSON). */
  disclosureOmittedTasks: number;
  matrix: ScopeResult[];
  /** The source's own scoring rules re-applied to its stored outputs (`rescore --extractors as-recorded`). */
  asRecorded: (AsRecordedSection & { details: string[] })[];
  /** Why there is no as-recorded section when reproducing failed (null otherwise). */
  asRecordedNote: string | null;
  /** With several runs: the table across them (runs × reading rules; src/audit/table.ts). */
  tables: AuditTable[];
  /** Agent runs: the denominator sweep, their analogue of the matrix (src/score/agents). */
  agentSweeps: AgentSweep[];
  /** Why the matrix is empty when rescoring could not run (null otherwise). */
  matrixNote: string | null;
  /** A few items per task, as recorded: what the model saw and said (untrusted text, shown escaped). */
  samples: {
    run_id: string;
    task: string;
    items: {
      doc_id: string;
      prompt_tail: string | null;
      output: string;
      target: string | null;
      scores: Record<string, number | null>;
      /** A recorded value that is not a number (a string, a pair, an extra field's JSON), as recorded: its score is null. */
      recorded_json: Record<string, string>;
    }[];
  }[];
  falsifiers: { run_id: string; task: string; falsifier: Falsifier }[];
  comparison: DiffResult | null;
  declared: DeclaredFalsifierResult | null;
  options: { iterations: number; seed: number; alpha: number };
}

/** Tasks per run shown in full in the disclosure section (the rest are counted). */
const DISCLOSURE_TASKS = 5;
/**
 * A response as its harness recorded it: the text, or a loglikelihood answer as the (logprob, is_greedy) pair lm-eval
 * writes, in Python's float repr ('-9.536740890325746e-07', not JavaScript's '-9.536740890325746e-7').
 */
function responseText(r: DocRecord['responses'][number]): string {
  if (r.text !== null) return r.text;
  if (r.logprob === null) return '';
  return r.isGreedy === null ? pyFloatRepr(r.logprob) : `(${pyFloatRepr(r.logprob)}, ${r.isGreedy ? 'True' : 'False'})`;
}

/** Items shown per task in the samples section. */
const SAMPLE_ITEMS = 3;

function disclosureField(field: string, fact: Fact): DisclosureField {
  if (fact.status === 'unknown') return { field, status: 'unknown' };
  return fact.status === 'inferred' ? { field, status: 'inferred', value: fact.value, how: fact.how } : { field, status: 'recorded', value: fact.value, how: fact.from };
}

function agentSettings(run: RunProvenance): AgentSettingRow[] | null {
  if (run.agent === undefined) return null;
  return AGENT_FIELDS.map((field) => {
    const setting = run.agent![field];
    const row: AgentSettingRow = { ...disclosureField(field, effectiveFact(setting)), field };
    const configured = setting?.configured;
    if (configured !== undefined && configured.status !== 'unknown' && setting!.used.status !== 'unknown' && JSON.stringify(configured.value) !== JSON.stringify(setting!.used.value)) {
      row.configured = disclosureField(field, configured);
    }
    return row;
  });
}

function disclosureTable(run: RunProvenance, task: string | null): DisclosureTable {
  const counts = disclosureCounts(run, task);
  const rows = counts.map((c) => {
    const group = itemGroup(run, task, c.item);
    const detail = (DISCLOSURE_FIELDS[c.item] as readonly string[]).map((field) => disclosureField(field, effectiveFact(group[field])));
    return { item: c.item, recorded: c.recorded, known: c.known, fields: c.fields, detail };
  });
  return {
    run: summary(run),
    task,
    recordedItems: counts.filter((c) => c.recorded).length,
    rows,
    agent: agentSettings(run),
    notes: run.notes.filter((n) => n.task === null || n.task === task).map((n) => ({ kind: n.kind, message: n.message })),
  };
}

export interface BuildOptions extends PairedOptions {
  title?: string;
  /** Report only the runs of the store this selector picks (as `--run-a`). */
  runSelector?: string;
}

/**
 * The recorded JSON of the sample items' scores that hold no number (truthfulqa_gen's extra field 'hallucination' is
 * "truthful"): shown as recorded, not as a missing value.
 */
async function nonNumericScores(store: OpenStore, runId: string, task: string, docIds: readonly string[]): Promise<Map<string, Record<string, string>>> {
  const out = new Map<string, Record<string, string>>();
  if (docIds.length === 0) return out;
  const rows = await queryRows<{ doc_id: string; key: string; value_json: string }>(
    `SELECT doc_id, metric || ',' || filter AS key, value_json FROM ${store.table('scores')}
     WHERE run_id = ${sqlString(runId)} AND task = ${sqlString(task)} AND doc_id IN (${docIds.map(sqlString).join(', ')})
       AND value IS NULL AND value_json IS NOT NULL AND value_json <> 'null'`,
  );
  for (const r of rows) out.set(r.doc_id, { ...out.get(r.doc_id), [r.key]: r.value_json });
  return out;
}

export async function buildReport(
  store: OpenStore,
  comparison: DiffResult | null,
  declared: DeclaredFalsifierResult | null,
  options: BuildOptions,
): Promise<ReportData> {
  const runs = selectRuns(store.manifest.runs, options.runSelector, 'A');
  const chosen = new Set(runs.map((r) => r.run_id));
  const disclosure: DisclosureTable[] = [];
  const falsifiers: ReportData['falsifiers'] = [];
  let omitted = 0;
  for (const run of runs) {
    const tasks = Object.keys(run.tasks);
    if (tasks.length === 0) disclosure.push(disclosureTable(run, null));
    for (const [i, task] of tasks.entries()) {
      if (i < DISCLOSURE_TASKS) disclosure.push(disclosureTable(run, task));
      else omitted++;
      const promptsRecorded = (await loadDocs(store, run.run_id, task, { first: 1 })).some((d) => d.prompt !== null);
      falsifiers.push({ run_id: run.run_id, task, falsifier: singleRunFalsifier(diffSettings(run, task, run, task), undefined, promptsRecorded) });
    }
  }
  const samples: ReportData['samples'] = [];
  for (const run of runs) {
    for (const task of Object.keys(run.tasks).slice(0, DISCLOSURE_TASKS)) {
      const docs = (await loadDocs(store, run.run_id, task, { first: SAMPLE_ITEMS })).slice(0, SAMPLE_ITEMS);
      if (docs.length === 0) continue;
      const json = await nonNumericScores(store, run.run_id, task, docs.map((d) => d.docId));
      samples.push({
        run_id: run.run_id,
        task,
        items: docs.map((d) => ({
          doc_id: d.docId,
          prompt_tail: d.prompt === null ? null : d.prompt.slice(-300),
          output: d.responses.map(responseText).join(' | '),
          target: d.target,
          scores: Object.fromEntries(d.scores),
          recorded_json: json.get(d.docId) ?? {},
        })),
      });
    }
  }
  // The matrix is one section of the appendix; a store it cannot rescore still gets the others.
  let matrix: ScopeResult[] = [];
  let matrixNote: string | null = null;
  try {
    matrix = (await computeMatrix(store)).filter((scope) => chosen.has(scope.run_id));
  } catch (error) {
    matrixNote = `rescoring failed: ${(error as Error).message.split('\n')[0]}`;
  }
  // Like the matrix, a store whose numbers cannot be reproduced still gets the other sections.
  let asRecorded: ReportData['asRecorded'] = [];
  let asRecordedNote: string | null = null;
  try {
    asRecorded = (await (await import('../score/asRecorded.ts')).rescoreAsRecorded(store))
      .filter((s) => chosen.has(s.run_id))
      .map((s) => ({ ...s, details: asRecordedDetails(s, runs.find((r) => r.run_id === s.run_id)) }));
  } catch (error) {
    asRecordedNote = `reproducing the reported numbers failed: ${(error as Error).message.split('\n')[0]}`;
  }
  const agentSweepsOf = (await agentSweeps(store)).filter((sweep) => chosen.has(sweep.run_id));
  const cannotBeRight = await findImpossible(store, runs);
  const ownCode = new Map<string, string>();
  const ownFunction = new Map<string, boolean>();
  for (const run of runs) {
    for (const task of Object.keys(run.tasks)) {
      const code = await taskCode(run, task);
      if (code !== null) ownCode.set(`${run.run_id}\u0000${task}`, code.sentence);
      if (code !== null) ownFunction.set(`${run.run_id}\u0000${task}`, code.where.includes('process_results'));
    }
  }
  for (const scope of matrix) {
    const sentence = ownCode.get(`${scope.run_id}\u0000${scope.task}`);
    if (sentence !== undefined) scope.notes.unshift(sentence);
  }
  const summaryRows: SummaryRow[] = [];
  for (const run of runs) {
    for (const task of Object.keys(run.tasks)) {
      const scope = matrix.find((m) => m.run_id === run.run_id && m.task === task);
      const sp = scope?.spread ?? sweepSpread(agentSweepsOf.find((w) => w.run_id === run.run_id && w.task === task));
      const counts = disclosureCounts(run, task);
      summaryRows.push({
        run_id: run.run_id,
        label: run.label,
        task,
        reported: reportedScores(run.reported[task] ?? {}, run.source_kind),
        spread:
          sp?.lowest && sp.highest && !ownCode.has(`${run.run_id}\u0000${task}`)
            ? { lowest: sp.lowest.score, lowestCell: `${sp.lowest.extractor}/${sp.lowest.normalizer}`, highest: sp.highest.score, highestCell: `${sp.highest.extractor}/${sp.highest.normalizer}`, ...('caution' in sp && sp.caution !== null ? { caution: sp.caution } : {}) }
            : null,
        // Without a matrix scope (a results-only run) there are no readings and no matrix note to point to: the
        // task-code sentence said "see the matrix note" of cola's mcc in a results file that had neither.
        spreadNote:
          scope === undefined && sp === undefined
            ? (matrixNote ?? 'no per-item records to rescore')
            : ownCode.has(`${run.run_id}\u0000${task}`)
              ? ownFunction.get(`${run.run_id}\u0000${task}`)
                ? 'the task scores by its own code (process_results): the readings say nothing about its numbers (see the matrix note)'
                : 'the task reports metrics no reading measures: the readings say nothing about its numbers (see the matrix note)'
              : sp?.lowest ? null : 'no scored cells',
        // With --against, the comparison's falsifier is the answer; alone, the run's own (what a reader must match).
        falsifier:
          comparison?.comparisons.find((c) => c.a.run_id === run.run_id)?.tasks.find((t) => t.taskA === task)?.falsifier.status ??
          falsifiers.find((f) => f.run_id === run.run_id && f.task === task)!.falsifier.status,
        falsifierAgainst: comparison?.comparisons.some((c) => c.a.run_id === run.run_id && c.tasks.some((t) => t.taskA === task)) ?? false,
        disclosure: { recorded: counts.filter((c) => c.recorded).length, of: counts.length },
        cannotBeRight: cannotBeRight.filter((f) => f.run_id === run.run_id && (f.task === null || f.task === task)).map((f) => f.message),
        reproduced: reproducedOf(asRecorded.find((s) => s.run_id === run.run_id), run, task, asRecordedNote),
      });
    }
  }
  return {
    report_version: REPORT_VERSION,
    tool: 'lmaudit 0.1.0',
    // Each task once: two runs of one task (a full run and a --limit run) are one subject, not 'truthfulqa_gen; truthfulqa_gen'.
    title: options.title ?? `Audit appendix: ${titleTasks([...new Set(runs.flatMap((r) => Object.keys(r.tasks)))]) || store.location}`,
    subject: { location: store.location, runs: runs.map(summary) },
    summary: summaryRows,
    cannotBeRight,
    disclosure,
    disclosureOmittedTasks: omitted,
    matrix,
    asRecorded,
    asRecordedNote,
    tables: runs.length > 1 && matrixNote === null ? await buildTables(store, { aggregation: 'micro', tolerance: 0 }) : [],
    agentSweeps: agentSweepsOf,
    matrixNote,
    samples,
    falsifiers,
    comparison,
    declared,
    options: { iterations: options.iterations, seed: options.seed, alpha: options.alpha },
  };
}

/** The summary's reproduced cell of one task: not checked when there is no section for its run. */
function reproducedOf(section: AsRecordedSection | undefined, run: RunProvenance, task: string, failed: string | null): string {
  if (section === undefined) return failed === null ? 'not checked' : `not checked (${failed})`;
  return reproducedCell(reproducedResults(section, run).filter((r) => r.task === task), section.note, 'task_notes' in section ? section.task_notes?.[task] : undefined);
}

/**
 * An agent run's spread in the matrix's terms: the lowest and highest denominator rule (the rule's name stands in
 * the extractor's place). Undefined when the run is no agent run; no lowest when nothing was evaluated.
 */
function sweepSpread(sweep: AgentSweep | undefined): { lowest?: { score: number; extractor: string; normalizer: string }; highest?: { score: number; extractor: string; normalizer: string } } | undefined {
  if (sweep === undefined) return undefined;
  const valued = sweep.evaluated ? sweep.rules.filter((r) => r.value !== null) : [];
  if (valued.length === 0) return {};
  const pick = (better: (a: number, b: number) => boolean) => valued.reduce((m, r) => (better(r.value!, m.value!) ? r : m));
  const as = (r: (typeof valued)[number]) => ({ score: r.value!, extractor: r.rule, normalizer: `n ${r.n}` });
  return { lowest: as(pick((a, b) => a < b)), highest: as(pick((a, b) => a > b)) };
}

/**
 * Every 'metric,filter' a task reported (not its stderrs, not lm-eval's bookkeeping, not HELM's token counts, runtimes
 * and finish reasons, which came first and pushed its scores out of the summary's cell), with the stderr beside it.
 */
function reportedScores(reported: Record<string, unknown>, sourceKind: RunProvenance['source_kind']): SummaryRow['reported'] {
  return Object.keys(reported)
    .filter((k) => isScoreKey(k, reported) && !(sourceKind === 'helm' && isHelmBookkeepingStat(k.split(',')[0]!)))
    .map((score) => {
      const key = stderrKeyOf(score, reported);
      return { score, value: reported[score], stderr: key === undefined ? undefined : reported[key] };
    });
}

/** A run's tasks for the title: the first three, and how many more (a results file may hold 87). */
function titleTasks(tasks: readonly string[]): string {
  const first = tasks.slice(0, 3).join(', ');
  return tasks.length > 3 ? `${first} and ${tasks.length - 3} more` : first;
}
