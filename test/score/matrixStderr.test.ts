import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadSource } from '../../src/audit/source.ts';
import { computeMatrix } from '../../src/score/matrix.ts';
import { fixturePath } from '../helpers/fixtures.ts';

// The numbers lm-eval 0.4.13 printed in each run's results file (results[task]['<metric>,none'] and
// '<metric>_stderr,none'), which scripts/fixtures/matrix_lmeval_stderr.py recomputes with lm-eval's own mean and
// mean_stderr over the samples files. Exact: a cell named after an lm-eval metric is that metric, summed in the
// harness's order. The closed form from the count of correct items (sqrt((c(1-μ)² + (n-c)μ²)/(n-1))/√n) is the
// same number up to the last bits, and printed 0.0917662935482247, 0.10942433098048311, 0.10720195170378465,
// 0.049999999999999996 and 0.08191780219091252 here.
const CASES: { run: string; task: string; metric: string; score: number; stderr: number }[] = [
  { run: 'gpt2-tiny/cells-mc', task: 'boolq', metric: 'acc', score: 0.2, stderr: 0.09176629354822471 },
  { run: 'gpt2-tiny/cells-mc', task: 'hellaswag', metric: 'acc_norm', score: 0.35, stderr: 0.1094243309804831 },
  { run: 'gpt2-tiny/cells-mc', task: 'truthfulqa_mc2', metric: 'acc', score: 0.37299967995259997, stderr: 0.10720195170378463 },
  { run: 'gpt2-tiny/plain', task: 'arc_easy', metric: 'acc_norm', score: 0.05, stderr: 0.04999999999999999 },
  { run: 'qwen3-tiny/cells-mc', task: 'arc_challenge', metric: 'acc_norm', score: 0.15, stderr: 0.08191780219091253 },
];

test("log-prob cells named after lm-eval's metrics print its mean and mean_stderr to the last bit", async () => {
  for (const run of new Set(CASES.map((c) => c.run))) {
    const { store } = await loadSource([fixturePath(`models/lmeval-reference/${run}`)], { skipBad: false, fields: {} });
    const scopes = await computeMatrix(store, {});
    for (const want of CASES.filter((c) => c.run === run)) {
      const scope = scopes.find((s) => s.task === want.task)!;
      for (const aggregation of ['micro', 'macro'] as const) {
        // One group per task here, so the macro cell is the micro one.
        const cell = scope.cells.find((c) => c.extractor === want.metric && c.aggregation === aggregation)!;
        const where = `${run} ${want.task} ${want.metric} ${aggregation}`;
        assert.equal(cell.score, want.score, where);
        assert.equal(cell.stderr, want.stderr, where);
        assert.deepEqual(cell.ci95, [Math.max(0, want.score - 1.959963984540054 * want.stderr), Math.min(1, want.score + 1.959963984540054 * want.stderr)], where);
      }
    }
  }
});
