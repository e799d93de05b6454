/**
 * lm-eval's unpaired z-test (model_comparator: p = 2 · norm.sf(|z|)) far in the tail. Pythia-160m's lambada_openai,
 * 0-shot vs 5-shot (fixtures/external/pythia), has z = 9.33 for ppl and −7.95 for acc: `1 − erf` from a 7-digit
 * approximation printed p < 1e-300 and 1.89e-15 where scipy gives 1.07e-20 and 1.93e-15
 * (test/audit/reference/paired_reference.py).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { loadSource } from '../../src/audit/source.ts';
import { diffStores } from '../../src/audit/diff.ts';
import { formatP } from '../../src/audit/pairedStats.ts';
import { erfc } from '../../src/util/erfc.ts';
import { externalFixture } from '../helpers/fixtures.ts';

const REFERENCE = JSON.parse(readFileSync(new URL('./reference/paired_reference.json', import.meta.url), 'utf8'));
const OPTIONS = { skipBad: false, fields: {} };

// scipy's erfc (Cephes) and ours are each within a few ulps of the true value; 1e-13 relative leaves room for both.
function close(actual: number, expected: number): void {
  assert.ok(Math.abs(actual - expected) <= 1e-13 * Math.abs(expected), `${actual} vs ${expected}`);
}

test('erfc keeps its digits from 0 to the far tail (values from scipy.special.erfc)', () => {
  // python3 -c "from scipy.special import erfc; print([repr(erfc(x)) for x in (0.5, 0.9, 2, 2.5, 5, 6.596, 15, 26)])"
  const expected: [number, number][] = [
    [0.5, 0.4795001221869535], [0.9, 0.20309178757716784], [2, 0.004677734981047266], [2.5, 0.00040695201744495886],
    [5, 1.5374597944280347e-12], [6.596, 1.0773216691630266e-20], [15, 7.212994172451209e-100], [26, 5.663192408856145e-296],
  ];
  for (const [x, v] of expected) close(erfc(x), v);
  close(erfc(-2), 2 - 0.004677734981047266);
});

test('diff of Pythia 0-shot vs 5-shot: lambada_openai unpaired p-values are scipy\'s, not < 1e-300', async () => {
  const A = await loadSource([externalFixture('pythia/zero-shot')], OPTIONS);
  const B = await loadSource([externalFixture('pythia/five-shot')], OPTIONS);
  const d = await diffStores(A.store, B.store, { iterations: 10 });
  const lambada = d.comparisons[0]!.tasks.find((t) => t.taskA === 'lambada_openai')!;
  const ppl = lambada.reported.find((r) => r.score === 'ppl')!.unpaired!;
  const acc = lambada.reported.find((r) => r.score === 'acc')!.unpaired!;
  close(ppl.z, REFERENCE.unpaired_pythia_lambada_ppl.z);
  close(ppl.p, REFERENCE.unpaired_pythia_lambada_ppl.p);
  close(acc.z, REFERENCE.unpaired_pythia_lambada_acc.z);
  close(acc.p, REFERENCE.unpaired_pythia_lambada_acc.p);
  assert.deepEqual([formatP(ppl.p), formatP(acc.p)], ['1.07e-20', '1.93e-15']);
});
