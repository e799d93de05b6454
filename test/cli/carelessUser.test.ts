/**
 * A careless user's mistakes on the command line: each is refused with exit 2 and a message that names the flag
 * or file, never an internal error with a stack, and a refused command leaves nothing behind.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../helpers/cli.ts';

const tmp = () => mkdtempSync(join(tmpdir(), 'lmaudit-careless-'));

test('--num_fewshot 1.5 is refused as lm-eval refuses it (argparse int), not a RangeError from the few-shot sampler', () => {
  const dir = tmp();
  const prompts = runCli(['prompts', '--tasks', 'arc_easy', '--limit', '2', '--num_fewshot', '1.5', '--out', join(dir, 'p.jsonl')]);
  assert.equal(prompts.status, 2, prompts.stderr);
  assert.equal(prompts.stderr, "lmaudit: --num_fewshot takes a whole number ≥ 0, got '1.5'\n");
  const run = runCli(['run', '--model', 'dummy', '--tasks', 'arc_easy', '--limit', '2', '--num_fewshot', '1.5', '--out', join(dir, 'store')]);
  assert.equal(run.status, 2, run.stderr);
  assert.equal(run.stderr, "lmaudit: --num_fewshot takes a whole number ≥ 0, got '1.5'\n");
  for (const value of ['1.5', '-1']) {
    const grid = runCli(['run', '--model', 'dummy', '--tasks', 'arc_easy', '--limit', '2', '--grid', `num_fewshot=0,${value}`, '--out', join(dir, `grid${value}`)]);
    assert.equal(grid.status, 2, grid.stderr);
    assert.match(grid.stderr, new RegExp(`--grid num_fewshot: '${value.replace('.', '\\.')}' is not a whole number ≥ 0\\n$`));
  }
});
