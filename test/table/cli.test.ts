/** `lmaudit table` as a user runs it: the text table, --json, and bad flags refused with exit 2. */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { externalFixture } from '../helpers/fixtures.ts';
import { cliArgs } from '../helpers/cli.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SLURM = externalFixture('lm-evaluation-harness/pr1567-slurmevals');
const PAIR = [`${SLURM}/mistral/winogrande_write_out_info.json`, `${SLURM}/mistralShuffle/question_shuffle_winogrande_write_out_info.json`];
const REF = JSON.parse(readFileSync(new URL('./reference/table_reference.json', import.meta.url), 'utf8'));

function lmaudit(...args: string[]) {
  const r = spawnSync(process.execPath, [...cliArgs, ...args], { cwd: ROOT, encoding: 'utf8', timeout: 120_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

test('table on the Mistral pair: the text table, the span, the gap and the reachable cell', () => {
  const r = lmaudit('table', ...PAIR, '--gap', '0.033', '--target', '0.48');
  assert.equal(r.code, 0, r.stderr);
  const ref = REF.mistral.rows;
  const four = (x: number) => x.toFixed(4);
  assert.match(r.stdout, new RegExp(`^  winogrande\\s+${four(ref.winogrande.score)} ±${four(ref.winogrande.stderr)} \\(1267\\)\\s+0\\.0 pts$`, 'm'));
  assert.match(r.stdout, /span: the 30\.1-point span is winogrande read by acc\/none vs question_shuffle_winogrande read by acc\/none \(task\.name separates them\)/);
  assert.match(r.stdout, /gap: a gap of 0\.033 fits inside the 30\.1-point spread 9\.1 times/);
  assert.match(r.stdout, /reach 0\.48: 1 cell\(s\) whose 95% interval contains it:\n {4}question_shuffle_winogrande read by acc\/none: 0\.4807 \[0\.4531, 0\.5082\]/);
  assert.match(r.stdout, /no model call: reading rule \(columns: extractor × normaliser\)/);
});

test('table --json gives the tables; a bad --gap or --aggregation exits 2 naming the flag', () => {
  const r = lmaudit('table', ...PAIR, '--json');
  assert.equal(r.code, 0, r.stderr);
  const json = JSON.parse(r.stdout);
  assert.equal(json.tables.length, 1);
  assert.equal(json.tables[0].rows[1].cells[0].score, REF.mistral.rows.question_shuffle_winogrande.score);
  assert.equal(json.grid, null);
  const bad = lmaudit('table', ...PAIR, '--gap', '0');
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /--gap/);
  const agg = lmaudit('table', ...PAIR, '--aggregation', 'median');
  assert.equal(agg.code, 2);
  assert.match(agg.stderr, /unknown aggregation 'median'\. Known: micro, macro\./);
  const typo = lmaudit('table', ...PAIR, '--aggregation', 'macr');
  assert.equal(typo.code, 2);
  assert.match(typo.stderr, /unknown aggregation 'macr'\. Did you mean: macro, micro\?/);
  // A mistyped --task is named with the closest task, as --tasks does (it said only "no run … has … for task").
  const task = lmaudit('table', ...PAIR, '--task', 'winogrand');
  assert.equal(task.code, 2);
  assert.equal(task.stderr, "lmaudit: Unknown task in this source 'winogrand'. Did you mean: winogrande?\n");
});

test('table on the Mistral truthfulqa_gen pair prints the interactions with their paired intervals, as Python computes them', () => {
  const r = lmaudit('table', `${SLURM}/mistral/truthfulqa_gen_write_out_info.json`, `${SLURM}/mistralShuffle/question_shuffle_truthfulqa_gen_write_out_info.json`);
  assert.equal(r.code, 0, r.stderr);
  const four = (x: number) => x.toFixed(4);
  const interactions = REF.truthfulqa.interactions as { readings: [string, string]; n: number; effects: [number, number]; difference: number; ci95: [number, number] }[];
  const distinguishable = interactions.filter((x) => x.ci95[0] > 0 || x.ci95[1] < 0).length;
  assert.match(r.stdout, new RegExp(`interactions \\(a change's effect under one reading minus under another, paired on shared items\\): ${interactions.length}, ${distinguishable} distinguishable from 0:`));
  for (const x of interactions) {
    const line =
      `truthfulqa_gen → question_shuffle_truthfulqa_gen: ${four(x.effects[0])} under recorded ${x.readings[0]}, ${four(x.effects[1])} under recorded ${x.readings[1]}; ` +
      `difference ${four(x.difference)}, 95% CI [${four(x.ci95[0])}, ${four(x.ci95[1])}], n = ${x.n}`;
    assert.ok(r.stdout.includes(line), line);
  }
  assert.match(r.stdout, /no model call: reading rule \(columns: the per-item metrics the source recorded\)/);
});
