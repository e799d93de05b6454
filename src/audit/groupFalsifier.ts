/**
 * A group's falsifier from its leaves'. A group (mmlu, mmlu_other) holds no items of its own: its number is its leaf
 * tasks' scores put together by its weighting. Judged alone it has no item evidence, so the harness clause between
 * lm-eval and lmaudit read "violated" on the group while every one of its leaves, whose items hash equal, held.
 * When both runs record the same leaves for the group and the diff compared every one of them with items, each
 * clause of the group is its leaves' clause (violated in any leaf, else unknown in any, else holds), and the group's
 * own weighting must agree as well.
 */
import type { Clause, ClauseStatus, Falsifier } from './falsifier.ts';
import { falsifierSentence } from './falsifier.ts';
import { type SettingsDiff } from './settingsDiff.ts';
import { brief } from './settingRecord.ts';
import type { RunProvenance } from '../store/schema.ts';
import { countOf } from '../util/plural.ts';

/** What a group comparison needs of each compared task. */
export interface ComparedTask {
  taskA: string;
  taskB: string;
  settings: SettingsDiff;
  hasItems: boolean;
  falsifier: Falsifier;
}

/** The leaf tasks the run recorded for a group (repeats.group_weighting's used leaves), or null when it is not one. */
export function groupLeaves(run: RunProvenance, task: string): string[] | null {
  const used = (run.tasks[task] as { repeats?: { group_weighting?: { used?: { status?: string; value?: unknown } } } } | undefined)?.repeats?.group_weighting?.used;
  const leaves = used?.status === 'unknown' ? undefined : (used?.value as { leaves?: unknown } | null | undefined)?.leaves;
  return Array.isArray(leaves) && leaves.length > 0 && leaves.every((l) => typeof l === 'string') ? leaves : null;
}

/** The leaves' comparisons when both runs name the same leaves and every one was compared with items; else null. */
export function comparedLeaves(runA: RunProvenance, runB: RunProvenance, group: ComparedTask, all: readonly ComparedTask[]): ComparedTask[] | null {
  if (group.hasItems) return null;
  const a = groupLeaves(runA, group.taskA);
  const b = groupLeaves(runB, group.taskB);
  if (a === null || b === null || a.length !== b.length || new Set(a).size !== a.length || !b.every((l) => a.includes(l))) return null;
  const byName = new Map(all.filter((t) => t.taskA === t.taskB).map((t) => [t.taskA, t]));
  const leaves = a.map((name) => byName.get(name));
  return leaves.every((l): l is ComparedTask => l !== undefined && l.hasItems) ? leaves : null;
}

const RANK: Record<ClauseStatus, number> = { holds: 0, unknown: 1, violated: 2 };

/** The group's falsifier: each clause its leaves' worst, and the scoring clause violated if the group's weighting differs. */
export function groupFalsifier(subject: string, group: ComparedTask, leaves: readonly ComparedTask[]): Falsifier {
  const weighting = group.settings.items.find((i) => i.item === 'repeats')?.fields.find((f) => f.field === 'group_weighting');
  const clauses: Clause[] = group.falsifier.clauses.map((own) => {
    const each = leaves.map((l) => ({ task: l.taskA, clause: l.falsifier.clauses.find((c) => c.name === own.name) }));
    const worst = each.reduce<ClauseStatus>((w, e) => (e.clause !== undefined && RANK[e.clause.status] > RANK[w] ? e.clause.status : w), 'holds');
    const of = (status: ClauseStatus) => each.filter((e) => e.clause?.status === status);
    const clause: Clause = { name: own.name, phrase: own.phrase, status: worst, finding: '' };
    if (worst === 'holds') clause.finding = `agree in ${leaves.length === 1 ? "the group's only leaf task" : `each of the group's ${leaves.length} leaf tasks`} (each leaf's falsifier says how)`;
    else {
      const hit = of(worst);
      const named = hit.slice(0, 3).map((e) => `${e.task}: ${e.clause!.finding}`).join('; ');
      clause.finding = `${worst} in ${hit.length} of the group's ${countOf(leaves.length, 'leaf task')} (${named}${hit.length > 3 ? '; …' : ''})`;
    }
    if (own.name === 'scoring' && weighting !== undefined && weighting.verdict === 'differs') {
      const differs = `the group's weighting differs (${brief(weighting.a.value, 60)} vs ${brief(weighting.b.value, 60)})`;
      clause.finding = clause.status === 'violated' ? `${differs}; ${clause.finding}` : differs;
      clause.status = 'violated';
    }
    return clause;
  });
  const status: ClauseStatus = clauses.some((c) => c.status === 'violated') ? 'violated' : clauses.some((c) => c.status === 'unknown') ? 'unknown' : 'holds';
  return { clauses, status, sentence: falsifierSentence(subject, clauses) };
}
