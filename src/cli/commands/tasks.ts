/**
 * `lmaudit tasks` (and `lmaudit run --tasks list`, lm-eval's spelling): every task, group and tag
 * the index knows — the shipped library and any --include_path folder — with its output type,
 * few-shot default and source file. Reads the YAML files only; nothing is built.
 */
import { relative, resolve, sep } from 'node:path';
import type { Command } from 'commander';
import { shippedTasksRoot, TaskIndex, type CatalogueEntry } from '../../tasks/index.ts';
import { emit, formatTable, outIs } from '../output.ts';

/** A file as the user can find it: under the shipped library as tasks/…, under an --include_path as that path typed, else relative to here. */
function displayPath(file: string, includePaths: readonly string[]): string {
  const within = (root: string) => {
    const rel = relative(root, file);
    return rel.startsWith('..') || rel.startsWith(sep) ? null : rel;
  };
  for (const typed of [...includePaths].reverse()) {
    const rel = within(resolve(typed));
    if (rel !== null) return `${typed.replace(/\/+$/, '')}/${rel}`;
  }
  const shipped = within(shippedTasksRoot());
  if (shipped !== null) return `tasks/${shipped}`;
  return relative(process.cwd(), file);
}

export function taskCatalogue(includePaths: readonly string[]): { entries: CatalogueEntry[]; lines: string[]; json: unknown; unread: string[] } {
  const index = TaskIndex.withShipped(includePaths);
  const entries = index.catalogue();
  // A file that does not parse defines nothing the list can show: it is named with why, as import names a file it did not read.
  const unread = index.unreadable().map((e) => `not read: ${e.message}`);
  const count = (kind: string) => entries.filter((e) => e.kind === kind).length;
  const rows = entries.map((e) => [
    e.name,
    e.kind,
    e.outputType || '—',
    e.numFewshot === null ? '—' : e.numFewshot,
    e.file === null ? `${e.members.length} task(s)` : displayPath(e.file, includePaths),
  ]);
  return {
    entries,
    lines: [
      ...formatTable(['name', 'kind', 'output type', 'few-shot', 'source'], rows),
      '',
      `${count('task')} tasks, ${count('group')} groups, ${count('tag')} tags (a few-shot default is the YAML's num_fewshot; lm-eval reads an unset one as 0; --num_fewshot overrides it unless the YAML says 0)`,
      ...unread,
    ],
    unread,
    json: entries.map((e) => ({ name: e.name, kind: e.kind, output_type: e.outputType, num_fewshot: e.numFewshot, source: e.file === null ? null : displayPath(e.file, includePaths), members: e.members })),
  };
}

export function registerTasks(program: Command): void {
  program
    .command('tasks')
    .description('List every task, group and tag: output type, few-shot default and source file (lm-eval: --tasks list)')
    .option('--include_path <dir...>', 'extra task folders (override the shipped ones)')
    .option('--out <file>', 'write the list to this file instead of stdout')
    .option('--json', 'print the list as JSON', false)
    .action(async (flags: { include_path?: string[]; json: boolean; out?: string }) => {
      const { lines, json, unread } = taskCatalogue(flags.include_path ?? []);
      const asJson = flags.json || outIs(flags.out, 'json');
      // The JSON is the list itself: what was not read goes to stderr beside it.
      if (asJson && unread.length > 0) process.stderr.write(`${unread.map((u) => `lmaudit: ${u}`).join('\n')}\n`);
      await emit(asJson ? { json } : { lines }, flags.out, 'task list');
    });
}
