/**
 * Paired statistics of lm-eval's corpus-level aggregations (word_perplexity, byte_perplexity, bits_per_byte), whose
 * per-item values are (log-likelihood, weight) pairs. `diff` of gpt2-tiny and qwen3-tiny on lambada_rolling printed
 * three reported scores that differ and no paired row for any of them. The reference is lm-eval 0.4.13's own
 * weighted_perplexity and bits_per_byte with a CPython random.Random bootstrap (reference/paired_corpus_reference.py).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { loadSource } from '../../src/audit/source.ts';
import { diffStores } from '../../src/audit/diff.ts';
import { pairedCorpusComparison } from '../../src/audit/pairedCorpus.ts';
import { fixturePath } from '../helpers/fixtures.ts';
import { runCli } from '../helpers/cli.ts';

const REFERENCE = JSON.parse(readFileSync(new URL('./reference/paired_corpus_reference.json', import.meta.url), 'utf8'));
const A = fixturePath('models/lmeval-reference/gpt2-tiny/extra');
const B = fixturePath('paired-corpus/qwen3-tiny-lambada-rolling');

test('lambada_rolling, gpt2-tiny vs qwen3-tiny: each corpus aggregate is paired, A and B are lm-eval’s numbers, the interval its bootstrap', async () => {
  const options = { skipBad: false, fields: {} };
  const d = await diffStores((await loadSource([A], options)).store, (await loadSource([B], options)).store);
  const t = d.comparisons[0]!.tasks.find((x) => x.taskA === 'lambada_rolling')!;
  for (const metric of ['word_perplexity', 'byte_perplexity', 'bits_per_byte']) {
    const p = t.paired.find((x) => x.score === `${metric},none`);
    assert.ok(p !== undefined, `${metric} is paired`);
    const ref = REFERENCE[metric];
    assert.equal(p.result.n, ref.n);
    assert.equal(p.dropped, 0);
    // Every item is shared: A and B are the numbers lm-eval reported, to the last digit.
    assert.equal(p.result.meanA, ref.a);
    assert.equal(p.result.meanB, ref.b);
    assert.deepEqual(p.result.ci, ref.ci);
    assert.equal(p.result.mcnemar, null);
    assert.equal(p.result.distinguishable, false);
    assert.match(p.result.sentence, /lower is better/);
    assert.equal(p.values, metric === 'bits_per_byte' ? 'bits_per_byte of the shared items' : 'weighted_perplexity of the shared items');
  }
});

test('corpus pairing edge cases: equal pairs give a zero-width interval, no items no number', () => {
  const same = pairedCorpusComparison([[-10, 2], [-6, 3]], [[-10, 2], [-6, 3]], 'weighted_perplexity');
  // exp(16/5) on both sides.
  assert.equal(same.meanA, Math.exp(16 / 5));
  assert.deepEqual(same.ci, [0, 0]);
  assert.equal(same.distinguishable, false);
  const none = pairedCorpusComparison([], [], 'bits_per_byte');
  assert.equal(none.n, 0);
  assert.match(none.sentence, /no shared items/);
  // bits_per_byte of one item (ll −ln 2 · 8 over 4 bytes) is 2 bits a byte.
  assert.equal(pairedCorpusComparison([[-8 * Math.LN2, 4]], [[-8 * Math.LN2, 4]], 'bits_per_byte').meanA, 2);
});

test('CLI: the summary names the paired word_perplexity difference as the table prints it', () => {
  const r = runCli(['diff', A, B, '--tasks', 'lambada_rolling', '--iterations', '200']);
  assert.equal(r.status, 0, r.stderr);
  // 4894096.135226108 − 5479248.567678061 = −585152.43…: the whole number, in the table and in the sentence.
  assert.match(r.stdout, /word_perplexity,none \(weighted_perplexity of the shared items\) B − A = -585152 \(not distinguishable at n = 20\)/);
  assert.match(r.stdout, /word_perplexity,none: The difference \(B − A = -585152\) is not distinguishable/);
});
