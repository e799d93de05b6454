/**
 * lm-eval 0.4.13's printed tables (utils.make_table, then make_table(results, "groups")) from the same sections of
 * the results dict it reads: rows in the order of the group hierarchy (roots and children sorted by name, the tasks
 * in no group after them, sorted), each named by its alias and indented by depth; a row per metric and filter, in
 * the order of their sorted "metric,filter" keys, each with the n-shot; values and stderrs as Python's f"{x:.4f}".
 * The cells are laid out as pytablewriter's MarkdownTableWriter pads them.
 */
import { formatF } from '../py/float.ts';
import { PyFloat } from '../py/values.ts';
import { pyStrOf } from '../prompt/build.ts';
import type { BuiltTask } from '../prompt/build.ts';
import type { GroupResult } from './groups.ts';
import { resultSections, type ResultSections } from './lmevalFiles.ts';
import type { TaskScores } from './scoring.ts';

/** utils._build_hierarchy_info: each key's depth under group_subtasks, and the keys in display order. */
function hierarchy(groupSubtasks: Record<string, string[]>, available: ReadonlySet<string>): { depth: Map<string, number>; ordered: string[] } {
  const depth = new Map<string, number>();
  const ordered: string[] = [];
  const byName = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
  const visit = (name: string, d: number) => {
    depth.set(name, d);
    if (available.has(name)) ordered.push(name);
    for (const child of [...(groupSubtasks[name] ?? [])].sort(byName)) visit(child, d + 1);
  };
  const children = new Set(Object.values(groupSubtasks).flat());
  for (const name of Object.keys(groupSubtasks).sort(byName)) if (!children.has(name)) visit(name, 0);
  for (const key of [...available].sort(byName)) if (!depth.has(key)) ordered.push(key);
  return { depth, ordered };
}

/** Python's f"{v:.4f}" for a float, str(v) otherwise. */
const cellValue = (v: unknown): string => (v instanceof PyFloat ? formatF(v.value, 4) : typeof v === 'string' ? v : pyStrOf(v));
const asFloat = (v: unknown): number => (v instanceof PyFloat ? v.value : Number(v));

/** utils.make_table(result_dict, column) as rows of cells. */
export function makeTableRows(sections: ResultSections, column: 'results' | 'groups'): string[][] {
  const entries = sections[column] ?? {};
  const { depth, ordered } = hierarchy(sections.group_subtasks, new Set(Object.keys(entries)));
  const rows: string[][] = [];
  for (const key of ordered) {
    const dic: Record<string, unknown> = { ...entries[key] };
    let version = !(key in sections.versions) ? '    N/A' : typeof sections.versions[key] === 'string' ? (sections.versions[key] as string) : pyStrOf(sections.versions[key]);
    const shots = key in sections['n-shot'] ? String(sections['n-shot'][key]) : ' ';
    const directions = sections.higher_is_better[key] ?? {};
    let name = typeof dic.alias === 'string' ? dic.alias : key;
    for (const k of ['alias', 'name', 'sample_len', 'sample_count']) delete dic[k];
    const d = depth.get(key) ?? 0;
    if (d > 0) name = `${' '.repeat(d)}- ${name}`;
    for (const mf of Object.keys(dic).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))) {
      const comma = mf.indexOf(',');
      const [metric, filter] = comma < 0 ? [mf, ''] : [mf.slice(0, comma), mf.slice(comma + 1)];
      if (metric.endsWith('_stderr')) continue;
      const hib = directions[metric] === true ? '↑' : directions[metric] === false ? '↓' : '';
      const stderrKey = `${metric}_stderr,${filter}`;
      const se = dic[stderrKey];
      const stderr = !(stderrKey in dic) ? null : se === 'N/A' ? '   N/A' : formatF(asFloat(se), 4);
      rows.push([name, version, filter, shots, metric, hib, cellValue(dic[mf]), stderr === null ? '' : '±', stderr ?? '']);
      name = '';
      version = '';
    }
  }
  return rows;
}

function markdown(title: string, rows: readonly string[][]): string[] {
  const header = [title, 'Version', 'Filter', 'n-shot', 'Metric', '', 'Value', '', 'Stderr'];
  const right = new Set([1, 3, 6, 8]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => [...r[i]!].length)));
  const cell = (text: string, i: number) => (right.has(i) ? text.padStart(widths[i]!) : text.padEnd(widths[i]!));
  const line = (cells: readonly string[]) => `|${cells.map(cell).join('|')}|`;
  const rule = `|${widths.map((w, i) => (right.has(i) ? `${'-'.repeat(w - 1)}:` : '-'.repeat(w))).join('|')}|`;
  return [line(header), rule, ...rows.map(line)];
}

/** What `lm_eval` prints after a run: the Tasks table, and the Groups table when a group has numbers. */
export function resultsTable(tasks: readonly BuiltTask[], scores: readonly TaskScores[], groups: readonly GroupResult[] = []): string[] {
  const sections = resultSections({ tasks, scores, groups });
  const lines = markdown('Tasks', makeTableRows(sections, 'results'));
  if (sections.groups === undefined) return lines;
  return [...lines, '', ...markdown('Groups', makeTableRows(sections, 'groups'))];
}
