/**
 * `ls` prints a non-finite reported number as the number it is. lm-eval 0.4.8 wrote polymer_tg_prediction's
 * `"mae,none": Infinity, "mae_stderr,none": NaN` (fixtures/lmeval-more/pr3144-tgpred, gpt-4o-mini); provenance.json
 * keeps them as Python's tokens, and `ls` listed them as the text `mae,none "Infinity"` with the stderr left out.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fixturePath } from '../helpers/fixtures.ts';
import { runCli } from '../helpers/cli.ts';

test('ls: a reported Infinity ± NaN is listed as numbers, the stderr beside its metric', () => {
  const r = runCli(['ls', fixturePath('lmeval-more/pr3144-tgpred')]);
  assert.equal(r.status, 0, r.stderr);
  const row = r.stdout.split('\n').find((l) => l.trimStart().startsWith('polymer_tg_prediction'));
  assert.equal(row?.trim().split(/\s{2,}/).join(' | '), 'polymer_tg_prediction | 24 | 24 | mae,none Infinity ± NaN');
});
