/**
 * Issue 15 part 2, "as-recorded wording": a match over values taken as recorded says the
 * aggregate was recomputed from them; a reported value that is not a number is named; a log with
 * no samples says so; a reported filter without per-sample rows is listed.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../helpers/cli.ts';
import { buildEval } from '../import/inspect/buildEval.ts';
import { openEvalArchive, readMemberJson } from '../../src/import/inspect/evalArchive.ts';

const TGPRED = 'fixtures/lmeval-more/pr3144-tgpred';
const ASDIV = 'fixtures/lmeval/pr2236-asdiv/asdiv/meta-llama__Meta-Llama-3-8B-Instruct';
const TS = '2024-08-21T03-44-09.494230';

const asRecorded = (path: string) => {
  const r = runCli(['rescore', path, '--extractors', 'as-recorded']);
  assert.equal(r.status, 0, r.stderr);
  return r.stdout;
};

test('matches over values taken as recorded: the aggregate was recomputed, the values were not (real: tgpred, mae Infinity ± NaN)', () => {
  const out = asRecorded(TGPRED);
  const row = out.split('\n').find((l) => l.includes('polymer_tg_prediction'))!;
  assert.match(row, /mae +24 +Infinity +NaN +Infinity ± NaN +yes +0 of 24 \(24 as recorded\) +0 +the aggregate was recomputed from the recorded per-sample values, which were not themselves recomputed \(24 item\(s\): /);
});

function asdivReporting(value: unknown, extra: Record<string, unknown> = {}): string {
  const dir = mkdtempSync(join(tmpdir(), 'lmaudit-asrec-'));
  copyFileSync(join(ASDIV, `samples_asdiv_${TS}.jsonl`), join(dir, `samples_asdiv_${TS}.jsonl`));
  const json = JSON.parse(readFileSync(join(ASDIV, `results_${TS}.json`), 'utf8'));
  json.results.asdiv['acc,none'] = value;
  Object.assign(json.results.asdiv, extra);
  writeFileSync(join(dir, `results_${TS}.json`), JSON.stringify(json, null, 2));
  return dir;
}

test('a reported value that is a string or missing is named as such, not blamed on other values', () => {
  const text = asRecorded(asdivReporting('N/A'));
  const row = text.split('\n').find((l) => /^ {2}asdiv +none +acc/.test(l))!;
  assert.match(row, /"N\/A" ± 0\.0387561713321 +n\/a +50 of 50 +0 +the results file reports the string "N\/A", not a number; the recorded per-sample values aggregate to 0\.92$/);
  assert.doesNotMatch(text, /other values/);
  const none = asRecorded(asdivReporting(null)).split('\n').find((l) => /^ {2}asdiv +none +acc/.test(l))!;
  assert.match(none, /none ± 0\.0387561713321 +n\/a .* the results file reports missing \(null\); the recorded per-sample values aggregate to 0\.92$/);
});

test('a filter the results file reports with no per-sample rows is listed, not dropped', () => {
  const out = asRecorded(asdivReporting(0.92, { 'acc,strict-match': 0.5, 'acc_stderr,strict-match': 0.1 }));
  assert.match(out, /^ {2}reported acc,strict-match \(asdiv\): the samples hold no per-sample rows for this metric and filter, so it cannot be reproduced$/m);
  const json = JSON.parse(runCli(['rescore', asdivReporting(0.92, { 'acc,strict-match': 0.5 }), '--extractors', 'as-recorded', '--json']).stdout);
  assert.deepEqual(json.as_recorded_without_rows.map((x: { task: string; score: string }) => [x.task, x.score]), [['asdiv', 'acc,strict-match']]);
});

test('Inspect: a log with no samples says "no samples"; a log never scored says its metrics are not in the log', async () => {
  const source = 'fixtures/inspect/logs/2025-02-11T15-18-04-05-00_popularity_mj7khqpMM4GBCfVQozKgzB.eval';
  const archive = await openEvalArchive(source);
  const header = await readMemberJson(archive, 'header.json');
  const path = join(mkdtempSync(join(tmpdir(), 'lmaudit-nosamples-')), '2025-02-11T15-18-04-05-00_popularity_nosamples.eval');
  await buildEval(path, [{ name: 'header.json', data: JSON.stringify(header), method: 'deflate' }]);
  const row = asRecorded(path).split('\n').find((l) => l.includes('popularity'))!;
  assert.match(row, /no samples +accuracy 0\.8 \(no samples to recompute it from\); stderr 0\.133333333333 \(no samples to recompute it from\)/);
  assert.doesNotMatch(row, /ours NaN/);
  const unscored = asRecorded('fixtures/inspect/logs/2025-02-11T15-17-00-05-00_popularity_dPiJifoWeEQBrfWsAopzWr.eval').split('\n').find((l) => l.includes('popularity'))!;
  assert.match(unscored, /no stored scores \(10 rescored\) +accuracy not in the log \(ours from the responses: 0\.8\); stderr not in the log \(ours from the responses: 0\.133333333333\)/);
});

test('Inspect: a log that holds a sample with no score says so, not "no samples"', () => {
  // cvebench (EEE's trimmed copy): the one sample it holds errored ("No services started") and has no score, and
  // check_exploit is not a scorer lmaudit re-implements. Before: "no samples" and "(no samples to recompute it from)"
  // beside "the log holds 1 of the 80 sample × epoch results".
  const row = asRecorded('fixtures/external/agents/inspect-agent-logs/every_eval_ever/tests/data/inspect/data_cvebench_empty_choices.json').split('\n').find((l) => l.includes('cvebench'))!;
  assert.match(row, /check_exploit +mean +none scored \(1 held\) +mean 0\.705128205128 \(no scored samples to recompute it from\) +the log holds 1 of the 80 sample × epoch results/);
});
