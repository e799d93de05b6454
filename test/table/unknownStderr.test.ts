/**
 * A table cell with no stderr prints `±?`; the caption said "cells: score ±stderr (n)" and nothing of what `?` means.
 * The Every Eval Ever reference record (fixtures/eee/reference-0.3.0) has one item: a reading's score over it is 0 or 1
 * with no stderr (n − 1 = 0), so its cells carry `±?` and the caption now says so. A table whose every cell has one
 * (asdiv's 50 items) keeps the caption as it was.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadSource } from '../../src/audit/source.ts';
import { buildTables } from '../../src/audit/table.ts';
import { tableLines } from '../../src/report/tableText.ts';
import { fixturePath } from '../helpers/fixtures.ts';

const OPTIONS = { skipBad: false, fields: {} };

test('table: cells without a stderr print ±?, and the caption says what it means', async () => {
  const one = await loadSource([fixturePath('eee/reference-0.3.0')], OPTIONS);
  const [t] = await buildTables(one.store, { aggregation: 'micro', tolerance: 0 });
  const lines = tableLines(t!);
  assert.equal(lines[0], 'demo-source.demo_bench  (1 run(s) × 8 reading(s), micro; cells: score ±stderr (n); ±? where no stderr is known)');
  assert.ok(lines[3]!.includes('1.0000 ±? (1)'), lines[3]);
  const fifty = await loadSource([fixturePath('lmeval/pr2236-asdiv/asdiv')], OPTIONS);
  const [u] = await buildTables(fifty.store, { aggregation: 'micro', tolerance: 0 });
  assert.match(tableLines(u!)[0]!, /; cells: score ±stderr \(n\)\)$/);
});
