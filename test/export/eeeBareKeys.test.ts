/**
 * EEE export of numbers reported under a key without a filter, and what it says of a reported number.
 * - lm-eval before 0.4 (Pythia 160m five-shot, fixtures/external/pythia) reports `acc`, `acc_stderr`, …: the export
 *   said "nothing to export: … no score reported and no per-item scores" for every one of its 65 tasks.
 * - lighteval (fixtures/lighteval, the EEE smoke run) reports squad_v2 `em` 0 ± 0 (`em_stderr`): left out. Its
 *   `all` entry averages every key of its tasks, `em_stderr` too, and a mean of standard errors is no standard error
 *   (interchange-formats.md §3): that one is kept beside the score, not written as EEE's standard_error.
 * - OpenCompass (mmlu_college_biology, fixtures/opencompass …/default/20240609_154004) reports `accuracy` 100 and
 *   `accuracy,summary csv (2 decimals)` 100: the first was left out, the second labelled "computed by lmaudit
 *   export" though it is the source's number (the label went on every result without a reported stderr).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { externalFixture, fixturePath } from '../helpers/fixtures.ts';
import { runCli } from '../helpers/cli.ts';

interface Result { evaluation_result_id: string; score_details: { score: number; uncertainty?: { standard_error?: { value: number } } }; metric_config: { additional_details: Record<string, string> } }

function exported(source: string): Result[] {
  const out = join(mkdtempSync(join(tmpdir(), 'eee-bare-')), 'eee');
  const r = runCli(['export', source, '--format', 'eee', '--out', out]);
  assert.equal(r.status, 0, r.stderr);
  const files: string[] = [];
  const walk = (dir: string) => { for (const e of readdirSync(dir, { withFileTypes: true })) e.isDirectory() ? walk(join(dir, e.name)) : e.name.endsWith('.json') && files.push(join(dir, e.name)); };
  walk(out);
  return files.flatMap((f) => (JSON.parse(readFileSync(f, 'utf8')) as { evaluation_results: Result[] }).evaluation_results);
}

const byId = (results: Result[], id: string) => results.find((r) => r.evaluation_result_id === id)!;

test('EEE export: lm-eval 0.3 results (acc, acc_stderr) are exported with their standard errors', () => {
  const results = exported(externalFixture('pythia/five-shot'));
  // 65 tasks, 128 metrics (their stderrs beside them) in 160m-5shot_step143000.json.
  assert.equal(results.length, 128);
  const arc = byId(results, 'arc_challenge/acc');
  assert.equal(arc.score_details.score, 0.18600682593856654);
  assert.equal(arc.score_details.uncertainty?.standard_error?.value, 0.011370940183266735);
  assert.equal(arc.metric_config.additional_details['lmaudit.reported_stderr_key'], 'acc_stderr');
  assert.equal(arc.metric_config.additional_details['lmaudit.score'], undefined);
});

test('EEE export: lighteval em ± em_stderr is the reported number, not one the export computed', () => {
  const em = byId(exported(fixturePath('lighteval')), 'squad_v2|0/em');
  assert.equal(em.score_details.score, 0);
  assert.equal(em.score_details.uncertainty?.standard_error?.value, 0);
  assert.equal(em.metric_config.additional_details['lmaudit.reported_key'], 'em');
  assert.equal(em.metric_config.additional_details['lmaudit.score'], undefined);
});

test("EEE export: lighteval's 'all' keeps its averaged stderr out of standard_error", () => {
  const all = byId(exported(fixturePath('lighteval')), 'all/em');
  assert.deepEqual(all.score_details, { score: 0 });
  assert.equal(all.metric_config.additional_details['lmaudit.reported_stderr'], "em_stderr 0: not written as standard_error: lighteval's summary entry averages its tasks' standard errors, and a mean of standard errors is not the standard error of the mean");
});

test('EEE export: every number OpenCompass reported, none of them called computed', () => {
  const results = exported(fixturePath('opencompass/FudanDNN-NLP-RAG/opencompass/outputs/default/20240609_154004'));
  const bare = byId(results, 'mmlu_college_biology/accuracy');
  assert.equal(bare.score_details.score, 100);
  assert.equal(bare.metric_config.additional_details['lmaudit.score'], undefined);
  const csv = byId(results, 'mmlu_college_biology/accuracy,summary csv (2 decimals)');
  assert.equal(csv.score_details.score, 100);
  assert.equal(csv.metric_config.additional_details['lmaudit.score'], undefined);
  assert.deepEqual(results.filter((r) => r.evaluation_result_id.startsWith('mmlu_college_biology/')).map((r) => r.evaluation_result_id).sort(), ['mmlu_college_biology/accuracy', 'mmlu_college_biology/accuracy,summary csv (2 decimals)']);
});
