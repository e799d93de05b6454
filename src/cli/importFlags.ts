/** Flags shared by every command that reads a source (import, rescore, diff, report). */
import type { Command } from 'commander';
import type { ImportOptions } from '../import/types.ts';

export interface ImportFlags {
  skipBad?: boolean;
  idField?: string;
  outputField?: string;
  goldField?: string;
  groupField?: string;
}

export function addImportFlags(command: Command): Command {
  return command
    .option('--skip-bad', 'count and report bad records instead of failing on the first', false)
    .option('--id-field <name>', 'generic records: the id field')
    .option('--output-field <name>', 'generic records: the raw model output field')
    .option('--gold-field <name>', 'generic records: the gold answer field')
    .option('--group-field <name>', 'generic records: the subject/subtask field');
}

export function importOptionsFrom(flags: ImportFlags): ImportOptions {
  return {
    skipBad: flags.skipBad ?? false,
    fields: { id: flags.idField, output: flags.outputField, gold: flags.goldField, group: flags.groupField },
  };
}
