/**
 * A declared falsifier's max_abs_difference against an exact difference. truthfulqa_mc1, gpt2-tiny 3 of 20 right,
 * qwen3-tiny 4 of 20 (fixtures/models/lmeval-reference/*\/cells-mc): B − A is 4/20 − 3/20 = 1/20 = 0.05 exactly,
 * but it was computed as 0.2 − 0.15 = 0.05000000000000002, and "max_abs_difference: 0.05" printed
 * "is VIOLATED: |B − A| = 0.05000". The falsifier also named perplexity,none where its B − A is of mean
 * log-likelihoods.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pairedComparison } from '../../src/audit/pairedStats.ts';
import { runCli } from '../helpers/cli.ts';
import { fixturePath } from '../helpers/fixtures.ts';

test('B − A on 0/1 scores is the exact count difference over n', () => {
  const a = [1, 1, 1, ...Array(17).fill(0)];
  const b = [1, 1, 1, 1, ...Array(16).fill(0)];
  // (4 − 3) / 20: the double nearest 1/20, which is what the literal 0.05 is.
  assert.equal(pairedComparison(a, b, { iterations: 10 }).difference, 0.05);
  // 9 right only in A, 2 only in B, of 11: (2 − 9) / 11.
  assert.equal(pairedComparison([...Array(9).fill(1), 0, 0], [...Array(9).fill(0), 1, 1], { iterations: 10 }).difference, -7 / 11);
});

test('CLI: max_abs_difference 0.05 holds at exactly 0.05 and 0.04 is violated, the finding naming the score', (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'lmaudit-declared-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const [a, b] = [fixturePath('models/lmeval-reference/gpt2-tiny/cells-mc'), fixturePath('models/lmeval-reference/qwen3-tiny/cells-mc')];
  const falsifier = (limit: number) => {
    const file = join(dir, `within-${limit}.yaml`);
    writeFileSync(file, `claim: "within ${limit}"\nscore: acc,none\nmax_abs_difference: ${limit}\n`);
    return file;
  };
  const holds = runCli(['diff', a, b, '--tasks', 'truthfulqa_mc1', '--iterations', '10', '--falsifier', falsifier(0.05)]);
  assert.equal(holds.status, 0, holds.stderr);
  assert.match(holds.stdout, /"within 0\.05" holds\./);
  const violated = runCli(['diff', a, b, '--tasks', 'truthfulqa_mc1', '--iterations', '10', '--falsifier', falsifier(0.04)]);
  assert.equal(violated.status, 1);
  assert.match(violated.stdout, /is VIOLATED: truthfulqa_mc1: \|B − A\| of acc,none = 0\.05 on 20 shared items \(at most 0\.04 declared\)\./);
  const ppl = join(dir, 'ppl.yaml');
  writeFileSync(ppl, 'claim: "few-shot does not move perplexity"\nscore: perplexity,none\nmax_abs_difference: 0.05\n');
  const lambada = runCli(['diff', fixturePath('models/lmeval-reference/gpt2-tiny/plain'), fixturePath('models/lmeval-reference/gpt2-tiny/diff-fewshot2'), '--tasks', 'lambada_openai', '--iterations', '10', '--falsifier', ppl]);
  assert.equal(lambada.status, 1);
  assert.match(lambada.stdout, /\|B − A\| of perplexity,none \(mean log-likelihood\) = 0\.1283 on 20 shared items/);
});

test('a McNemar sentence says which test decides where the bootstrap interval printed beside it points the other way', () => {
  // arc_easy, gpt2-tiny 0-shot vs 2-shot (fixtures/models/lmeval-reference/gpt2-tiny/plain, diff-fewshot2): 0 right only
  // in A, 4 only in B of 20; McNemar's exact p is 2 · 0.5^4 = 0.125, while the percentile interval is [0.05, 0.4]
  // (reference/arc_easy_fewshot_reference.py, CPython's random and numpy.percentile, gives both).
  const ref = JSON.parse(readFileSync(new URL('./reference/arc_easy_fewshot_reference.json', import.meta.url), 'utf8'));
  assert.deepEqual([ref.a_only, ref.b_only, ref.mcnemar_p, ref.ci], [0, 4, 0.125, [0.05, 0.4]]);
  const r = runCli(['diff', fixturePath('models/lmeval-reference/gpt2-tiny/plain'), fixturePath('models/lmeval-reference/gpt2-tiny/diff-fewshot2'), '--tasks', 'arc_easy']);
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /acc,none: The difference \(B − A = \+0\.2\) is not distinguishable from noise at n = 20: McNemar exact p = 0\.125 on 4 discordant item\(s\) \(0 right only in A, 4 right only in B\); the paired bootstrap 95% interval \[0\.0500, 0\.400\] excludes 0, but on 0\/1 scores the exact test decides\./);
});
