/**
 * Issue 28 §2: as-recorded recomputes winogrande's partial-evaluation acc and truthfulqa_mc2's acc of an imported
 * lm-eval run (a local copy of each task, dataset_path json) instead of taking them as recorded. Reference: the
 * real lm-eval 0.4.13 runs fixtures/models/lmeval-reference/{gpt2-tiny,qwen3-tiny}/cells-mc and the numbers each results
 * file printed.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { asRecordedOf } from './recordedCells.ts';
import { fixturePath } from '../../helpers/fixtures.ts';

for (const model of ['gpt2-tiny', 'qwen3-tiny']) {
  test(`${model} cells-mc: every metric of every task recomputed (none taken as recorded), each aggregate equal to the results file`, async () => {
    const { printed: results, report } = await asRecordedOf(fixturePath(`models/lmeval-reference/${model}/cells-mc`));
    const seen: string[] = [];
    for (const cell of report.cells) {
      const label = `${cell.task} ${cell.metric}`;
      seen.push(label);
      assert.equal(cell.items.taken_as_recorded, null, label);
      assert.deepEqual(cell.items.differing, [], label);
      assert.equal(cell.items.reproduced + (cell.items.within_tolerance?.count ?? 0), 20, label);
      const printed = results[cell.task][`${cell.metric},none`] as number;
      // mc2's per-item values may sit a few ulp from numpy's (taskCode.ts): their mean within 1e-12; the rest exactly.
      if (cell.task === 'truthfulqa_mc2') assert.ok(Math.abs((cell.value as number) - printed) <= 1e-12, label);
      else assert.equal(cell.value, printed, label);
      assert.equal(cell.matches_reported, true, label);
    }
    assert.deepEqual(seen.sort(), [
      'arc_challenge acc', 'arc_challenge acc_norm', 'boolq acc', 'hellaswag acc', 'hellaswag acc_norm', 'piqa acc', 'piqa acc_norm',
      'truthfulqa_mc1 acc', 'truthfulqa_mc2 acc', 'winogrande acc',
    ]);
  });
}
