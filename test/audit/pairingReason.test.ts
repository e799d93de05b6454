/**
 * The pairing's reason names why each rival candidate lost. A rival that shares more task names, but whose other
 * run was already paired, was counted among those "with as many shared names and more or as many differing
 * settings": a2 (mmlu) and b2 (mmlu) share 1 name; a1 shares 3 names with b2 and 4 with b1; a2 shares 2 with b1.
 * Greedy: (a1, b1) 4 names, then (a2, b1) and (a1, b2) lose their partner, then (a2, b2).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { pairRuns } from '../../src/audit/runPairs.ts';
import { emptyRunProvenance, emptyTaskProvenance, recorded, same, type RunProvenance } from '../../src/store/schema.ts';

function run(id: string, tasks: string[]): RunProvenance {
  const r = emptyRunProvenance({ run_id: id, label: id, source_kind: 'lm-eval', source_format: 'test' });
  for (const t of tasks) r.tasks[t] = emptyTaskProvenance();
  r.records.files = same(recorded([{ path: `/x/${id}`, sha256: '0', role: 'results' }]));
  return r;
}

test('a rival that shares more task names but whose other run was taken is said to be so', () => {
  const a1 = run('a1', ['arc_easy', 'piqa', 'boolq', 'hellaswag']);
  const a2 = run('a2', ['arc_easy', 'piqa', 'mmlu']);
  const b1 = run('b1', ['arc_easy', 'piqa', 'boolq', 'hellaswag']);
  const b2 = run('b2', ['boolq', 'hellaswag', 'piqa', 'mmlu']);
  const p = pairRuns([a1, a2], [b1, b2]);
  assert.deepEqual(p.pairs.map((x) => [x.a.run_id, x.b.run_id]), [['a1', 'b1'], ['a2', 'b2']]);
  // (a2, b2) shares piqa and mmlu (2 names); its rivals (a2, b1) share 2 (arc_easy, piqa) and (a1, b2) share 3, and
  // each lost only because b1 and a1 were already paired, with each other.
  assert.match(p.pairs[1]!.reason, /^the same task names \(piqa, mmlu\); no recorded setting differs; chosen over 2 other candidates \(2 whose other run was already paired, as closely or more\); --run-a\/--run-b choose other runs$/);
  // (a1, b1): 4 names; its rivals (a1, b2) 3 and (a2, b1) 2 share fewer.
  assert.match(p.pairs[0]!.reason, /chosen over 2 other candidates \(2 sharing fewer task names\); --run-a\/--run-b choose other runs$/);
});

test('the reason counts the settings that differ in every shared task, not only the first', () => {
  const a = run('a', ['arc_easy', 'gsm8k']);
  const b = run('b', ['arc_easy', 'gsm8k']);
  a.tasks.gsm8k!.fewshot.count = same(recorded(5));
  b.tasks.gsm8k!.fewshot.count = same(recorded(0));
  const p = pairRuns([a], [b]);
  // arc_easy, the first shared task, records the same; gsm8k's few-shot count differs.
  assert.equal(p.pairs[0]!.reason, 'the same task names (arc_easy, gsm8k); 1 setting differs (fewshot.count)');
});
