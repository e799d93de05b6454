/**
 * The matrix note for a task whose metrics no cell reads. GPT-2 on xquad.en through the 2022 BigScience fork
 * (fixtures/external pr566-bigscience-xquad) reports SQuAD's exact, f1 and their HasAns/best variants; the note said
 * "none of them a match of an answer against the gold", but `exact` is exactly that (SQuAD-normalised answer equal to
 * a gold, × 100), the exact/squad cell, which reads 0 on these 5 items as the reported exact 0 says.
 * The pr3144 regression task reports only mae, which no cell reads: its note stays.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadSource } from '../../src/audit/source.ts';
import { taskCode } from '../../src/audit/taskCode.ts';
import { externalFixture } from '../helpers/fixtures.ts';

const OPTIONS = { skipBad: false, fields: {} };

test("SQuAD's exact is read by a matrix cell; mae is not", async () => {
  const xquad = (await loadSource([externalFixture('lm-evaluation-harness/pr566-bigscience-xquad')], OPTIONS)).store.manifest.runs[0]!;
  for (const task of Object.keys(xquad.tasks)) assert.equal(await taskCode(xquad, task), null, task);
  const tg = (await loadSource([externalFixture('lm-evaluation-harness/pr3144-tgpred')], OPTIONS)).store.manifest.runs[0]!;
  assert.match((await taskCode(tg, 'polymer_tg_prediction'))!.sentence, /^polymer_tg_prediction reports mae, which is not a match of an answer against the gold/);
});
