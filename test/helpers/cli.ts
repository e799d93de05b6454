/** Runs the lmaudit CLI in a child process: the bundle a user runs, or the TypeScript sources where it is behind. */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
// @ts-expect-error: plain JavaScript, no declarations
import { bundleIsCurrent } from '../../bin/bundle.mjs';

const root = fileURLToPath(new URL('../../', import.meta.url));

/**
 * The node arguments that start the CLI. bin/lmaudit.mjs runs the bundle (scripts/run-tests.mjs rebuilds it when the
 * sources are newer) and starts in a fifth of the CPU time tsx takes to compile the sources, which a suite of some
 * hundreds of CLI runs pays; a bundle older than the sources (a test run without run-tests) falls back to them.
 */
export const cliArgs: readonly string[] = (bundleIsCurrent() as boolean) ? [join(root, 'bin/lmaudit.mjs')] : ['--import', 'tsx', join(root, 'src/cli/main.ts')];

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

/**
 * The ONNX backend's model argument most tests that run the fixture models add: one inference thread. The default is
 * a thread a core, and onnxruntime's threads spin while they wait for each other: on the 2-core machines the suite
 * runs on, the fixture models' tiny passes then cost about 40% more CPU for the same numbers (5.3 CPU s against 3.1
 * for a run of ten tasks). What these tests check does not depend on the count; the default is still what the README
 * examples, test/serve/cli.test.ts and faults.test.ts, test/run/lmevalResultsShape.test.ts and onnxBackend's
 * off-the-main-thread test run.
 */
export const ONE_THREAD = 'threads=1';

/** The repository's root folder. */
export const repoRoot = root;
