/**
 * The rescoring matrix's notes are clauses the CLI prints one a line; the report runs them together in one paragraph.
 * On truthfulqa_gen (gpt-neo-125M, lm-eval 0.4.8, --limit 20: fixtures/lmeval/pr3032-truthfulqa-gen) it printed
 * "…(rescore --extractors as-recorded re-reads the per-sample values it recorded) 20 item(s) have no usable gold …",
 * two statements as one sentence.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadSource } from '../../src/audit/source.ts';
import { DEFAULT_PAIRED_OPTIONS } from '../../src/audit/pairedStats.ts';
import { buildReport } from '../../src/report/model.ts';
import { renderReport } from '../../src/report/render.ts';
import { externalFixture, fixturePath } from '../helpers/fixtures.ts';

test('report: each matrix note ends with a full stop before the next begins', async () => {
  const source = await loadSource([fixturePath('lmeval/pr3032-truthfulqa-gen')], { skipBad: false, fields: {} });
  const data = await buildReport(source.store, null, null, { ...DEFAULT_PAIRED_OPTIONS, iterations: 100 });
  const md = renderReport(data, 'md');
  assert.match(md, /re-reads the per-sample values it recorded\)\. 20 item\(s\) have no usable gold \(none, or only whitespace: [^\n]*in the document\)\.\n/);
  assert.doesNotMatch(md, /recorded\) 20 item/);
});

test('report title: a task two runs share is named once', async () => {
  // fixtures/lmeval/pr2236-asdiv holds two asdiv runs (batch 8 and batch 1); the title read 'asdiv; asdiv'.
  const source = await loadSource([fixturePath('lmeval/pr2236-asdiv')], { skipBad: false, fields: {} });
  const data = await buildReport(source.store, null, null, { ...DEFAULT_PAIRED_OPTIONS, iterations: 100 });
  assert.equal(data.title, 'Audit appendix: asdiv');
});

test('report summary: a results-only task that reports a metric no reading measures has no readings and no matrix note to point to', async () => {
  // Qwen2.5-7B's 15 tasks (lm-eval 0.4.8, results only). cola reports mcc only: its row said "the task reports metrics
  // no reading measures: the readings say nothing about its numbers (see the matrix note)", while the run has no
  // per-item records, so no readings and no matrix note; the other 14 rows said "no per-item records to rescore".
  const file = externalFixture('lm-evaluation-harness/pr2809-qwen-versions/results-0.4.8/qwen__qwen2.5-7B/results_2025-03-18T00-03-26.972068.json');
  const source = await loadSource([file], { skipBad: false, fields: {} });
  const data = await buildReport(source.store, null, null, { ...DEFAULT_PAIRED_OPTIONS, iterations: 100 });
  assert.equal(data.summary.length, 15);
  for (const row of data.summary) assert.equal(row.spreadNote, 'no per-item records to rescore', row.task);
});
