/**
 * diff's 'Source configuration: not compared (…)' and the configured-vs-used
 * checks say why no lm-eval results file was read. 'The run has no results
 * file' was said of Inspect runs, whose numbers come from the eval log's
 * results: what such a run lacks is an lm-eval results file, not results.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadSource } from '../../src/audit/source.ts';
import { diffStores } from '../../src/audit/diff.ts';
import { rawResults } from '../../src/audit/recordFiles.ts';

const FIXTURES = new URL('../../fixtures/', import.meta.url).pathname;
const OPTIONS = { skipBad: false, fields: {} };

async function whyOf(path: string): Promise<string[]> {
  const { store } = await loadSource([`${FIXTURES}${path}`], OPTIONS);
  const out: string[] = [];
  for (const run of store.manifest.runs) {
    const raw = await rawResults(run);
    out.push(raw.status === 'unavailable' ? raw.why : 'read');
  }
  return [...new Set(out)];
}

test('two Inspect runs: diff says they were imported from Inspect eval logs, not that they have no results file', async () => {
  const A = await loadSource([`${FIXTURES}inspect/logs/2025-02-11T15-17-00-05-00_popularity_dPiJifoWeEQBrfWsAopzWr.eval`], OPTIONS);
  const B = await loadSource([`${FIXTURES}inspect/logs/2025-02-11T15-18-04-05-00_popularity_mj7khqpMM4GBCfVQozKgzB.eval`], OPTIONS);
  const d = await diffStores(A.store, B.store, { iterations: 100 });
  const sc = d.comparisons[0]!.tasks[0]!.sourceConfig;
  assert.equal(sc.available, false);
  assert.equal(sc.why, 'A: imported from an Inspect eval log, not an lm-eval results file; B: imported from an Inspect eval log, not an lm-eval results file');
});

test('the other non-lm-eval importers name their own records', async () => {
  assert.deepEqual(await whyOf('eee/aggregate-0.2.0-hfopenllm_v2/98ea850e-7019-4728-a558-8b1819ec47c2.json'), ['imported from Every Eval Ever records, not an lm-eval results file']);
  assert.deepEqual(await whyOf('helm/stanford-crfm-helm/benchmark_output_bbq'), ['imported from a HELM run folder, not an lm-eval results file']);
  assert.deepEqual(await whyOf('lighteval/evaleval-every_eval_ever/tests/data/lighteval_smoke'), ["imported from lighteval's results and details files, not an lm-eval results file"]);
  assert.deepEqual(await whyOf('opencompass/FudanDNN-NLP-RAG/opencompass/outputs/default'), ['imported from an OpenCompass work folder, not an lm-eval results file']);
  // An agent harness: named by the harness the run records.
  assert.deepEqual(await whyOf('agents/harbor'), ["imported from harbor's output, not an lm-eval results file"]);
});

test('an lm-eval run imported from its samples alone still has no results file, and says so', async () => {
  const { mkdtempSync, copyFileSync, readdirSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const { join } = await import('node:path');
  const run = `${FIXTURES}lmeval/pr2236-asdiv/asdiv/meta-llama__Meta-Llama-3-8B-Instruct`;
  const dir = mkdtempSync(join(tmpdir(), 'samples-only-'));
  for (const f of readdirSync(run).filter((n) => n.startsWith('samples_'))) copyFileSync(join(run, f), join(dir, f));
  const { store } = await loadSource([dir], OPTIONS);
  const raw = await rawResults(store.manifest.runs[0]!);
  assert.deepEqual(raw, { status: 'unavailable', why: 'the run has no results file' });
});
