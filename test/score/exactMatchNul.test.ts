import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadSource } from '../../src/audit/source.ts';
import { computeMatrix } from '../../src/score/matrix.ts';

// lm-eval 0.4.13's exact_match on outputs ending in NULs (scripts/fixtures/make_exact_match_nul_cases.py): its NumPy
// str arrays drop trailing NULs, so 'yes\0' is 'yes' there, while an inner NUL ('ye\0s') stays.
const cases = JSON.parse(readFileSync(new URL('./fixtures/exact_match_nul.expected.json', import.meta.url), 'utf8')) as {
  output: string;
  gold: string;
  'lm-eval-exact-match': number;
  'lm-eval-exact-match-numbers': number;
}[];
const NORMALIZERS = ['lm-eval-exact-match', 'lm-eval-exact-match-numbers'] as const;

for (const engine of ['sql', 'js'] as const) {
  test(`lm-eval-exact-match drops trailing NULs as lm-eval's NumPy strings do (${engine} engine)`, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'lmaudit-nul-'));
    try {
      const file = join(dir, 'nul.jsonl');
      writeFileSync(file, cases.map((c, i) => JSON.stringify({ id: `n${i}`, output: c.output, gold: c.gold })).join('\n') + '\n');
      const { store } = await loadSource([file], { skipBad: false, fields: {} });
      const [scope] = await computeMatrix(store, { extractors: ['exact'], normalizers: [...NORMALIZERS], aggregations: ['micro'], engine, keepItems: engine === 'js' });
      assert.equal(scope!.engine, engine);
      NORMALIZERS.forEach((normalizer, k) => {
        const cell = scope!.cells.find((c) => c.normalizer === normalizer)!;
        assert.equal(cell.correct, cases.filter((c) => c[normalizer] === 1).length, normalizer);
        if (engine === 'js') assert.deepEqual(scope!.items!.map((item) => item.values[k]), cases.map((c) => c[normalizer]), normalizer);
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
}
