/**
 * The falsifier: the sentence naming the settings that must agree for a
 * comparison to hold, with each clause's status — holds, violated, unknown —
 * computed from the settings diff, the configured-vs-used checks and the item
 * join, never written by hand.
 */
import type { CheckId, CheckResult } from './configuredVsUsed.ts';
import type { FieldRow, SettingsDiff } from './settingsDiff.ts';
import { brief } from './settingRecord.ts';
import { isPlainObject } from '../util/json.ts';
import { countOf } from '../util/plural.ts';
import { allEqual, sameItems, type ItemEvidence } from './settledByEvidence.ts';

export type ClauseStatus = 'holds' | 'violated' | 'unknown';

export interface ClauseSpec {
  /** Stable name, usable in a declared falsifier's `must_agree`. */
  name: string;
  /** Plural noun phrase for the sentence: "different <phrase>". */
  phrase: string;
  /** Disclosure fields ('item.field') that must agree. */
  fields: readonly string[];
  /** Configured-vs-used checks whose observed value must agree too. */
  checks: readonly CheckId[];
  /** What the item join must show: the same documents, or the same prompt bytes on shared documents. */
  items?: 'documents' | 'prompts';
}

/** The default clauses: the settings known to move benchmark numbers (DESIGN.md's disclosure items). */
export const DEFAULT_CLAUSES: readonly ClauseSpec[] = [
  { name: 'task', phrase: 'task versions or datasets', fields: ['task.version', 'task.dataset_path', 'task.dataset_name', 'task.dataset_split'], checks: [] },
  { name: 'fewshot', phrase: 'few-shot counts', fields: ['fewshot.count'], checks: ['fewshot_count'] },
  { name: 'chat_template', phrase: 'chat-template settings', fields: ['chat_template.applied', 'chat_template.sha256', 'chat_template.fewshot_as_multiturn'], checks: ['target_delimiter'] },
  { name: 'system', phrase: 'system instructions', fields: ['system.instruction', 'system.description'], checks: ['system_message'] },
  { name: 'scoring', phrase: 'extraction rules or metrics', fields: ['scoring.output_type', 'scoring.metrics', 'scoring.filters'], checks: ['target_shape'] },
  { name: 'generation', phrase: 'generation settings', fields: ['generation.settings', 'generation.stop_sequences', 'generation.max_tokens'], checks: [] },
  { name: 'documents', phrase: 'document sets', fields: ['samples.limit'], checks: [], items: 'documents' },
  { name: 'prompts', phrase: 'prompt bytes', fields: [], checks: [], items: 'prompts' },
  { name: 'precision', phrase: 'numeric precisions (dtype)', fields: ['model.dtype'], checks: [] },
  // Two commits of one release are two harnesses: lm-eval's version string moves only at releases.
  { name: 'harness', phrase: 'harness versions or commits', fields: ['harness.version', 'harness.commit'], checks: [] },
];

/** Clauses for agent runs, used when the settings diff has agent settings: what moves an agent score. */
export const AGENT_CLAUSES: readonly ClauseSpec[] = [
  { name: 'scaffold', phrase: 'agent scaffolds', fields: ['agent.agent_name', 'agent.agent_version'], checks: [] },
  { name: 'limits', phrase: 'agent limits or timeouts', fields: ['agent.timeouts', 'agent.agent_limits'], checks: [] },
  { name: 'sandbox', phrase: 'sandboxes (provider, resources, network)', fields: ['agent.sandbox_provider', 'agent.sandbox_resources', 'agent.network'], checks: [] },
  { name: 'attempts', phrase: 'attempts per task or retry policies', fields: ['agent.attempts', 'agent.retries'], checks: [] },
  { name: 'denominator', phrase: 'denominator rules or task selections', fields: ['agent.denominator_rule', 'agent.split_size', 'agent.tasks_excluded', 'agent.task_selection'], checks: [] },
];

/** The default clauses for a diff: the agent clauses join them when the runs are agent runs. */
export function clausesFor(diff: SettingsDiff): readonly ClauseSpec[] {
  // Prompt-level clauses (few-shot, chat template, …) say nothing about an agent run: its own clauses replace them.
  if (!diff.items.some((i) => i.item === 'agent')) return DEFAULT_CLAUSES;
  return [...DEFAULT_CLAUSES.filter((c) => c.name === 'documents' || c.name === 'harness'), ...AGENT_CLAUSES];
}

