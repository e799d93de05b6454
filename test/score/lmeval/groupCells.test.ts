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
