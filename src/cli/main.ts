/**
 * `lmaudit` command line. Each command lives in its own module under commands/;
 * this file only assembles them. Nothing below cli/ prints or exits.
 */
import { Command } from 'commander';
import { reportAndExit } from './exit.ts';
import { registerImport } from './commands/import.ts';
import { registerDiff } from './commands/diff.ts';
import { registerReport } from './commands/report.ts';
import { registerPrompts } from './commands/prompts.ts';
import { registerRescore } from './commands/rescore.ts';

const program = new Command()
  .name('lmaudit')
  .description('Make LLM benchmark numbers auditable: import, rescore, diff and report evaluation outputs.')
  .version('0.1.0')
  .exitOverride()
  .showHelpAfterError();

/** The one list of commands. */
const COMMANDS: readonly ((program: Command) => void)[] = [registerImport, registerPrompts, registerRescore, registerDiff, registerReport];
for (const register of COMMANDS) register(program);

program.parseAsync(process.argv).catch(reportAndExit);
