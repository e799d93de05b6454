/**
 * The flips line of a comparison. qwen3-tiny's lm-eval 0.4.13 reference runs without and with --apply_chat_template
 * (fixtures/models/lmeval-reference/qwen3-tiny/plain, chat): on arc_easy, acc is right on doc 3 and 11 only without
 * the template and on three documents only with it (python3 over the two samples files), every prompt different.
 * The line read '5 flips (2 right only in A, 3 right only in B): 5 the prompt bytes differ'.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadSource } from '../../src/audit/source.ts';
import { diffStores } from '../../src/audit/diff.ts';
import { DEFAULT_PAIRED_OPTIONS } from '../../src/audit/pairedStats.ts';
import { buildReport } from '../../src/report/model.ts';
import { renderReport } from '../../src/report/render.ts';
import { diffLines } from '../../src/report/diffText.ts';
import { fixturePath } from '../helpers/fixtures.ts';

test('a flip count is split into its causes as a sentence: "5 with different prompt bytes"', async () => {
  const options = { skipBad: false, fields: {} };
  const a = await loadSource([fixturePath('models/lmeval-reference/qwen3-tiny/plain/samples_arc_easy_2026-12-02T01-51-33.863803.jsonl'), fixturePath('models/lmeval-reference/qwen3-tiny/plain/results_2026-12-02T01-51-33.863803.json')], options);
  const b = await loadSource([fixturePath('models/lmeval-reference/qwen3-tiny/chat/samples_arc_easy_2026-12-02T01-57-08.844863.jsonl'), fixturePath('models/lmeval-reference/qwen3-tiny/chat/results_2026-12-02T01-57-08.844863.json')], options);
  const diff = await diffStores(a.store, b.store, { iterations: 100 });
  const md = renderReport(await buildReport(a.store, diff, null, { ...DEFAULT_PAIRED_OPTIONS, iterations: 100 }), 'md');
  assert.match(md, /^- acc,none: 5 flips \(2 right only in A, 3 right only in B\): 5 with different prompt bytes$/m);
  assert.match(diffLines(diff, null).join('\n'), /^Flips in acc,none: 5 \(2 right only in A, 3 right only in B\): 5 with different prompt bytes\.$/m);
});
