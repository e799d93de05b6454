/**
 * Two filter pipelines (regex + take_first, GSM8K's strict/flexible), a group and a
 * multiple_choice task (stringified resps, choices from arg_1), end
 * to end: files written by reference/lmeval_reference.py (scored there with Python's
 * re and numpy, lm-eval's way), imported, rescored as recorded, every number matched.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadSource } from '../../../src/audit/source.ts';
import { rescoreAsRecorded } from '../../../src/score/lmeval/asRecorded.ts';

const run = JSON.parse(readFileSync(new URL('./reference/cases.json', import.meta.url), 'utf8').replace(/\bNaN\b/g, 'null')).synthetic_run;

test('a two-filter, two-task run with a group is reproduced item by item and number by number', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'lmaudit-synth-'));
  const ts = '2026-01-01T00-00-00.000000';
  await writeFile(join(dir, `results_${ts}.json`), run.results_json);
  for (const [task, lines] of Object.entries(run.samples as Record<string, string[]>)) {
    await writeFile(join(dir, `samples_${task}_${ts}.jsonl`), `${lines.join('\n')}\n`);
  }
  const { store } = await loadSource([dir], { skipBad: false, fields: {} });
  const prov = store.manifest.runs[0]!;
  assert.equal(prov.notes.filter((n) => n.kind === 'task_hash_verified').length, 3);
  const report = await rescoreAsRecorded(store);
  assert.equal(report.cells.length, 8);
  for (const c of report.cells) {
    assert.equal(c.matches_reported, true, `${c.task} ${c.metric},${c.filter}: ${c.value} ± ${c.stderr} vs ${JSON.stringify(c.reported)}`);
    assert.deepEqual(c.items.differing, []);
    assert.equal(c.items.taken_as_recorded, null);
  }
  const group = report.cells.find((c) => c.task === 'gsm' && c.filter === 'flexible-extract')!;
  assert.equal(group.n, 19);
  assert.equal(group.items.reproduced, 19);
  assert.equal(group.value, 0.631578947368421);
  assert.equal(group.stderr, 0.11646166779188788);
});