export interface Clause {
  name: string;
  phrase: string;
  status: ClauseStatus;
  /** What was found, e.g. "few-shot count differs (5 vs 0)". */
  finding: string;
}

export interface Falsifier {
  clauses: Clause[];
  /** violated when any clause is violated; unknown when none is but some are unknown. */
  status: ClauseStatus;
  sentence: string;
}

/** What the item join found, for the documents clause. */
export interface DocumentCoverage {
  shared: number;
  onlyA: number;
  onlyB: number;
  /** Shared documents whose prompt bytes differ. */
  promptsDiffer: number;
  /** What the items' own hashes show (settledByEvidence.ts); absent when not computed. */
  evidence?: ItemEvidence;
}

/** Fields a configured-vs-used check observes in the samples: seen alike on both sides, the field is known in effect. */
const CHECK_COVERS: Partial<Record<CheckId, string>> = { fewshot_count: 'fewshot.count', system_message: 'system.instruction' };

function fieldRows(diff: SettingsDiff): Map<string, FieldRow> {
  return new Map(diff.items.flatMap((i) => i.fields.map((f) => [`${i.item}.${f.field}`, f] as const)));
}

/** How the sentence names a field; others read as 'item field'. */
const FIELD_NAMES: Record<string, string> = {
  'fewshot.count': 'the few-shot count',
  'model.dtype': 'the dtype',
  'model.model_id': 'the model',
  'samples.limit': 'the limit',
  'samples.document_ids': 'the document ids',
  'harness.version': 'the harness version',
  'harness.commit': 'the harness commit',
  'task.version': 'the task version',
  'task.dataset_path': 'the dataset path',
  'task.dataset_name': 'the dataset name',
  'task.dataset_split': 'the dataset split',
  'chat_template.applied': 'whether a chat template was applied',
  'chat_template.sha256': 'the chat template',
  'chat_template.fewshot_as_multiturn': 'fewshot_as_multiturn',
  'system.instruction': 'the system instruction',
  'system.description': 'the task description',
  'scoring.output_type': 'the output type',
  'scoring.metrics': 'the metrics',
  'scoring.filters': 'the filters (extraction rules)',
  'generation.settings': 'the generation settings',
  'generation.stop_sequences': 'the stop sequences',
  'generation.max_tokens': 'the token limit',
};
const pretty = (path: string) => FIELD_NAMES[path] ?? path.replace('.', ' ').replace(/_/g, ' ');
/** Fields whose names are plural ("the metrics differ"). */
const PLURAL_FIELDS = new Set(['scoring.metrics', 'scoring.filters', 'generation.settings', 'generation.stop_sequences']);
const differs = (path: string) => (PLURAL_FIELDS.has(path) ? 'differ' : 'differs');

/**
 * Two differing values, shortened: of two objects only the keys whose values differ, so that a long shared
 * prefix (generation kwargs differing only in their seed) does not hide what differs.
 */
function contrast(a: unknown, b: unknown): string {
  if (isPlainObject(a) && isPlainObject(b)) {
    const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])].filter((k) => JSON.stringify(a[k]) !== JSON.stringify(b[k]));
    const pick = (o: Record<string, unknown>) => Object.fromEntries(keys.filter((k) => k in o).map((k) => [k, o[k]]));
    if (keys.length > 0) return `${brief(pick(a), 40)} vs ${brief(pick(b), 40)}`;
  }
  return `${brief(a, 40)} vs ${brief(b, 40)}`;
}

