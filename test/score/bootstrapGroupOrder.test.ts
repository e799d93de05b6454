import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadSource } from '../../src/audit/source.ts';
import { computeMatrix } from '../../src/score/matrix.ts';

// The documented bootstrap done in Python (scripts/fixtures/make_bootstrap_group_order_cases.py) over groups 'Ａ'
// (U+FF21) and '😀' (U+1F600): Python's sorted() puts 'Ａ' first, JavaScript's default sort '😀' (its first UTF-16
// unit, U+D83D, is smaller), which redrew the groups in the other order and gave other replicates.
const expected = JSON.parse(readFileSync(new URL('./fixtures/bootstrap_group_order.expected.json', import.meta.url), 'utf8')) as {
  rows: { id: string; output: string; gold: string; subject: string }[];
  group_order: string[];
  macro_value: number;
  micro: { stderr: number; ci95: [number, number] };
  macro: { stderr: number; ci95: [number, number] };
};

test('rescore --bootstrap orders groups as Python sorts them (by code point), so the replicates are Python\'s', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'lmaudit-order-'));
  try {
    const file = join(dir, 'order.jsonl');
    writeFileSync(file, expected.rows.map((r) => JSON.stringify(r)).join('\n') + '\n');
    const { store } = await loadSource([file], { skipBad: false, fields: { group: 'subject' } });
    const [scope] = await computeMatrix(store, {
      extractors: ['exact'], normalizers: ['strip'], aggregations: ['micro', 'macro'], keepItems: true, bootstrap: 200, bootstrapSeed: 1234,
    });
    const micro = scope!.cells.find((c) => c.aggregation === 'micro')!;
    const macro = scope!.cells.find((c) => c.aggregation === 'macro')!;
    assert.deepEqual(macro.groups!.map((g) => g.group), expected.group_order);
    assert.equal(macro.score, expected.macro_value);
    for (const [cell, want] of [[micro, expected.micro], [macro, expected.macro]] as const) {
      assert.equal(cell.bootstrap!.stderr, want.stderr, cell.aggregation);
      assert.deepEqual(cell.bootstrap!.ci95, want.ci95, cell.aggregation);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
