/**
 * A group's falsifier from its leaves' (src/audit/groupFalsifier.ts): each clause is its leaves' worst, and the
 * group's own weighting must agree. Hand-built comparisons; test/models/lmevalAudit.ts holds the lm-eval vs lmaudit case.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { comparedLeaves, groupFalsifier, type ComparedTask } from '../../src/audit/groupFalsifier.ts';
import type { Clause, ClauseStatus } from '../../src/audit/falsifier.ts';
import type { SettingsDiff } from '../../src/audit/settingsDiff.ts';
import type { RunProvenance } from '../../src/store/schema.ts';

const NAMES = ['fewshot', 'scoring', 'harness'] as const;

function task(name: string, statuses: Partial<Record<(typeof NAMES)[number], ClauseStatus>>, weighting?: { a: unknown; b: unknown; verdict: string }): ComparedTask {
  const clauses: Clause[] = NAMES.map((n) => ({ name: n, phrase: `${n} things`, status: statuses[n] ?? 'holds', finding: statuses[n] === undefined ? 'agree' : `${n} ${statuses[n]} in ${name}` }));
  const settings = { taskA: name, taskB: name, rulesApplied: [], items: weighting === undefined ? [] : [{ item: 'repeats', fields: [{ field: 'group_weighting', a: { status: 'recorded', value: weighting.a }, b: { status: 'recorded', value: weighting.b }, verdict: weighting.verdict, rules: [] }] }] } as unknown as SettingsDiff;
  return { taskA: name, taskB: name, settings, hasItems: !name.startsWith('group'), falsifier: { clauses, status: 'holds', sentence: '' } };
}

const run = (leaves: string[] | null) => ({ tasks: { group: { repeats: { group_weighting: leaves === null ? { configured: { status: 'unknown' }, used: { status: 'unknown' } } : { configured: { status: 'unknown' }, used: { status: 'recorded', value: { leaves } } } } } } }) as unknown as RunProvenance;

test('each clause of a group is its leaves\' worst: violated in any, else unknown in any, else holds', () => {
  const leaves = [task('x', {}), task('y', { fewshot: 'violated', harness: 'unknown' }), task('z', { harness: 'unknown' })];
  const f = groupFalsifier('This comparison', task('group', { harness: 'violated', scoring: 'unknown' }), leaves);
  assert.equal(f.status, 'violated');
  assert.deepEqual(f.clauses.map((c) => [c.name, c.status, c.finding]), [
    ['fewshot', 'violated', "violated in 1 of the group's 3 leaf tasks (y: fewshot violated in y)"],
    ['scoring', 'holds', "agree in each of the group's 3 leaf tasks (each leaf's falsifier says how)"],
    ['harness', 'unknown', "unknown in 2 of the group's 3 leaf tasks (y: harness unknown in y; z: harness unknown in z)"],
  ]);
  assert.equal(f.sentence, "This comparison is void if the two runs used different fewshot things, scoring things, or harness things; here violated in 1 of the group's 3 leaf tasks (y: fewshot violated in y); and the records cannot tell whether the harness things agree.");
});

test("a group whose weighting differs is void though every leaf holds", () => {
  const group = task('group', {}, { a: { leaves: ['x'], weight_by_size: true }, b: { leaves: ['x'], weight_by_size: false }, verdict: 'differs' });
  const f = groupFalsifier('This comparison', group, [task('x', {})]);
  assert.equal(f.status, 'violated');
  assert.deepEqual(f.clauses.find((c) => c.name === 'scoring'), { name: 'scoring', phrase: 'scoring things', status: 'violated', finding: `the group's weighting differs ({"leaves":["x"],"weight_by_size":true} vs {"leaves":["x"],"weight_by_size":false})` });
  assert.equal(f.clauses.find((c) => c.name === 'fewshot')!.finding, "agree in the group's only leaf task (each leaf's falsifier says how)");
});

test('a group is judged by its leaves only when both runs name the same leaves and each was compared with items', () => {
  const all = [task('group', {}), task('x', {}), task('y', {})];
  assert.deepEqual(comparedLeaves(run(['y', 'x']), run(['x', 'y']), all[0]!, all)!.map((l) => l.taskA), ['y', 'x']);
  assert.equal(comparedLeaves(run(['x', 'y']), run(['x']), all[0]!, all), null);
  assert.equal(comparedLeaves(run(['x', 'y']), run(null), all[0]!, all), null);
  assert.equal(comparedLeaves(run(['x', 'w']), run(['x', 'w']), all[0]!, all), null);
  const noItems = [all[0]!, all[1]!, { ...all[2]!, hasItems: false }];
  assert.equal(comparedLeaves(run(['x', 'y']), run(['x', 'y']), noItems[0]!, noItems), null);
});
