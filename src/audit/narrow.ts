/**
 * `--tasks` of the audit commands (rescore, diff, report, table): a source seen through a filter
 * that keeps only the named tasks — its manifest's task and reported entries, and every table's
 * rows — so that each command narrows the same way, before any work is done.
 */
import { UnknownNameError } from '../errors.ts';
import type { OpenStore } from '../store/readStore.ts';
import type { TableName } from '../store/schema.ts';

const sqlString = (s: string) => `'${s.replaceAll("'", "''")}'`;

/** `a,b,c` with lm-eval's `*` wildcards (`--tasks mmlu_*`); a pattern that names nothing is an error naming the tasks there are. */
export function taskMatcher(patterns: readonly string[], present: readonly string[]): (task: string) => boolean {
  const regexes = patterns.map((p) => ({ p, re: new RegExp(`^${p.split('*').map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('.*')}$`) }));
  for (const { p, re } of regexes) {
    if (!present.some((t) => re.test(t))) throw new UnknownNameError('task in this source', p, [...present].sort());
  }
  return (task) => regexes.some(({ re }) => re.test(task));
}

/** The tasks a store names: in its runs' task provenance and reported numbers. */
export function tasksOf(store: OpenStore): string[] {
  return [...new Set(store.manifest.runs.flatMap((r) => [...Object.keys(r.tasks), ...Object.keys(r.reported)]))].sort();
}

/** `store` with only the tasks `patterns` match; the store itself when no patterns are given. */
export function narrowToTasks(store: OpenStore, patterns: readonly string[] | undefined): OpenStore {
  if (patterns === undefined || patterns.length === 0) return store;
  const present = tasksOf(store);
  const keep = taskMatcher(patterns, present);
  const kept = present.filter(keep);
  const inList = `task IN (${kept.map(sqlString).join(', ')})`;
  const pick = <T>(record: Record<string, T>) => Object.fromEntries(Object.entries(record).filter(([task]) => keep(task)));
  const manifest = {
    ...store.manifest,
    runs: store.manifest.runs
      .map((r) => ({ ...r, tasks: pick(r.tasks), reported: pick(r.reported), notes: r.notes.filter((n) => n.task === null || keep(n.task)) }))
      .filter((r) => Object.keys(r.tasks).length > 0 || Object.keys(r.reported).length > 0),
  };
  return {
    location: store.location,
    manifest,
    local: store.local,
    ...(store.unfinished !== undefined && { unfinished: store.unfinished }),
    // The items relation is a query that its readers parenthesise (src/store/scopeItems.ts).
    ...(store.items !== undefined && { items: `SELECT * FROM (${store.items}) WHERE ${inList}` }),
    table(name: TableName, options?: { rowNumber?: boolean }): string {
      return `(SELECT * FROM ${store.table(name, options)} WHERE ${inList})`;
    },
  };
}
