/**
 * A count of one takes the singular: OpenCompass's MMLU work folder holds one item per dataset, and the report and
 * the diff's evidence said 'of 1 items'.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { loadSource } from '../../src/audit/source.ts';
import { DEFAULT_PAIRED_OPTIONS } from '../../src/audit/pairedStats.ts';
import { samePrompts } from '../../src/audit/settledByEvidence.ts';
import { buildReport } from '../../src/report/model.ts';
import { renderReport } from '../../src/report/render.ts';
import { decodedFixture } from '../helpers/fixtures.ts';

test("report on OpenCompass's one-item datasets: 'denominator: 1 of 1 item scored'", async () => {
  const folder = join(decodedFixture('opencompass'), 'FudanDNN-NLP-RAG/opencompass/outputs/default/20240609_154004');
  const source = await loadSource([folder], { skipBad: false, fields: {} });
  const data = await buildReport(source.store, null, null, { ...DEFAULT_PAIRED_OPTIONS, iterations: 100 });
  const text = renderReport(data, 'md');
  assert.match(text, /denominator: 1 of 1 item scored \(/);
  assert.doesNotMatch(text, /\b1 items\b/);
});

test("the prompt-bytes evidence of one shared item: '1 of 1 item's requests'", () => {
  const e = { shared: 1, onlyA: 0, onlyB: 0, docHashesEqual: 1, promptsEqual: 1, targetsEqual: 1 };
  assert.equal(samePrompts(e), "same prompt bytes (1 of 1 item's requests byte-equal)");
  assert.equal(samePrompts({ ...e, shared: 2, promptsEqual: 2 }), "same prompt bytes (2 of 2 items' requests byte-equal)");
});

test("configured vs used on a one-sample Inspect log: '1 document', '0 of 1 target is a list'", async () => {
  // inspect_evals/mmlu_0_shot, one sample (fixtures/external/inspect/mmlu-summary-choices.eval): the diff printed
  // 'samples_in_file  unknown: 1 documents'.
  const { checkConfiguredVsUsed } = await import('../../src/audit/configuredVsUsed.ts');
  const { loadDocs } = await import('../../src/audit/itemJoin.ts');
  const { fixturePath } = await import('../helpers/fixtures.ts');
  const { store } = await loadSource([fixturePath('external/inspect/mmlu-summary-choices.eval')], { skipBad: false, fields: {} });
  const run = store.manifest.runs[0]!;
  const task = Object.keys(run.tasks)[0]!;
  const checks = await checkConfiguredVsUsed(run, task, await loadDocs(store, run.run_id, task));
  assert.equal(checks.find((c) => c.id === 'samples_in_file')!.used, '1 document');
  assert.equal(checks.find((c) => c.id === 'target_shape')!.used, '0 of 1 target is a list');
});

test("report --against with one flip: '1 flip', not '1 flips'", async () => {
  // The 2023 refactor branch's winogrande, default model (w.json, 2 docs) against pythia-2.8b (4 docs): doc 0 is right
  // only in A (python3: argmax of the two loglikelihoods against the gold), the one flip of acc,none.
  const { mkdtempSync, copyFileSync, mkdirSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const { externalFixture } = await import('../helpers/fixtures.ts');
  const { diffStores } = await import('../../src/audit/diff.ts');
  const src = externalFixture('lm-evaluation-harness/bigrefactor-2023-06');
  const dir = mkdtempSync(join(tmpdir(), 'lmaudit-flip-'));
  mkdirSync(join(dir, 'a'));
  mkdirSync(join(dir, 'b'));
  for (const f of ['w.json', '_winogrande.jsonl']) copyFileSync(join(src, f), join(dir, 'a', f));
  copyFileSync(join(src, 'pretrained=EleutherAI__pythia-2.8b_winogrande.jsonl'), join(dir, 'b', 'pretrained=EleutherAI__pythia-2.8b_winogrande.jsonl'));
  const A = await loadSource([join(dir, 'a')], { skipBad: false, fields: {} });
  const B = await loadSource([join(dir, 'b')], { skipBad: false, fields: {} });
  const comparison = await diffStores(A.store, B.store, { iterations: 100 });
  const data = await buildReport(A.store, comparison, null, { ...DEFAULT_PAIRED_OPTIONS, iterations: 100 });
  const text = renderReport(data, 'md');
  assert.match(text, /acc,none: 1 flip \(1 right only in A, 0 right only in B\)/);
  assert.doesNotMatch(text, /\b1 flips\b/);
});

test("report's table title: '2 configurations × 1 reading'", async () => {
  // Pythia-160m 0-shot and 5-shot on lambada_openai: one rate reported (acc; ppl is not one). It read '× 1 readings'.
  const { runCli } = await import('../helpers/cli.ts');
  const r = runCli(['report', 'fixtures/external/pythia', '--tasks', 'lambada_openai']);
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /\*\*Across runs: lambada\\_openai \(2 configurations × 1 reading, micro; score ± stderr \(n\)\)\*\*/);
});

test("falsifier with one shared document: '1 document in both'", async () => {
  const { emptyRunProvenance, emptyTaskProvenance } = await import('../../src/store/schema.ts');
  const { diffSettings } = await import('../../src/audit/settingsDiff.ts');
  const { evaluateClause, DEFAULT_CLAUSES } = await import('../../src/audit/falsifier.ts');
  const run = (id: string) => {
    const r = emptyRunProvenance({ run_id: id, label: id, source_kind: 'generic', source_format: 'jsonl' });
    r.tasks.t = emptyTaskProvenance();
    return r;
  };
  const documents = DEFAULT_CLAUSES.find((c) => c.name === 'documents')!;
  const clause = evaluateClause(documents, diffSettings(run('a'), 't', run('b'), 't'), null, { shared: 1, onlyA: 0, onlyB: 0, promptsDiffer: 0 });
  assert.equal(clause.finding, 'agree (1 document in both, none in one only)');
});
