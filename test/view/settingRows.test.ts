/**
 * The compare page folded every setting that is not 'same' or 'differs' under "N more settings the records cannot
 * compare (unknown in one run or both)", including a record that contradicts itself, an `auto` batch size resolved
 * and a setting the items settled ('same in effect'); and said "1 more settings".
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { settingRows } from '../../src/view/client/pages/compare.ts';

const field = (name: string, verdict: string) => ({ item: 'model', field: name, a: { status: 'recorded', value: 1 }, b: { status: 'recorded', value: 2 }, verdict, rules: [] });

test('compare page: only unknown settings are folded as not comparable', () => {
  const t = { settings: { taskA: 't', taskB: 't', rulesApplied: [], items: [{ item: 'model', task: null, verdict: 'differs', knownInA: 5, knownInB: 5, fields: [
    field('dtype', 'differs'), field('batch_size', 'resolved'), field('revision', 'unknown in A'), field('args', 'contradicts'), field('device', 'same'), field('backend', 'same in effect'),
  ] }] } } as never;
  const { shown, unknown, unknownSummary } = settingRows(t);
  assert.deepEqual(shown.map((r) => r.name), ['model.dtype', 'model.batch_size', 'model.args', 'model.backend']);
  assert.deepEqual(unknown.map((r) => r.name), ['model.revision']);
  assert.equal(unknownSummary, '1 more setting the records cannot compare (unknown in one run or both)');
});