export function evaluateClause(
  spec: ClauseSpec,
  diff: SettingsDiff,
  checks: { a: readonly CheckResult[]; b: readonly CheckResult[] } | null,
  documents: DocumentCoverage | null,
): Clause {
  const rows = fieldRows(diff);
  const violated: string[] = [];
  const unknown: string[] = [];
  /** Fields neither run recorded, until a check or the item join shows them alike. */
  const unknownBoth = new Map<string, string>();
  /** Checks that saw the same thing on both sides where the records were silent or self-contradictory. */
  const seenAlike: string[] = [];
  /** Fields the items' hashes settled ('same in effect'), with the evidence. */
  const settled: string[] = [];
  const settledBy = new Map<string, string[]>();
  let known = 0;
  for (const path of spec.fields) {
    const row = rows.get(path);
    if (row === undefined || row.verdict === 'unknown in both') {
      unknownBoth.set(path, `${pretty(path)} unknown in both`);
      continue;
    }
    if (row.verdict === 'differs') violated.push(`${pretty(path)} ${differs(path)} (${contrast(row.a.value, row.b.value)})`);
    else if (row.verdict === 'unknown in A' || row.verdict === 'unknown in B') unknown.push(`${pretty(path)} ${row.verdict}`);
    else {
      known++;
      if (row.verdict === 'same in effect' && row.evidence !== undefined) settledBy.set(row.evidence, [...(settledBy.get(row.evidence) ?? []), pretty(path)]);
    }
  }
  for (const [evidence, names] of settledBy) settled.push(`${names.join(', ')}: ${evidence}`);
  for (const id of spec.checks) {
    const a = checks?.a.find((c) => c.id === id);
    const b = checks?.b.find((c) => c.id === id);
    if (a === undefined || b === undefined) continue;
    // A check that could not compare against the configuration may still have seen what was used (e.g. shots visible in the prompt).
    const seen = (c: CheckResult) => c.status !== 'not applicable' && c.observed !== 'unknown' && c.observed !== '-';
    if (!seen(a) || !seen(b)) continue;
    if (a.observed !== b.observed) violated.push(`${a.title}: A ${a.used}, B ${b.used}`);
    else {
      known++;
      const covered = CHECK_COVERS[id];
      const silent = covered !== undefined && unknownBoth.delete(covered);
      if (silent || a.status !== 'ok' || b.status !== 'ok') seenAlike.push(`${a.title}: ${a.used} in both`);
    }
  }
  if (spec.items === 'documents' && documents !== null) {
    if (documents.onlyA > 0 || documents.onlyB > 0) {
      violated.push(`the documents differ (${documents.shared} shared, ${documents.onlyA} only in A, ${documents.onlyB} only in B)`);
    } else {
      known++;
      // Every document is in both runs (as the join pairs them): whatever limit each used, it selected the same set.
      if (unknownBoth.delete('samples.limit')) seenAlike.push(`${countOf(documents.shared, 'document')} in both, none in one only`);
    }
  }
  // Two harnesses whose items hash equal everywhere prepared the same requests: the difference is stated, not counted.
  // The versions of two different programs do not compare; two commits of one harness still do (its code may score differently).
  const open = violated.length > 0 || unknown.length > 0 || unknownBoth.size > 0;
  const name = rows.get('harness.name');
  const otherHarness = name !== undefined && name.verdict === 'differs';
  if (spec.name === 'harness' && open && otherHarness && documents?.evidence !== undefined && allEqual(documents.evidence, 'docHashesEqual', 'promptsEqual', 'targetsEqual')) {
    const who = `different harnesses (${brief(name.a.value, 40)} vs ${brief(name.b.value, 40)})`;
    const found = [...violated, ...unknown, ...unknownBoth.values()].join('; ');
    settled.push(`${who}: ${found}; stated, not counted: ${sameItems(documents.evidence)}`);
    known += violated.length + unknown.length + unknownBoth.size;
    violated.length = 0;
    unknown.length = 0;
    unknownBoth.clear();
  }
  if (spec.items === 'prompts') {
    if (documents === null || documents.shared === 0) unknown.push('no shared per-item prompts to compare');
    else if (documents.promptsDiffer > 0) violated.push(`the prompts differ byte-wise on ${documents.promptsDiffer} of ${documents.shared} shared documents`);
    else known++;
  }
  // A field recorded on one side only leaves the clause open, and so does one neither recorded that no evidence settled:
  // what both runs left unknown cannot be said to agree.
  const status: ClauseStatus = violated.length > 0 ? 'violated' : unknown.length > 0 || unknownBoth.size > 0 || known === 0 ? 'unknown' : 'holds';
  const finding =
    violated.length > 0
      ? violated.join('; ')
      : status === 'unknown'
        ? [...unknown, ...unknownBoth.values()].join('; ') || 'not recorded'
        : settled.length > 0 || seenAlike.length > 0
          ? `agree (${[...settled, ...seenAlike].join('; ')})`
          : 'agree';
  return { name: spec.name, phrase: spec.phrase, status, finding };
}

