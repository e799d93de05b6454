/** Issue 28 §7: statistics that say when they mean little. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadSource } from '../../src/audit/source.ts';
import { computeMatrix } from '../../src/score/matrix.ts';
import { formatP, pairedComparison } from '../../src/audit/pairedStats.ts';
import { runCli } from '../helpers/cli.ts';
import { externalFixture } from '../helpers/fixtures.ts';

test('a spread over one item (Inspect mmlu-summary-choices.eval: 0 to 100 points) is flagged, in the result and the printed line', async () => {
  const file = externalFixture('inspect/mmlu-summary-choices.eval');
  const { store } = await loadSource([file], { skipBad: false, fields: {} });
  const [scope] = await computeMatrix(store, {});
  assert.equal(scope!.denominator.items_scored, 1);
  assert.equal(scope!.spread.difference, 1);
  assert.match(scope!.spread.caution!, /^n = 1: every cell is 0 or 1 on the one item, so this spread \(and any interval or bootstrap on it\) says nothing beyond that item$/);
  const r = runCli(['rescore', file]);
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /spread: 0\.0000 \(inspect-choice\/none\/micro\) to 1\.0000 \(contains\/none\/micro\): 100\.00 points — n = 1: /);
});

test('contains against golds of one or two characters is flagged, with how many outputs hold the gold only inside a longer token', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'lmaudit-short-'));
  try {
    const file = join(dir, 'short.jsonl');
    // By hand: golds '5', '10', '5', '42' are one or two characters ('350' is not). '$2.5' holds 5 only inside 2.5,
    // '1000 dollars' holds 10 only inside 1000: 2 coincidences. 'The answer is 5.' holds it alone; 'forty-two' not at all.
    const rows = [
      { id: '1', output: 'It costs $2.5', gold: '5' },
      { id: '2', output: '1000 dollars', gold: '10' },
      { id: '3', output: 'The answer is 5.', gold: '5' },
      { id: '4', output: 'forty-two', gold: '42' },
      { id: '5', output: 'the total is 350 dollars', gold: '350' },
    ];
    writeFileSync(file, rows.map((r) => JSON.stringify(r)).join('\n') + '\n');
    const { store } = await loadSource([file], { skipBad: false, fields: {} });
    const [scope] = await computeMatrix(store, { extractors: ['contains'], normalizers: ['strip'], aggregations: ['micro'] });
    assert.equal(scope!.cells[0]!.correct, 4);
    const note = scope!.notes.find((n) => n.startsWith('contains:'));
    assert.match(note!, /^contains: 4 item\(s\) have a gold of one or two characters, .* in 2 of them the output holds the gold only inside a longer token \(e\.g\. gold "(5|10)" inside /);
    // Without contains in the sweep there is nothing to flag.
    const [exact] = await computeMatrix(store, { extractors: ['exact'], normalizers: ['strip'], aggregations: ['micro'] });
    assert.equal(exact!.notes.some((n) => n.startsWith('contains:')), false);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a p-value below what a double can show prints as < 1e-300, never 0.00e+0', () => {
  // McNemar exact on 0 vs 1100 discordant items: p = 2 · 2^-1100 = 2^-1099 ≈ 1.5e-331, below the smallest double (≈ 4.9e-324).
  const a = Array.from({ length: 1100 }, () => 0);
  const b = Array.from({ length: 1100 }, () => 1);
  const result = pairedComparison(a, b, { iterations: 10 });
  assert.equal(result.mcnemar!.p, 0);
  assert.match(result.sentence, /McNemar exact p < 1e-300 on 1100 discordant item\(s\)/);
  assert.doesNotMatch(result.sentence, /0\.00e\+0/);
  assert.equal(formatP(0), '< 1e-300');
  assert.equal(formatP(5e-324), '< 1e-300');
  assert.equal(formatP(2e-300), '2.00e-300');
  assert.equal(formatP(0.0312), '0.0312');
});
