/**
 * The single exit point: turns an error into a message on stderr and an exit
 * code. Known errors print their message; anything else is a bug and prints a stack.
 */
import { LmauditError } from '../errors.ts';

export function reportAndExit(error: unknown): never {
  if (error instanceof LmauditError) {
    process.stderr.write(`lmaudit: ${error.message}\n`);
    process.exit(error.exitCode);
  }
  const commanderCode = (error as { code?: string; exitCode?: number })?.code;
  if (typeof commanderCode === 'string' && commanderCode.startsWith('commander.')) {
    const exitCode = (error as { exitCode: number }).exitCode;
    process.exit(exitCode === 0 ? 0 : 2);
  }
  process.stderr.write(`lmaudit: internal error: ${(error as Error)?.stack ?? String(error)}\n`);
  process.exit(3);
}

export function exitWith(code: number): never {
  process.exit(code);
}
