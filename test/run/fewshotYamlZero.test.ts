/**
 * A task whose YAML sets num_fewshot 0 (truthfulqa_mc1) run with --num_fewshot 2: lm-eval 0.4.13 keeps the 0
 * (evaluator.py: "num_fewshot has been set to 0 for truthfulqa_mc1 in its config. Manual configuration will be ignored.";
 * its results file then reads configs.truthfulqa_mc1.num_fewshot 0, n-shot 0). lmaudit run did the same, but its
 * provenance recorded the flag's 2 as configured beside the 0 used, and `diff` then said the record contradicted itself.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../helpers/cli.ts';

test('--num_fewshot N on a task whose YAML says num_fewshot 0: configured 0 (the YAML wins, as in lm-eval), and diff finds no contradiction', () => {
  const dir = mkdtempSync(join(tmpdir(), 'lmaudit-yaml-zero-'));
  for (const store of ['a', 'b']) {
    const r = runCli(['run', '--model', 'dummy', '--tasks', 'truthfulqa_mc1', '--num_fewshot', '2', '--limit', '2', '--out', join(dir, store)]);
    assert.equal(r.status, 0, r.stderr);
  }
  const count = JSON.parse(readFileSync(join(dir, 'a', 'provenance.json'), 'utf8')).runs[0].tasks.truthfulqa_mc1.fewshot.count;
  assert.equal(count.configured.value, 0);
  assert.match(count.configured.from, /truthfulqa_mc1\.yaml: num_fewshot 0, which lm-eval keeps over --num_fewshot 2$/);
  assert.equal(count.used.value, 0);
  const diff = runCli(['diff', join(dir, 'a'), join(dir, 'b'), '--iterations', '10', '--json']);
  assert.equal(diff.status, 0, diff.stderr);
  const rows = JSON.parse(diff.stdout).comparisons[0].tasks[0].settings.items.flatMap((i: { fields: { item: string; field: string; verdict: string; contradiction?: unknown }[] }) => i.fields);
  const row = rows.find((f: { item: string; field: string }) => f.item === 'fewshot' && f.field === 'count');
  assert.equal(row.verdict, 'same');
  assert.equal(row.contradiction, undefined);
  assert.deepEqual(rows.filter((f: { contradiction?: unknown }) => f.contradiction !== undefined), []);
});
