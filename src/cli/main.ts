/**
 * `lmaudit` command line. Each command lives in its own module under commands/;
 * this file only assembles them. Nothing below cli/ prints or exits.
 */
import { Command } from 'commander';
import { reportAndExit } from './exit.ts';

type Register = (program: Command) => void;

/**
 * The one list of commands. Loaded on demand: a command pays only for its own
 * modules at start-up (the rescoring benchmark times whole processes). Those that
 * query DuckDB start opening it first, so that the database comes up on a worker
 * thread while the command's own modules compile.
 */
const COMMANDS = {
  import: { usesDuckDB: true, load: async () => (await import('./commands/import.ts')).registerImport },
  prompts: { usesDuckDB: false, load: async () => (await import('./commands/prompts.ts')).registerPrompts },
  run: { usesDuckDB: true, load: async () => (await import('./commands/run.ts')).registerRun },
  rescore: { usesDuckDB: true, load: async () => (await import('./commands/rescore.ts')).registerRescore },
  diff: { usesDuckDB: true, load: async () => (await import('./commands/diff.ts')).registerDiff },
  report: { usesDuckDB: true, load: async () => (await import('./commands/report.ts')).registerReport },
  table: { usesDuckDB: true, load: async () => (await import('./commands/table.ts')).registerTable },
  merge: { usesDuckDB: true, load: async () => (await import('./commands/merge.ts')).registerMerge },
  tasks: { usesDuckDB: false, load: async () => (await import('./commands/tasks.ts')).registerTasks },
  ls: { usesDuckDB: true, load: async () => (await import('./commands/ls.ts')).registerLs },
  export: { usesDuckDB: true, load: async () => (await import('./commands/export.ts')).registerExport },
  serve: { usesDuckDB: false, load: async () => (await import('./commands/serve.ts')).registerServe },
  view: { usesDuckDB: true, load: async () => (await import('./commands/view.ts')).registerView },
} satisfies Record<string, { usesDuckDB: boolean; load: () => Promise<Register> }>;

async function main(): Promise<void> {
  const program = new Command()
    .name('lmaudit')
    .description('Make LLM benchmark numbers auditable: import, rescore, diff and report evaluation outputs.')
    .version('0.1.0')
    .exitOverride()
    .showHelpAfterError();
  const requested = process.argv[2] ?? '';
  const names = Object.hasOwn(COMMANDS, requested) ? [requested as keyof typeof COMMANDS] : (Object.keys(COMMANDS) as (keyof typeof COMMANDS)[]);
  if (names.length === 1 && COMMANDS[names[0]!].usesDuckDB) (await import('../util/duckdb.ts')).warmDuck();
  for (const name of names) (await COMMANDS[name].load())(program);
  await program.parseAsync(process.argv);
  if (process.env.LMAUDIT_TIMING) process.stderr.write(`[done @${performance.now().toFixed(0)}]\n`);
}

main().catch(reportAndExit);
