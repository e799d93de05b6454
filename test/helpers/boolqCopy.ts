/**
 * Edited copies of real records: gpt2-tiny's or qwen3-tiny's boolq run (fixtures/models/lmeval-reference, cells-mc),
 * its samples and its results file cut down to boolq, each samples line and the results file then edited by the
 * caller, for findings that need a score the reference runs do not have.
 */
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fixturePath } from './fixtures.ts';

type Json = Record<string, any>;

/** boolq of `model` copied into `root`/`model`, each samples line through `editLine`, the results through `editResults`; returns the folder. */
export function boolqCopy(root: string, model: string, editLine: (row: Json) => void, editResults: (results: Json) => void): string {
  const source = fixturePath(`models/lmeval-reference/${model}/cells-mc`);
  const dir = join(root, model);
  mkdirSync(dir);
  const files = readdirSync(source);
  const samples = files.find((f) => f.startsWith('samples_boolq_'))!;
  const lines = readFileSync(join(source, samples), 'utf8').trim().split('\n').map((l) => {
    const row = JSON.parse(l) as Json;
    editLine(row);
    return JSON.stringify(row);
  });
  writeFileSync(join(dir, samples), `${lines.join('\n')}\n`);
  const results = files.find((f) => f.startsWith('results_'))!;
  const json = JSON.parse(readFileSync(join(source, results), 'utf8')) as Json;
  for (const key of ['results', 'configs', 'versions', 'n-shot', 'higher_is_better', 'n-samples', 'task_hashes']) {
    json[key] = Object.fromEntries(Object.entries(json[key] as Json).filter(([task]) => task === 'boolq'));
  }
  json.group_subtasks = { boolq: [] };
  editResults(json);
  writeFileSync(join(dir, results), JSON.stringify(json));
  return dir;
}

/**
 * A lower-is-better 0/1 score from real records: boolq's acc renamed pct_stereotype (crows_pairs' name) with
 * higher_is_better false in the results file. The per-item values are the same items; a 1 is now the worse outcome.
 */
export function relabelled(root: string, model: string): string {
  return boolqCopy(root, model, (row) => {
    row.pct_stereotype = row.acc;
    delete row.acc;
    row.metrics = ['pct_stereotype'];
  }, (json) => {
    const r = json.results.boolq;
    json.results.boolq = { alias: r.alias, 'pct_stereotype,none': r['acc,none'], 'pct_stereotype_stderr,none': r['acc_stderr,none'] };
    json.configs.boolq.metric_list = [{ metric: 'pct_stereotype', aggregation: 'mean', higher_is_better: false }];
    json.higher_is_better = { boolq: { pct_stereotype: false } };
  });
}
