// The command as a user has it after `npm link` (a `lmaudit` on the PATH that links to bin/lmaudit.mjs through the
// global prefix), run from a folder that is not the repository, in a terminal. `run` is the one command that draws a
// live view (ink, only when stderr is a terminal): the other tests run it without one, and from the repository, so
// none saw the bundle resolve ink against the working folder ("Cannot find package 'ink' imported from <cwd>/").
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot } from '../helpers/cli.ts';

// util-linux's script(1) gives the command a pseudo-terminal (`-e`: its exit status is the command's).
const hasScript = spawnSync('script', ['--version'], { encoding: 'utf8' }).status === 0;
const skip = !existsSync(join(repoRoot, 'dist/lmaudit.cjs'))
  ? 'no bundle: run `npm run build` (npm ci does)'
  : !hasScript
    ? 'no script(1) for a pseudo-terminal (util-linux)'
    : false;

/** A global prefix laid out as `npm link` leaves it: bin/lmaudit → lib/node_modules/lmaudit/bin/lmaudit.mjs → the repository. */
function linkedPrefix(dir: string): string {
  mkdirSync(join(dir, 'lib/node_modules'), { recursive: true });
  mkdirSync(join(dir, 'bin'));
  symlinkSync(repoRoot, join(dir, 'lib/node_modules/lmaudit'));
  symlinkSync('../lib/node_modules/lmaudit/bin/lmaudit.mjs', join(dir, 'bin/lmaudit'));
  return join(dir, 'bin');
}

function inTerminal(command: string, cwd: string, bin: string) {
  const env: NodeJS.ProcessEnv = { ...process.env, PATH: `${bin}:${process.env.PATH}`, TERM: 'xterm', COLUMNS: '100' };
  delete env.LMAUDIT_PLAIN_PROGRESS;
  return spawnSync('script', ['-qec', command, '/dev/null'], { cwd, env, encoding: 'utf8' });
}

test('lmaudit run draws its live view in a terminal from any folder, as the installed command', { skip }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'lmaudit-installed-'));
  try {
    const bin = linkedPrefix(join(dir, 'prefix'));
    const work = join(dir, 'work');
    mkdirSync(work);
    const which = inTerminal('command -v lmaudit', work, bin);
    assert.equal(which.stdout.trim(), join(bin, 'lmaudit'));

    const single = inTerminal('lmaudit run --model dummy --tasks arc_easy --limit 2 --out s', work, bin);
    assert.doesNotMatch(single.stdout, /internal error|Cannot find package/);
    assert.equal(single.status, 0, single.stdout);
    // The view (drawn only on a terminal), then lm-eval's table: 2 documents × 4 choices.
    assert.match(single.stdout, /loglikelihood +█+ 8\/8/);
    assert.match(single.stdout, /\|arc_easy\|/);
    assert.ok(existsSync(join(work, 's/provenance.json')));

    // A grid draws the same view for each cell.
    const grid = inTerminal('lmaudit run --model dummy --tasks arc_easy --limit 1 --grid num_fewshot=0,1 --out g', work, bin);
    assert.doesNotMatch(grid.stdout, /internal error|Cannot find package/);
    assert.equal(grid.status, 0, grid.stdout);
    assert.match(grid.stdout, /loglikelihood +█+ 4\/4/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