export function buildFalsifier(
  diff: SettingsDiff,
  checks: { a: readonly CheckResult[]; b: readonly CheckResult[] } | null,
  documents: DocumentCoverage | null,
  specs: readonly ClauseSpec[] = clausesFor(diff),
  subject = 'This comparison',
): Falsifier {
  const clauses = specs.map((s) => evaluateClause(s, diff, checks, documents));
  const status: ClauseStatus = clauses.some((c) => c.status === 'violated') ? 'violated' : clauses.some((c) => c.status === 'unknown') ? 'unknown' : 'holds';
  return { clauses, status, sentence: falsifierSentence(subject, clauses) };
}

function listPhrase(items: readonly string[]): string {
  if (items.length <= 1) return items.join('');
  return `${items.slice(0, -1).join(', ')}, or ${items.at(-1)}`;
}

export function falsifierSentence(subject: string, clauses: readonly Clause[]): string {
  const head = `${subject} is void if the two runs used different ${listPhrase(clauses.map((c) => c.phrase))}`;
  const violated = clauses.filter((c) => c.status === 'violated');
  const unknown = clauses.filter((c) => c.status === 'unknown');
  const parts: string[] = [];
  if (violated.length > 0) parts.push(`here ${violated.map((c) => c.finding).join('; ')}`);
  if (unknown.length > 0) parts.push(`the records cannot tell whether the ${listPhrase(unknown.map((c) => c.phrase))} agree`);
  if (parts.length === 0) parts.push('here all of them agree');
  return `${head}; ${parts.join('; and ')}.`;
}

/** A single-run falsifier (report without --against): which settings a reader must match to compare against this run. */
/**
 * `promptsRecorded`: whether the run's items carry the prompt sent (a store's instances, a samples file's
 * arguments); the prompt-bytes clause rests on them, not on a settings field.
 */
export function singleRunFalsifier(diff: SettingsDiff, specs: readonly ClauseSpec[] = clausesFor(diff), promptsRecorded = false): Falsifier {
  const rows = fieldRows(diff);
  const clauses: Clause[] = specs.map((spec) => {
    if (spec.items === 'prompts' && promptsRecorded) return { name: spec.name, phrase: spec.phrase, status: 'holds', finding: 'recorded: the prompt of each item' };
    const known = (fields: readonly string[]) =>
      fields
        .map((path) => ({ path, row: rows.get(path) }))
        .filter((x) => x.row !== undefined && x.row.a.status !== 'unknown')
        // An inferred value (lm-eval's default token limit, a v0.3 file's harness version) was not recorded: say so.
        .map((x) => `${pretty(x.path)} ${brief(x.row!.a.value, 40)}${x.row!.a.status === 'inferred' ? ' (inferred, not recorded)' : ''}`);
    let values = known(spec.fields);
    // No limit recorded, but the run names the documents it scored (EEE's sample_ids): that is its document set.
    if (values.length === 0 && spec.items === 'documents') values = known(['samples.document_ids']);
    const status: ClauseStatus = values.length > 0 ? 'holds' : 'unknown';
    return { name: spec.name, phrase: spec.phrase, status, finding: values.length > 0 ? `recorded: ${values.join(', ')}` : 'not recorded' };
  });
  const recordedList = clauses.filter((c) => c.status === 'holds').map((c) => c.finding.replace(/^recorded: /, ''));
  const unknown = clauses.filter((c) => c.status === 'unknown').map((c) => c.phrase);
  const sentence =
    `A number from this run is comparable only to a run with the same ${listPhrase(specs.map((s) => s.phrase))}` +
    (recordedList.length > 0 ? `; this run recorded ${recordedList.join('; ')}` : '') +
    (unknown.length > 0 ? `; it did not record its ${listPhrase(unknown)}, so a comparison cannot check them` : '') +
    '.';
  return { clauses, status: unknown.length > 0 ? 'unknown' : 'holds', sentence };
}
