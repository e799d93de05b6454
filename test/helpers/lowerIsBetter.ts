/**
 * A lower-is-better 0/1 score from real records: gpt2-tiny's or qwen3-tiny's boolq (fixtures/models/lmeval-reference,
 * cells-mc) with its acc renamed pct_stereotype (crows_pairs' name) and higher_is_better false in the results file.
 * The per-item values are the same items; a 1 is now the worse outcome.
 */
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fixturePath } from './fixtures.ts';

/** boolq of `model` under `root`, its acc renamed pct_stereotype with higher_is_better false in the results file; returns its folder. */
export function relabelled(root: string, model: string): string {
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

