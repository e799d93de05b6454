import { test } from 'node:test';
import assert from 'node:assert/strict';
import { groupAggregate } from '../../../src/score/lmeval/aggregate.ts';

// lm-eval 0.4.13's own aggregate_subtask_metrics, pooled_sample_stderr and unweighted_mean_stderr on leaf tasks of
// unequal sizes (scripts/fixtures/make_group_stderr_cases.py). api/group.py takes the pooled stderr for a
// size-weighted group and the plain mean's (sqrt(Σ se²) / k) for one with weight_by_size false; up to 0.4.12 it
// took the pooled one for both, which is what lmaudit printed for an unweighted group (0.030376781160242804 here).
const CASES = [
  {
    values: [0.3, 0.4444444444444444, 0.55], stderrs: [0.04605661864718383, 0.04293401937150616, 0.11413288653790232], sizes: [100, 135, 20],
    weighted: { value: 0.396078431372549, stderr: 0.030376781160242804 },
    unweighted: { value: 0.4314814814814815, stderr: 0.04344966171723406 },
    pooledUpTo0412: 0.030376781160242804,
  },
  {
    values: [0.25, 0.2], stderrs: [0.09933992677987828, 0.13333333333333333], sizes: [20, 10],
    weighted: { value: 0.23333333333333334, stderr: 0.07980631315283032 },
    unweighted: { value: 0.225, stderr: 0.08313573063131363 },
    pooledUpTo0412: 0.07980631315283032,
  },
];

test("a group's stderr is lm-eval 0.4.13's: pooled when weighted by size, the plain mean's when not", () => {
  for (const c of CASES) {
    const tasks = c.values.map((value, i) => ({ value, stderr: c.stderrs[i]!, n: c.sizes[i]! }));
    assert.deepEqual(groupAggregate(tasks, true), c.weighted);
    assert.deepEqual(groupAggregate(tasks, false), c.unweighted);
    assert.deepEqual(groupAggregate(tasks, false, 'pooled'), { value: c.unweighted.value, stderr: c.pooledUpTo0412 });
    assert.deepEqual(groupAggregate([...tasks.slice(1), { ...tasks[0]!, stderr: 'N/A' }], false), { value: groupAggregate([...tasks.slice(1), tasks[0]!], false).value, stderr: 'N/A' });
  }
});

test("lmaudit run's unweighted group and its as-recorded rescoring take lm-eval 0.4.13's stderr of the plain mean", async () => {
  const { mkdtempSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const { join } = await import('node:path');
  const { runCli } = await import('../../helpers/cli.ts');
  const { openStore } = await import('../../../src/store/readStore.ts');
  const { rescoreAsRecorded } = await import('../../../src/score/lmeval/asRecorded.ts');
  const dir = mkdtempSync(join(tmpdir(), 'lmaudit-group-stderr-'));
  // qa_unweighted's acc has weight_by_size false; --limit 0.02 gives its leaves 48, 3 and 24 documents.
  const r = runCli(['run', '--model', 'dummy', '--tasks', 'qa_unweighted', '--include_path', 'fixtures/models/tasks', '--limit', '0.02', '--out', join(dir, 'store')]);
  assert.equal(r.status, 0, r.stderr);
  const cells = (await rescoreAsRecorded(await openStore(join(dir, 'store')))).cells.filter((c) => c.metric === 'acc');
  const stderrOf = (task: string) => cells.find((c) => c.task === task)!.stderr;
  assert.deepEqual([stderrOf('arc_easy'), stderrOf('mmlu_anatomy'), stderrOf('arc_challenge')], [0.05436067275445351, 0.33333333333333337, 0.07770873402002615]);
  // python: lm_eval.api.metrics.unweighted_mean_stderr of those three = 0.11552048456943954 (pooled_sample_stderr
  // with sizes 48, 3, 24, what lmaudit run printed before: 0.044444444444444446).
  const group = cells.find((c) => c.task === 'qa_unweighted')!;
  assert.deepEqual([group.value, group.stderr, group.reported?.stderr, group.matches_reported], [0.3333333333333333, 0.11552048456943954, 0.11552048456943954, true]);
  assert.match(group.why!, /stderr of the plain mean of the tasks, as lm-eval 0\.4\.13 takes it$/);
});
