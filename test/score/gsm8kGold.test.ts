import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { loadSource } from '../../src/audit/source.ts';
import { computeMatrix } from '../../src/score/matrix.ts';

/**
 * GSM8K's answer field as gold ('<worked solution>\n#### 18'): lm-eval 0.4.13's own gsm8k filters and exact_match
 * (scripts/fixtures/make_gsm8k_gold_cases.py) score the outputs against the number after '#### '. The outputs are
 * ones where the numeric normaliser reads as lm-eval's regexes_to_ignore do (',' '$' and a final '.' dropped), so
 * strict-number/numeric is lm-eval's strict-match and last-number/numeric its flexible-extract, item for item.
 * Before golds were read so, every cell compared a number with the whole solution and printed 0.
 */
const file = fileURLToPath(new URL('./fixtures/gsm8k_gold_cases.jsonl', import.meta.url));
const expected = JSON.parse(readFileSync(new URL('./fixtures/gsm8k_gold_cases.expected.json', import.meta.url), 'utf8')) as Record<
  'strict-match' | 'flexible-extract',
  { values: number[]; mean: number; mean_stderr: number }
>;
const CELLS = [
  { extractor: 'strict-number', filter: 'strict-match' },
  { extractor: 'last-number', filter: 'flexible-extract' },
] as const;

for (const engine of ['sql', 'js'] as const) {
  test(`a gold ending in '#### N' is read as N, as lm-eval's gsm8k reads it (${engine} engine)`, async () => {
    const { store } = await loadSource([file], { skipBad: false, fields: {} });
    const [scope] = await computeMatrix(store, {
      extractors: CELLS.map((c) => c.extractor), normalizers: ['numeric'], aggregations: ['micro'], engine, keepItems: engine === 'js',
    });
    assert.equal(scope!.answer_type, 'numbers');
    assert.equal(scope!.engine, engine);
    CELLS.forEach(({ extractor, filter }, k) => {
      const cell = scope!.cells.find((c) => c.extractor === extractor)!;
      const want = expected[filter];
      assert.equal(cell.score, want.mean, extractor);
      assert.equal(cell.correct, want.values.filter((v) => v === 1).length, extractor);
      // 0/1 values: lm-eval's mean_stderr and the closed form from the count agree here to the last bit.
      assert.equal(cell.stderr, want.mean_stderr, extractor);
      if (engine === 'js') assert.deepEqual(scope!.items!.map((item) => item.values[k]), want.values, extractor);
    });
    assert.ok(scope!.notes.some((n) => n.startsWith("8 item(s) record a worked solution ending in '#### N' as gold")), scope!.notes.join('\n'));
  });
}
