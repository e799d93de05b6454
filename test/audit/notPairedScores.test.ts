/**
 * A reported score with no paired row. lm-eval's f1 (and mcc, bleu, ter) records per item a (gold, prediction)
 * tuple and aggregates over the whole set: with items joined, `diff` printed no paired row for it, hid its reported
 * aggregates (shown only where no items were joined) and said nothing. gpt2-tiny's and qwen3-tiny's boolq records
 * (fixtures/models/lmeval-reference, cells-mc) are given lm-eval's multiple-choice f1 item, (gold, argmax of the
 * choices' log-likelihoods), and a reported f1,none beside acc,none.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../helpers/cli.ts';
import { boolqCopy } from '../helpers/boolqCopy.ts';
import { subsetSentence } from '../../src/report/subsetNote.ts';

/** boolq with an f1 pair a document (its gold and argmax) and `f1` printed for it, as lm-eval's f1 metric writes them. */
function withF1(root: string, model: string, f1: number): string {
  return boolqCopy(root, model, (row) => {
    const lls = (row.filtered_resps as [number, boolean][]).map((r) => r[0]);
    row.f1 = [row.target, lls.indexOf(Math.max(...lls))];
    row.metrics = [...row.metrics, 'f1'];
  }, (json) => {
    json.results.boolq['f1,none'] = f1;
    json.results.boolq['f1_stderr,none'] = 'N/A';
    json.configs.boolq.metric_list = [...json.configs.boolq.metric_list, { metric: 'f1', aggregation: 'f1', higher_is_better: true }];
  });
}

test('diff: a reported score with no paired row is named, and its reported aggregates are shown', (t) => {
  const root = mkdtempSync(join(tmpdir(), 'lmaudit-not-paired-'));
  t.after(() => rmSync(root, { recursive: true, force: true }));
  const [a, b] = [withF1(root, 'gpt2-tiny', 0.25), withF1(root, 'qwen3-tiny', 0.4)];
  const r = runCli(['diff', a, b, '--iterations', '10', '--json']);
  assert.equal(r.status, 0, r.stderr);
  const task = JSON.parse(r.stdout).comparisons[0].tasks[0];
  assert.deepEqual(task.notPaired, ['f1,none']);
  assert.ok(task.paired.some((p: { score: string }) => p.score === 'acc,none'));
  assert.equal(task.pairedNote, 'f1,none: no paired statistics (the per-item values are not numbers: the source aggregates them over the whole set); the reported aggregates are set side by side');
  const text = runCli(['diff', a, b, '--iterations', '10']);
  assert.match(text.stdout, /Reported aggregates \(the sources’ own numbers\)\. Without paired per-item values only the unpaired z-test/);
  assert.match(text.stdout, /\nf1,none +0\.25 +0\.4 +"N\/A" +"N\/A" +— +—\n/);
  // acc,none is paired, so it is not among the reported rows.
  assert.doesNotMatch(text.stdout, /\nacc,none +0\.2 +0\.15 /);
});

test('the subset sentence is not said of a reported score that was not paired', () => {
  const zero = { n: 3, meanA: 1, meanB: 1, difference: 0, ci: [0, 0], iterations: 10, seed: 1, mcnemar: { aOnly: 0, bOnly: 0, p: 1 }, decidedBy: 'mcnemar', distinguishable: false, sentence: '' };
  const t = {
    items: { shared: 3, onlyA: 17, onlyB: 0 },
    paired: [{ score: 'acc,none', dropped: 0, result: zero }],
    reported: [
      { score: 'acc,none', a: 0.2, b: 1, stderrA: 0.1, stderrB: 0, unpaired: null },
      { score: 'f1,none', a: 0.25, b: 0.4, stderrA: 'N/A', stderrB: 'N/A', unpaired: null },
    ],
    settings: { items: [] },
  } as unknown as Parameters<typeof subsetSentence>[0];
  // With acc alone the sentence holds: the 3 shared documents score alike, the 17 only in A make the difference.
  assert.match(subsetSentence({ ...t, reported: [t.reported[0]!] })!, /the difference comes entirely from the 17 document\(s\) only A scored/);
  // f1 was not paired: nothing says its shared documents agree.
  assert.equal(subsetSentence({ ...t, notPaired: ['f1,none'] }), null);
  // One shared document without a numeric acc on a side: the shared documents are not known to agree.
  assert.equal(subsetSentence({ ...t, reported: [t.reported[0]!], paired: [{ ...t.paired[0]!, dropped: 1 }] }), null);
});
