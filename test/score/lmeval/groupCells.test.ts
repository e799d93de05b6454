/**
 * As-recorded group cells on lm-eval's own run of a custom group (fixtures/models/lmeval-reference/gpt2-tiny/
 * custom-group, fixtures/models/tasks/qa_unweighted.yaml): acc_norm, which mmlu_anatomy lacks, is averaged by
 * lm-eval's Group.aggregate over the two leaves that have it (sample_count 6); the subgroup without aggregation
 * (qa_noagg) prints no number, so nothing is said to be left unreproduced for it.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadSource } from '../../../src/audit/source.ts';
import { rescoreAsRecorded } from '../../../src/score/lmeval/asRecorded.ts';
import { openStore } from '../../../src/store/readStore.ts';
import { runCli } from '../../helpers/cli.ts';
import { groupCells } from '../../../src/score/lmeval/groups.ts';
import type { AsRecordedCell } from '../../../src/score/lmeval/asRecordedCell.ts';
import { emptyRunProvenance, emptyTaskProvenance, recorded, same } from '../../../src/store/provenanceSchema.ts';

const REF = 'fixtures/models/lmeval-reference/gpt2-tiny/custom-group';

test('a group metric some leaves lack is reproduced from the leaves that have it, as lm-eval averages it', async () => {
  const { store } = await loadSource([REF], { skipBad: false, fields: {} });
  const report = await rescoreAsRecorded(store);
  const group = report.cells.filter((c) => c.task === 'qa_unweighted');
  const norm = group.find((c) => c.metric === 'acc_norm')!;
  // lm-eval's results: "acc_norm,none": 0.0, "acc_norm_stderr,none": 0.0, sample_count 6 (arc_easy 3 + arc_challenge 3).
  assert.deepEqual([norm.n, norm.value, norm.stderr, norm.matches_reported], [6, 0, 0, true]);
  const acc = group.find((c) => c.metric === 'acc')!;
  // weight_by_size is false in the YAML, but three leaves of 3 documents give both means (and stderrs) alike.
  assert.deepEqual([acc.n, acc.matches_reported], [9, true]);
  assert.equal(acc.why, 'weight_by_size true and false give these numbers alike (the group config is not in the results file)');
  assert.ok(!report.notes.some((n) => n.message.includes('qa_noagg')), JSON.stringify(report.notes));
});

test("a store that keeps the group's aggregate_metric_list (lmaudit run's) is rescored under its weight_by_size, and says so", async () => {
  const dir = mkdtempSync(join(tmpdir(), 'lmaudit-group-cells-'));
  const r = runCli(['run', '--model', 'dummy', '--tasks', 'qa_unweighted', '--include_path', 'fixtures/models/tasks', '--limit', '3', '--out', join(dir, 'store')]);
  assert.equal(r.status, 0, r.stderr);
  const report = await rescoreAsRecorded(await openStore(join(dir, 'store')));
  const why = Object.fromEntries(report.cells.filter((c) => c.task === 'qa_unweighted').map((c) => [c.metric, [c.why, c.matches_reported]]));
  // qa_unweighted.yaml: acc weight_by_size false, acc_norm true; the results file alone could not tell.
  assert.deepEqual(why, { acc: ["weight_by_size=false (the group's aggregate_metric_list)", true], acc_norm: ["weight_by_size=true (the group's aggregate_metric_list)", true] });
});

test("a task whose metrics cover different numbers of documents weighs in its group by one count, as lm-eval's sample_len: the largest from 0.4.13, the last metric's before", () => {
  // By hand: t1's acc covers 4 documents (0.5), its acc_norm 2 (1.0: two documents returned no acc_norm); t2's both 2
  // (0.0). lm-eval 0.4.13 weighs t1 by max(4, 2) = 4 for every metric: acc_norm (1.0·4 + 0·2) / 6 = 2/3. 0.4.12 by the
  // last metric aggregated, acc_norm's 2: (1.0·2 + 0·2) / 4 = 0.5. Each metric's own count would give 0.5 under 0.4.13.
  const leaf = (task: string, metric: string, n: number, value: number): AsRecordedCell => ({
    run_id: 'r', task, filter: 'none', metric, n, aggregation: 'mean', value, stderr: 'N/A', reported: null, matches_reported: null,
    items: { reproduced: n, within_tolerance: null, taken_as_recorded: null, differing: [] }, why: null, warnings: [],
  });
  const cells = [leaf('t1', 'acc', 4, 0.5), leaf('t1', 'acc_norm', 2, 1), leaf('t2', 'acc', 2, 0), leaf('t2', 'acc_norm', 2, 0)];
  const runOf = (version: string, printedNorm: number) => {
    const run = emptyRunProvenance({ run_id: 'r', label: 'r', source_kind: 'lm-eval', source_format: 'lm-eval results+samples' });
    run.harness.version = same(recorded(version));
    run.tasks.grp = emptyTaskProvenance();
    run.tasks.grp.repeats.group_weighting = { configured: recorded({ subtasks: ['t1', 't2'] }), used: recorded({ leaves: ['t1', 't2'] }) };
    run.reported.grp = { 'acc_norm,none': printedNorm, 'acc_norm_stderr,none': 'N/A' };
    return run;
  };
  const v13 = groupCells(runOf('0.4.13', 2 / 3), cells)[0]!;
  assert.deepEqual([v13.value, v13.n, v13.matches_reported], [2 / 3, 6, true]);
  const v12 = groupCells(runOf('0.4.12', 0.5), cells)[0]!;
  assert.deepEqual([v12.value, v12.n, v12.matches_reported], [0.5, 4, true]);
});
