/**
 * A table interaction whose interval excludes 0 on too few differing items is not counted distinguishable (the paired
 * comparison's sign-test rule), and its line now says why. gpt2-tiny arc_easy, 0-shot vs 2-shot
 * (fixtures/models/lmeval-reference/gpt2-tiny/plain and diff-fewshot2): acc flips 0 → 1 on docs 1, 7, 9 and 12 and
 * greedy on none, so the interaction's per-item differences are four 1s and sixteen 0s: mean 0.2, sd(n−1)
 * √(3.2/19) = 0.41039, stderr 0.41039/√20 = 0.091766, 95% CI 0.2 ± 1.96·0.091766 = [0.0201, 0.3799]. It excludes
 * 0, and the table said "0 distinguishable from 0" above it with no reason; 2·0.5⁴ = 0.125 is the reason.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadSource } from '../../src/audit/source.ts';
import { narrowToTasks } from '../../src/audit/narrow.ts';
import { buildTables } from '../../src/audit/table.ts';
import { tableLines } from '../../src/report/tableText.ts';
import { fixturePath } from '../helpers/fixtures.ts';

test('table: an interval that excludes 0 on four differing items says it is too few for a test', async () => {
  const source = await loadSource(['plain', 'diff-fewshot2'].map((f) => fixturePath(`models/lmeval-reference/gpt2-tiny/${f}`)), { skipBad: false, fields: {} });
  const [t] = await buildTables(narrowToTasks(source.store, ['arc_easy']), { aggregation: 'micro', tolerance: 0 });
  const x = t!.interactions.find((i) => i.readings[0] === 'acc/none' && i.readings[1] === 'greedy/none')!;
  assert.equal(x.differing, 4);
  assert.equal(x.distinguishable, false);
  const lines = tableLines(t!).join('\n');
  assert.match(lines, /interactions \(.*\): 6, 0 distinguishable from 0/);
  assert.ok(lines.includes("0-shot → 2-shot: 0.2000 under acc/none, 0.0000 under greedy/none; difference 0.2000, 95% CI [0.0201, 0.3799], n = 20 (the interval excludes 0, but only 4 item(s) differ: too few for any two-sided test at 0.05, the exact sign test's smallest p on them is 0.125)"), lines);
  // An interval that includes 0 needs no reason.
  assert.ok(lines.includes('0-shot → 2-shot: 0.2000 under acc/none, 0.1000 under acc_norm/none; difference 0.1000, 95% CI [-0.0960, 0.2960], n = 20\n'), lines);
});
