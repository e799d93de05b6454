import { test } from 'node:test';
import assert from 'node:assert/strict';
import { pairRuns, selectRuns } from '../../src/audit/runPairs.ts';
import { emptyRunProvenance, emptyTaskProvenance, recorded, same, type RunProvenance } from '../../src/store/schema.ts';

function run(id: string, label: string, tasks: string[], file = `/x/${label}`): RunProvenance {
  const r = emptyRunProvenance({ run_id: id, label, source_kind: 'lm-eval', source_format: 'test' });
  for (const t of tasks) r.tasks[t] = emptyTaskProvenance();
  r.records.files = same(recorded([{ path: file, sha256: '0', role: 'results' }]));
  return r;
}

test('runs pair by shared tasks, greedily; the rest are listed', () => {
  const a1 = run('a1', 'results_03.json', ['arc_easy', 'piqa', 'mmlu']);
  const a2 = run('a2', 'results_11.json', ['xcopa_it', 'xnli_en']);
  const b1 = run('b1', 'results_02.json', ['xcopa_it', 'xnli_en', 'pawsx_en']);
  const b2 = run('b2', 'results_00.json', ['arc_easy', 'piqa']);
  const p = pairRuns([a1, a2], [b1, b2]);
  assert.deepEqual(p.pairs.map((x) => [x.a.run_id, x.b.run_id, x.tasks.length]), [['a1', 'b2', 2], ['a2', 'b1', 2]]);
  assert.deepEqual(p.pairs[0]!.onlyInA, ['mmlu']);
  assert.deepEqual(p.pairs[1]!.onlyInB, ['pawsx_en']);
  // One task on each side with different names: compared with each other.
  const q = pairRuns([run('c', 'c', ['winogrande'])], [run('d', 'd', ['question_shuffle_winogrande'])]);
  assert.deepEqual(q.pairs[0]!.tasks, [{ a: 'winogrande', b: 'question_shuffle_winogrande' }]);
  // The same one-run source on both sides compares the run with itself.
  const only = run('e', 'e', ['t']);
  assert.equal(pairRuns([only], [only]).pairs.length, 1);
  // One source on both sides, no selectors: each pair of its runs is compared once, not in both directions.
  const f = run('f', 'f', ['t']);
  const both = pairRuns([only, f], [only, f]);
  assert.deepEqual(both.pairs.map((x) => [x.a.run_id, x.b.run_id]), [['e', 'f']]);
  assert.deepEqual([both.unpairedA, both.unpairedB], [[], []]);
});

test('selectors: run id, label, record file name or task; a miss lists the runs', () => {
  const runs = [run('lmeval-1', 'w.json', ['winogrande']), run('lmeval-2', 'pretrained=x_winogrande.jsonl', ['winogrande'])];
  assert.deepEqual(selectRuns(runs, 'lmeval-2', 'A').map((r) => r.run_id), ['lmeval-2']);
  assert.deepEqual(selectRuns(runs, 'w.json', 'A').map((r) => r.run_id), ['lmeval-1']);
  assert.deepEqual(selectRuns(runs, 'winogrande', 'A').length, 2);
  assert.deepEqual(selectRuns(runs, undefined, 'A').length, 2);
  assert.throws(() => selectRuns(runs, 'hellaswag', 'B'), /no run of B matches 'hellaswag'; runs: lmeval-1 \(w\.json; tasks: winogrande\)/);
});
