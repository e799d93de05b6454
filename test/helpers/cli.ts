/** Runs the lmaudit CLI from the TypeScript sources in a child process. */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../', import.meta.url));

export interface CliResult {
  status: number | null;
  stdout: string;
  stderr: string;
}

export function runCli(args: readonly string[], options: { cwd?: string; env?: Record<string, string> } = {}): CliResult {
  const result = spawnSync(process.execPath, ['--import', 'tsx', `${root}src/cli/main.ts`, ...args], {
    cwd: options.cwd ?? root,
    encoding: 'utf8',
    env: { ...process.env, ...options.env },
    maxBuffer: 256 * 1024 * 1024,
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** The repository's root folder. */
export const repoRoot = root;
