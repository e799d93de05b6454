/**
 * `lmaudit table`: the audit table across runs — rows are runs labelled by what differs in their
 * provenance, columns are reading rules; spreads, extremes, a gap against the spread, which cells
 * reach a published number, and the interactions between a configuration change and the reading.
 */
import type { Command } from 'commander';
import { loadSource } from '../../audit/source.ts';
import { tasksOf } from '../../audit/narrow.ts';
import { buildTables, type TableOptions } from '../../audit/table.ts';
import { BadInputError, UnknownNameError, nameHint } from '../../errors.ts';
import { tableLines } from '../../report/tableText.ts';
import { splitSpecs } from '../../score/registry.ts';
import { AGGREGATIONS, type Aggregation } from '../../score/sweeps.ts';
import { addImportFlags, importOptionsFrom, type ImportFlags } from '../importFlags.ts';
import { companionLines, emit, outIs, unreadLines, warnIfUnfinished } from '../output.ts';
import { listFlag, someOf } from '../keyValueArgs.ts';
import { narrowed } from './diff.ts';

interface TableFlags extends ImportFlags {
  extractors?: string;
  normalizers?: string;
  aggregation: string;
  task?: string;
  gap?: string;
  target?: string;
  tolerance: string;
  tasks?: string;
  out?: string;
  json: boolean;
}

function number(text: string | undefined, flag: string, min = -Infinity): number | undefined {
  if (text === undefined) return undefined;
  const n = Number(text);
  if (text.trim() === '' || !Number.isFinite(n) || n < min) throw new BadInputError(`${flag} takes a number${min > -Infinity ? ` ≥ ${min}` : ''}, got '${text}'`, { field: flag });
  return n;
}

export function tableOptionsFrom(flags: Omit<TableFlags, keyof ImportFlags | 'json'>): TableOptions {
  if (!AGGREGATIONS.includes(flags.aggregation as Aggregation)) throw new BadInputError(`unknown aggregation '${flags.aggregation}'.${nameHint(flags.aggregation, AGGREGATIONS)}`, { field: '--aggregation' });
  const gap = number(flags.gap, '--gap', 0);
  if (gap === 0) throw new BadInputError('--gap must be above 0', { field: '--gap' });
  return {
    extractors: flags.extractors === undefined ? undefined : someOf(splitSpecs(flags.extractors), flags.extractors, '--extractors'),
    normalizers: listFlag(flags.normalizers, '--normalizers'),
    aggregation: flags.aggregation as Aggregation,
    task: flags.task,
    gap,
    target: number(flags.target, '--target'),
    tolerance: number(flags.tolerance, '--tolerance', 0)!,
  };
}

export function registerTable(program: Command): void {
  addImportFlags(
    program
      .command('table')
      .description('The audit table across runs: configurations (rows) × reading rules (columns), spreads, reachability and interactions (no model call)')
      .argument('<sources...>', 'a run store (e.g. one `run --grid` wrote), or anything `import` reads: every run is a row')
      .option('--extractors <names>', 'columns: comma-separated extractors (default: the sweep for the answer type, from audits/)')
      .option('--normalizers <names>', 'columns: comma-separated normalisers')
      .option('--aggregation <name>', `aggregation of every cell (${AGGREGATIONS.join(', ')})`, 'micro')
      .option('--task <name>', 'only the table of this task')
      .option('--gap <x>', 'a headline model-to-model gap to set against the spread (e.g. 0.033)')
      .option('--target <x>', 'a published number: list every cell whose 95% interval contains it')
      .option('--tolerance <x>', 'widen each interval by this much on both sides for --target', '0')
      .option('--tasks <names>', "only these tasks (comma-separated; * matches any text, as lm-eval's --tasks)")
      .option('--out <file>', 'write the tables (text, or JSON with --json or a .json name) to this file instead of stdout')
      .option('--json', 'print the tables as JSON', false),
  ).action(async (sources: string[], flags: TableFlags) => {
    const options = tableOptionsFrom(flags);
    const source = narrowed(await loadSource(sources, importOptionsFrom(flags)), flags.tasks);
    warnIfUnfinished(sources.join(', '), source.store);
    // A task name no run holds is a typo more often than not: named with the closest, as --tasks does.
    const present = tasksOf(source.store);
    if (options.task !== undefined && !present.includes(options.task)) throw new UnknownNameError('task in this source', options.task, present);
    const tables = await buildTables(source.store, options);
    if (tables.length === 0) throw new BadInputError(`no run in ${sources.join(', ')} has per-item records or reported numbers${options.task === undefined ? '' : ` for task '${options.task}'`}`);
    if (flags.json || outIs(flags.out, 'json')) await emit({ json: { tables, grid: source.store.manifest.grid ?? null, files_not_recognised: source.unrecognised } }, flags.out, 'tables');
    else await emit({ lines: [...companionLines(source.companions), ...unreadLines(source.unrecognised), ...tables.flatMap((t, i) => (i === 0 ? tableLines(t) : ['', ...tableLines(t)]))] }, flags.out, 'tables');
  });
}
