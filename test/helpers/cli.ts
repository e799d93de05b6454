/** Runs the lmaudit CLI in a child process: the bundle a user runs, or the TypeScript sources where it is behind. */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../', import.meta.url));

function newest(dir: string): number {
  return Math.max(0, ...readdirSync(dir, { withFileTypes: true }).map((e) => (e.isDirectory() ? newest(join(dir, e.name)) : statSync(join(dir, e.name)).mtimeMs)));
}

/**
 * The node arguments that start the CLI. bin/lmaudit.mjs runs the bundle (scripts/run-tests.mjs rebuilds it when the
 * sources are newer) and starts in a fifth of the CPU time tsx takes to compile the sources, which a suite of some
 * hundreds of CLI runs pays; a bundle older than the sources (a test run without run-tests) falls back to them.
 */
const bundle = join(root, 'dist/lmaudit.cjs');
const bundleCurrent = existsSync(bundle) && statSync(bundle).mtimeMs >= newest(join(root, 'src'));
export const cliArgs: readonly string[] = bundleCurrent ? [join(root, 'bin/lmaudit.mjs')] : ['--import', 'tsx', join(root, 'src/cli/main.ts')];

export interface CliResult {
  status: number | null;
  stdout: string;
  stderr: string;
}

export function runCli(args: readonly string[], options: { cwd?: string; env?: Record<string, string> } = {}): CliResult {
  const result = spawnSync(process.execPath, [...cliArgs, ...args], {
    cwd: options.cwd ?? root,
    encoding: 'utf8',
    env: { ...process.env, ...options.env },
    maxBuffer: 256 * 1024 * 1024,
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** The repository's root folder. */
export const repoRoot = root;
