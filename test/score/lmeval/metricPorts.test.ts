/**
 * The hand-written ports behind lm-eval's task metrics, against Python: sacrebleu's BLEU as
 * truthfulqa calls it, CPython's math.exp/math.log (correctly rounded), truthfulqa's mc2 with
 * numpy, the rolling word/byte counts and the weighted_perplexity / bits_per_byte aggregations.
 * Reference values: reference/metric_cases.json, made by reference/make_metric_cases.py.
 * rouge_score is not installable here, so ROUGE is checked by hand calculations below and by
 * the 817 × 9 recorded values in truthfulqaGen.test.ts.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { pyExp, pyLog } from '../../../src/py/math.ts';
import { corpusBleu, tokenizeIntl } from '../../../src/score/lmeval/sacrebleu.ts';
import { rougeScore, rougeTokenize } from '../../../src/score/lmeval/rouge.ts';
import { truthfulqaBleu, truthfulqaProcessResultsMc2, truthfulqaRouge } from '../../../src/score/lmeval/taskCode.ts';
import { aggregateMetric, rollingWordCount, scoreDocument, type ScoringSpec } from '../../../src/score/lmeval/taskScoring.ts';

interface Cases {
  bleu: { ref: string; pred: string; counts: number[]; totals: number[]; sys_len: number; ref_len: number; libm: number; cr: number }[];
  math: { log: [number, number, number][]; exp: [number, number, number][] };
  mc2: { lls: number[]; labels: number[]; numpy: number | 'NaN'; cr: number | 'NaN' }[];
  mc2_run: { results_json: string; samples: string[] };
  corpus: { hyps: string[]; refs: string[][]; counts: number[]; totals: number[]; sys_len: number; ref_len: number; cr: number; floor_effective_cr: number };
  rolling: { words: [string, number, number][]; items: [number, number][]; weighted_perplexity: number; bits_per_byte: number; weighted_perplexity_libm: number };
}
const cases = JSON.parse(readFileSync(new URL('./reference/metric_cases.json', import.meta.url), 'utf8')) as Cases;
const num = (v: number | 'NaN') => (v === 'NaN' ? Number.NaN : v);

test('pyExp / pyLog are the correctly rounded doubles (Decimal at 60 digits) on 509 log and 610 exp inputs, edges included', () => {
  for (const [x, cr] of cases.math.log) assert.equal(pyLog(x), cr, `log(${x})`);
  for (const [x, cr] of cases.math.exp) assert.equal(pyExp(x), cr, `exp(${x})`);
  assert.equal(pyExp(710), Infinity);
  assert.equal(pyExp(-746), 0);
  assert.ok(Number.isNaN(pyLog(-1)));
  assert.equal(pyLog(0), -Infinity);
});

test('sacrebleu intl tokenizer: the strings TokenizerV14International returns', () => {
  assert.equal(tokenizeIntl('It costs $1,000.50 in 2020.'), 'It costs $ 1,000.50 in 2020.');
  assert.equal(tokenizeIntl('« Guillemets » and “curly quotes” — dashes… ellipsis'), '« Guillemets » and “ curly quotes ” — dashes … ellipsis');
  assert.equal(tokenizeIntl('x.y.z 3.14 a-b c_d e/f (g) [h] {i}'), 'x . y . z 3.14 a - b c _ d e / f ( g ) [ h ] { i }');
  assert.equal(tokenizeIntl('Ends with a number 1999.'), 'Ends with a number 1999.');
});

test(`truthfulqa bleu(): ${cases.bleu.length} (reference, prediction) pairs give sacrebleu's statistics and score`, () => {
  let libmAgrees = 0;
  for (const c of cases.bleu) {
    const s = corpusBleu([c.pred], [[c.ref]], { smoothMethod: 'exp', smoothValue: 0.0 });
    const label = JSON.stringify([c.ref, c.pred]);
    assert.deepEqual([s.counts, s.totals, s.sysLen, s.refLen], [c.counts, c.totals, c.sys_len, c.ref_len], label);
    // Exactly sacrebleu's code with correctly rounded exp/log; this machine's glibc agrees on all but a few.
    const score = truthfulqaBleu([[c.ref]], [c.pred]);
    assert.equal(score, c.cr, label);
    if (score === c.libm) libmAgrees++;
    else assert.ok(Math.abs(score - c.libm) <= 2 ** -46, `${label}: ${score} vs libm ${c.libm} (more than 1 ulp of 100)`);
  }
  assert.ok(libmAgrees >= cases.bleu.length - 3, `${libmAgrees} of ${cases.bleu.length}`);
});

test('corpus_bleu over three segments and two reference streams; floor smoothing with effective order', () => {
  const c = cases.corpus;
  const s = corpusBleu(c.hyps, c.refs, { smoothMethod: 'exp', smoothValue: 0.0 });
  assert.deepEqual([s.counts, s.totals, s.sysLen, s.refLen, s.score], [c.counts, c.totals, c.sys_len, c.ref_len, c.cr]);
  const floor = corpusBleu(c.hyps.slice(2), c.refs.map((r) => r.slice(2)), { smoothMethod: 'floor', smoothValue: 0.1, effectiveOrder: true });
  assert.equal(floor.score, c.floor_effective_cr);
});

test('rouge_score tokenizer and scores, calculated by hand', () => {
  assert.deepEqual(rougeTokenize("It's the U.S.A.'s 2nd-best café!"), ['it', 's', 'the', 'u', 's', 'a', 's', '2nd', 'best', 'caf']);
  const s = rougeScore(['rouge1', 'rouge2', 'rougeL', 'rougeLsum'], 'The cat sat on the mat.', 'the cat on the mat');
  // rouge1: 5 of 6 target unigrams, all 5 predicted ones: P=1, R=5/6, F=2·1·(5/6)/(1+5/6).
  assert.equal(s.rouge1!.fmeasure, (2 * 1 * (5 / 6)) / (1 + 5 / 6));
  // rouge2: {the cat, on the, the mat} shared of 5 target and 4 predicted bigrams.
  assert.equal(s.rouge2!.fmeasure, (2 * (3 / 4) * (3 / 5)) / (3 / 4 + 3 / 5));
  assert.equal(s.rougeL!.fmeasure, s.rouge1!.fmeasure);
  // Summary-level LCS: r1=[a b c] unions LCS [a c] with c1 and [b] with c2; r2=[d e] unions [e] and [d]: 5 hits of 5.
  const m = rougeScore(['rougeL', 'rougeLsum'], 'a b c\nd e', 'a c e\nb d');
  assert.equal(m.rougeLsum!.fmeasure, 1);
  assert.equal(m.rougeL!.fmeasure, (2 * (3 / 5) * (3 / 5)) / (3 / 5 + 3 / 5));
  // A token is counted once however many reference sentences' LCS hold it: 1 hit, P=1, R=1/3.
  assert.equal(rougeScore(['rougeLsum'], 'a a\na', 'a').rougeLsum!.fmeasure, (2 * 1 * (1 / 3)) / (1 + 1 / 3));
  assert.deepEqual(rougeScore(['rouge1', 'rougeLsum'], '', 'a'), { rouge1: { precision: 0, recall: 0, fmeasure: 0 }, rougeLsum: { precision: 0, recall: 0, fmeasure: 0 } });
  assert.throws(() => rougeScore(['rouge1'], 'a', 'a', true), /Porter stemmer/);
  // truthfulqa's rouge(): " . " becomes a sentence break for rougeLsum, and every F-measure is ×100.
  const t = truthfulqaRouge(['One two . Three four .'], ['three four . one two']);
  assert.equal(t.rougeLsum, 100);
  assert.equal(t.rouge1, 100);
  assert.equal(t.rouge2, ((2 * (2 / 3) * (2 / 3)) / (2 / 3 + 2 / 3)) * 100);
});

test(`mc2: ${cases.mc2.length} documents — equal to numpy with correctly rounded exp, within 16 ulp of numpy's own exp; NaN on under/overflow`, () => {
  for (const c of cases.mc2) {
    const { acc } = truthfulqaProcessResultsMc2({ mc2_targets: { labels: c.labels } }, { kind: 'loglikelihood', results: c.lls.map((ll) => [ll, false] as const) });
    const label = JSON.stringify(c.lls);
    if (c.cr === 'NaN') assert.ok(Number.isNaN(acc), label);
    else assert.equal(acc, c.cr, label);
    const np = num(c.numpy);
    if (Number.isNaN(np)) assert.ok(Number.isNaN(acc!));
    else assert.ok(Math.abs(acc! - np) <= 16 * 2 ** -52, `${label}: ${acc} vs numpy ${np}`);
  }
  assert.throws(() => truthfulqaProcessResultsMc2({ mc2_targets: { labels: [1, 1] } }, { kind: 'loglikelihood', results: [[-1, false], [-2, false]] }), /0 is not in doc\.mc2_targets\.labels/);
});

test("rolling loglikelihood: lm-eval's word and byte counts, weighted_perplexity and bits_per_byte (stderr N/A)", () => {
  for (const [text, words, bytes] of cases.rolling.words) {
    assert.equal(rollingWordCount(text), words, JSON.stringify(text));
    const spec: ScoringSpec = { outputType: 'loglikelihood_rolling', processResults: null, metrics: [] };
    spec.metrics.push({ metric: 'word_perplexity', aggregation: 'weighted_perplexity', kwargs: {} }, { metric: 'bits_per_byte', aggregation: 'bits_per_byte', kwargs: {} });
    assert.deepEqual(scoreDocument(spec, { doc: {}, results: [-3.5], target: text }), { word_perplexity: [-3.5, words], bits_per_byte: [-3.5, bytes] });
  }
  const o = { bootstrapIters: 100000, sumMode: 'fold' as const, medianSorts: true };
  const items = cases.rolling.items;
  assert.deepEqual(aggregateMetric({ metric: 'word_perplexity', aggregation: 'weighted_perplexity', kwargs: {} }, items, o), { value: cases.rolling.weighted_perplexity, stderr: 'N/A' });
  assert.deepEqual(aggregateMetric({ metric: 'bits_per_byte', aggregation: 'bits_per_byte', kwargs: {} }, items, o), { value: cases.rolling.bits_per_byte, stderr: 'N/A' });
});

test('as recorded: a truthfulqa_mc2 run (lm-eval 0.4.8 layout, values from numpy) is recomputed through the mc2 port', async () => {
  const { mkdtemp, writeFile } = await import('node:fs/promises');
  const { tmpdir } = await import('node:os');
  const { join } = await import('node:path');
  const { loadSource } = await import('../../../src/audit/source.ts');
  const { rescoreAsRecorded } = await import('../../../src/score/lmeval/asRecorded.ts');
  const dir = await mkdtemp(join(tmpdir(), 'lmaudit-mc2-'));
  const ts = '2026-01-01T00-00-00.000000';
  await writeFile(join(dir, `results_${ts}.json`), cases.mc2_run.results_json);
  await writeFile(join(dir, `samples_truthfulqa_mc2_${ts}.jsonl`), `${cases.mc2_run.samples.join('\n')}\n`);
  const { store } = await loadSource([dir], { skipBad: false, fields: {} });
  const [cell, ...rest] = (await rescoreAsRecorded(store)).cells;
  assert.equal(rest.length, 0);
  assert.equal(cell!.items.taken_as_recorded, null);
  assert.deepEqual(cell!.items.differing, []);
  // This machine's numpy exp agrees with correct rounding on these documents' log-likelihoods: all 6 bit-identical.
  assert.equal(cell!.items.reproduced, 6);
  assert.equal(cell!.matches_reported, true);
});
