/**
 * A 0/1 score whose source says lower is better (crows_pairs' pct_stereotype: 1 where the model preferred the
 * stereotyped sentence, higher_is_better false) was counted "right only in A / right only in B" in the McNemar
 * sentence and the flips line. Here gpt2-tiny's and qwen3-tiny's boolq records (fixtures/models/lmeval-reference,
 * cells-mc) are relabelled so that their per-item 0/1 values are such a score: the counts are the same items, and
 * the words must not call a 1 right.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadSource } from '../../src/audit/source.ts';
import { diffStores } from '../../src/audit/diff.ts';
import { fixturePath } from '../helpers/fixtures.ts';
import { runCli } from '../helpers/cli.ts';

/** boolq of `model`, its acc renamed lower_is_worse_flag with higher_is_better false in the results file. */
function relabelled(root: string, model: string): string {
  const source = fixturePath(`models/lmeval-reference/${model}/cells-mc`);
  const dir = join(root, model);
  mkdirSync(dir);
  const files = readdirSync(source);
  const samples = files.find((f) => f.startsWith('samples_boolq_'))!;
  const lines = readFileSync(join(source, samples), 'utf8').trim().split('\n').map((l) => {
    const row = JSON.parse(l);
    row.pct_stereotype = row.acc;
    delete row.acc;
    row.metrics = ['pct_stereotype'];
    return JSON.stringify(row);
  });
  writeFileSync(join(dir, samples), `${lines.join('\n')}\n`);
  const results = files.find((f) => f.startsWith('results_'))!;
  const json = JSON.parse(readFileSync(join(source, results), 'utf8'));
  for (const key of ['results', 'configs', 'versions', 'n-shot', 'higher_is_better', 'n-samples', 'task_hashes']) {
    json[key] = Object.fromEntries(Object.entries(json[key] as Record<string, unknown>).filter(([task]) => task === 'boolq'));
  }
  const r = json.results.boolq;
  json.results.boolq = { alias: r.alias, 'pct_stereotype,none': r['acc,none'], 'pct_stereotype_stderr,none': r['acc_stderr,none'] };
  json.configs.boolq.metric_list = [{ metric: 'pct_stereotype', aggregation: 'mean', higher_is_better: false }];
  json.higher_is_better = { boolq: { pct_stereotype: false } };
  json.group_subtasks = { boolq: [] };
  writeFileSync(join(dir, results), JSON.stringify(json));
  return dir;
}

test('a lower-is-better 0/1 score: the McNemar sentence and the flips count 1s, not right answers', async (t) => {
  const root = mkdtempSync(join(tmpdir(), 'lmaudit-lower-better-'));
  t.after(() => rmSync(root, { recursive: true, force: true }));
  const [a, b] = [relabelled(root, 'gpt2-tiny'), relabelled(root, 'qwen3-tiny')];
  const options = { skipBad: false, fields: {} };
  const d = await diffStores((await loadSource([a], options)).store, (await loadSource([b], options)).store, { iterations: 10 });
  const task = d.comparisons[0]!.tasks[0]!;
  const p = task.paired.find((x) => x.score === 'pct_stereotype,none')!;
  const { aOnly, bOnly } = p.result.mcnemar!;
  assert.equal(p.result.mcnemar!.oneIsWorse, true);
  assert.ok(p.result.sentence.includes(`(${aOnly} scored 1 only in A, ${bOnly} only in B; a 1 is the worse outcome here, higher_is_better false)`), p.result.sentence);
  assert.doesNotMatch(p.result.sentence, /right only/);
  const flips = task.flips.find((f) => f.score === 'pct_stereotype,none')!;
  assert.equal(flips.oneIsWorse, true);
  assert.equal(flips.lost + flips.gained, aOnly + bOnly);
  // The rescoring cells read answers against the gold: there a 1 is right.
  const cell = task.paired.find((x) => x.score === 'rescored:acc/none')!;
  assert.match(cell.result.sentence, /right only in A/);
  const cli = runCli(['diff', a, b, '--iterations', '10']);
  assert.equal(cli.status, 0, cli.stderr);
  assert.match(cli.stdout, new RegExp(`Flips in pct_stereotype,none: ${aOnly + bOnly} \\(${flips.lost} scored 1 only in A, ${flips.gained} only in B; a 1 is the worse outcome here, higher_is_better false\\)`));
});
