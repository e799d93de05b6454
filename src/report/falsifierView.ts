/**
 * The report's falsifier section. A run's falsifiers share most of their words: the clause
 * that says what a number is comparable to is the same for every task, and a results file's
 * subtasks mostly record the same settings. The section states the shared clause once, then
 * per run what every task recorded (and did not), then per task only what differs — built from
 * the falsifiers' clauses, so the verdicts stay exactly as src/audit/falsifier.ts gives them.
 */
import type { Clause } from '../audit/falsifier.ts';
import type { ReportData } from './model.ts';

export interface FalsifierEntry {
  title: string;
  /** The verdict of the task(s) named; empty for a run's shared line, which is no verdict. */
  status: string;
  sentence: string;
}

export interface FalsifierSection {
  /** The clause every falsifier shares, said once; null when there is none. */
  falsifiersLead: string | null;
  falsifiers: FalsifierEntry[];
  falsifiersNote: string | null;
}

const MAX_FALSIFIERS = 20;

/** "a, b, or c". */
function orList(items: readonly string[]): string {
  return items.length <= 1 ? items.join('') : `${items.slice(0, -1).join(', ')}, or ${items.at(-1)}`;
}

function taskList(tasks: readonly string[], max = 6): string {
  if (tasks.length === 1) return tasks[0]!;
  const named = tasks.slice(0, max).join(', ');
  return `${tasks.length} tasks: ${named}${tasks.length > max ? ` and ${tasks.length - max} more` : ''}`;
}

/** What a set of clauses says: what was recorded, and what was not (so that no comparison can check it). */
function clauseText(clauses: readonly Clause[], nothing: string): string {
  const recorded = clauses.filter((c) => c.status !== 'unknown').map((c) => c.finding.replace(/^recorded: /, ''));
  const unknown = clauses.filter((c) => c.status === 'unknown').map((c) => c.phrase);
  const parts = [
    ...(recorded.length > 0 ? [`recorded ${recorded.join('; ')}`] : []),
    ...(unknown.length > 0 ? [`did not record its ${orList(unknown)}, so a comparison cannot check them`] : []),
  ];
  return parts.length === 0 ? nothing : `${parts.join('; ')}.`;
}

const clauseKey = (c: Clause) => JSON.stringify([c.name, c.status, c.finding]);

export function falsifierSection(falsifiers: ReportData['falsifiers']): FalsifierSection {
  const phraseLists = new Set(falsifiers.map((f) => JSON.stringify(f.falsifier.clauses.map((c) => c.phrase))));
  const shared = phraseLists.size === 1 && falsifiers.length > 0 ? falsifiers[0]!.falsifier.clauses.map((c) => c.phrase) : null;
  const entries: (FalsifierEntry & { tasks: number })[] = [];
  for (const runId of [...new Set(falsifiers.map((f) => f.run_id))]) {
    const own = falsifiers.filter((f) => f.run_id === runId);
    // Clauses that read the same in every task of the run are said once for the run.
    const common = shared === null || own.length < 2 ? new Set<string>() : new Set(own[0]!.falsifier.clauses.map(clauseKey).filter((k) => own.every((f) => f.falsifier.clauses.some((c) => clauseKey(c) === k))));
    // Every clause the same in every task: one line for the run, nothing to split.
    const allCommon = own.every((f) => f.falsifier.clauses.every((c) => common.has(clauseKey(c))));
    if (common.size > 0 && !allCommon) {
      entries.push({ title: `${runId} · all ${own.length} tasks`, status: '', sentence: `Every task ${clauseText(own[0]!.falsifier.clauses.filter((c) => common.has(clauseKey(c))), '')}`, tasks: 0 });
    }
    // Tasks whose remaining clauses read the same share one line.
    const groups = new Map<string, { tasks: string[]; status: string; sentence: string }>();
    for (const f of own) {
      const rest = allCommon ? f.falsifier.clauses : f.falsifier.clauses.filter((c) => !common.has(clauseKey(c)));
      const sentence = shared === null ? f.falsifier.sentence : clauseText(rest, 'Nothing beyond what every task recorded.');
      const key = JSON.stringify([f.falsifier.status, sentence]);
      const group = groups.get(key) ?? { tasks: [], status: f.falsifier.status, sentence };
      group.tasks.push(f.task);
      groups.set(key, group);
    }
    for (const g of groups.values()) entries.push({ title: `${runId} · ${taskList(g.tasks)}`, status: g.status, sentence: g.sentence.charAt(0).toUpperCase() + g.sentence.slice(1), tasks: g.tasks.length });
  }
  // The cap counts task lines; a run's shared line is kept whenever one of its task lines is.
  let taskLines = 0;
  const shown = entries.filter((e) => (e.tasks === 0 ? taskLines < MAX_FALSIFIERS : ++taskLines <= MAX_FALSIFIERS));
  const omittedTasks = entries.filter((e) => !shown.includes(e)).reduce((n, g) => n + g.tasks, 0);
  return {
    falsifiersLead: shared === null ? null : `A number from a run is comparable only to a run with the same ${orList(shared)}. What each run recorded of these:`,
    falsifiers: shown.map(({ tasks: _t, ...e }) => e),
    falsifiersNote: omittedTasks > 0 ? `${omittedTasks} more task(s) are left out of this list; the JSON report has every task's falsifier.` : null,
  };
}
