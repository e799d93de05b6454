/**
 * A Markdown report's prompt diffs are fenced code blocks, whose characters CommonMark shows literally: an entity
 * there is not decoded. mmlu_abstract_algebra doc 1 asks "Find the index of <p> in S_5." (the gpt2-tiny fixtures,
 * 0-shot vs 2-shot); the report's diff block printed "Find the index of &lt;p> in S_5.", text no prompt held.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadSource } from '../../src/audit/source.ts';
import { diffStores } from '../../src/audit/diff.ts';
import { narrowToTasks } from '../../src/audit/narrow.ts';
import { DEFAULT_PAIRED_OPTIONS } from '../../src/audit/pairedStats.ts';
import { buildReport } from '../../src/report/model.ts';
import { markdownFence, renderReport } from '../../src/report/render.ts';
import { fixturePath } from '../helpers/fixtures.ts';

test('markdownFence keeps the text byte for byte and outruns every backtick run', () => {
  assert.equal(markdownFence('-a <b> &amp; c\n+d & e'), '```diff\n-a <b> &amp; c\n+d & e\n```');
  assert.equal(markdownFence('+````x'), '`````diff\n+````x\n`````');
});

test('report md: a prompt diff shows the prompt characters as they are', async () => {
  const a = await loadSource([fixturePath('models/lmeval-reference/gpt2-tiny/plain')], { skipBad: false, fields: {} });
  const b = await loadSource([fixturePath('models/lmeval-reference/gpt2-tiny/diff-fewshot2')], { skipBad: false, fields: {} });
  const [storeA, storeB] = [a, b].map((s) => narrowToTasks(s.store, ['mmlu_abstract_algebra']));
  const options = { ...DEFAULT_PAIRED_OPTIONS, iterations: 10 };
  const data = await buildReport(storeA!, await diffStores(storeA!, storeB!, { ...options, examples: 3 }), null, options);
  const md = renderReport(data, 'md');
  const fence = /```diff\n--- A doc 1\n[\s\S]*?\n```/.exec(md);
  assert.ok(fence, 'the prompt diff of doc 1 is in the report');
  assert.match(fence[0], /\n Let p = \(1, 2, 5, 4\)\(2, 3\) in S_5 \. Find the index of <p> in S_5\.\n/);
  assert.doesNotMatch(fence[0], /&lt;/);
});
