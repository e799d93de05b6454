/**
 * lm-eval 0.4.13 writes `name` and `sample_len` beside the metrics of each results entry
 * (fixtures/models/lmeval-reference/gpt2-tiny/plain: arc_easy has name "arc_easy", sample_len 20, acc,none 0.15,
 * acc_norm,none 0.05). Its printed table leaves them out; the report's summary showed them as scores
 * (`name "arc_easy" (a string, not a number); sample_len 20; acc,none 0.15 ± 0.08192; …`), `ls` listed them as
 * reported scores, and `diff` set sample_len of two runs side by side as a reported score.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadSource } from '../../src/audit/source.ts';
import { diffStores } from '../../src/audit/diff.ts';
import { DEFAULT_PAIRED_OPTIONS } from '../../src/audit/pairedStats.ts';
import { buildReport } from '../../src/report/model.ts';
import { renderReport } from '../../src/report/render.ts';
import { fixturePath } from '../helpers/fixtures.ts';
import { runCli } from '../helpers/cli.ts';

const PLAIN = fixturePath('models/lmeval-reference/gpt2-tiny/plain');

test('report summary: lm-eval bookkeeping (name, sample_len) is no reported score', async () => {
  const source = await loadSource([PLAIN], { skipBad: false, fields: {} });
  const data = await buildReport(source.store, null, null, { ...DEFAULT_PAIRED_OPTIONS, iterations: 10 });
  const arc = data.summary.find((s) => s.task === 'arc_easy')!;
  assert.deepEqual(arc.reported.map((r) => [r.score, r.value, r.stderr]), [
    ['acc,none', 0.15, 0.08191780219091252],
    ['acc_norm,none', 0.05, 0.04999999999999999],
  ]);
  const md = renderReport(data, 'md');
  assert.doesNotMatch(md, /sample\\_len 20|a string, not a number/);
  assert.match(md, /\| arc\\_easy \| acc,none 0\.15 ± 0\.08192; acc\\_norm,none 0\.05 ± 0\.05 \|/);
});

test('diff: sample_len is not set side by side as a reported score', async () => {
  const a = await loadSource([PLAIN], { skipBad: false, fields: {} });
  const b = await loadSource([fixturePath('models/lmeval-reference/gpt2-tiny/diff-fewshot2')], { skipBad: false, fields: {} });
  const diff = await diffStores(a.store, b.store, { ...DEFAULT_PAIRED_OPTIONS, iterations: 10, examples: 0 });
  const arc = diff.comparisons[0]!.tasks.find((t) => t.taskA === 'arc_easy')!;
  assert.deepEqual(arc.reported.map((r) => r.score), ['acc,none', 'acc_norm,none']);
});

test('ls: the reported column holds the scores only', () => {
  const r = runCli(['ls', PLAIN]);
  assert.equal(r.status, 0, r.stderr);
  const arc = r.stdout.split('\n').find((l) => l.trimStart().startsWith('arc_easy'))!;
  assert.match(arc, /acc,none 0\.15 ± 0\.08192; acc_norm,none 0\.05 ± 0\.05\s*$/);
  assert.doesNotMatch(r.stdout, /sample_len|name "/);
});
