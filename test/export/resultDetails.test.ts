import { test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../helpers/cli.ts';
import { externalFixture, fixturePath } from '../helpers/fixtures.ts';

const work = mkdtempSync(join(tmpdir(), 'lmaudit-numsamples-'));

interface ExportedResult {
  score_details: { score: number; uncertainty: { num_samples: number; standard_error: { value: number } } };
  source_data: Record<string, unknown>;
}

/** The score_details of every result in the one aggregate `export` writes for `source`. */
function exported(source: string, name: string): ExportedResult['score_details'][] {
  return results(source, name).map((x) => x.score_details);
}

/** Every result in the one aggregate `export` writes for `source`. */
function results(source: string, name: string): ExportedResult[] {
  const out = join(work, `export-${name}`);
  const r = runCli(['export', source, '--format', 'eee', '--out', out]);
  assert.equal(r.status, 0, r.stderr);
  const file = (readdirSync(out, { recursive: true }) as string[]).find((f) => f.endsWith('.json') && statSync(join(out, f)).isFile())!;
  return JSON.parse(readFileSync(join(out, file), 'utf8')).evaluation_results;
}

// EEE's num_samples is "the number of samples used to compute the uncertainty estimates". A reported score and
// standard error were computed over the source's samples; export wrote how many per-item rows the store held.
test("an exported result's num_samples is the count the source's number was computed over, not the rows the store holds", () => {
  // EEE's converter test log: 1 of the 79 samples its accuracy 0.3544 ± 0.0542 was computed over (1 epoch).
  const log = externalFixture('agents/inspect-agent-logs/every_eval_ever/tests/data/inspect/data_intercode_ctf_local_path.json');
  assert.deepEqual(exported(log, 'inspect').map((d) => [d.score, d.uncertainty.num_samples]), [[0.35443037974683544, 79]]);
  // asdiv's acc 0.92 ± 0.0388 over n-samples effective 50, with its samples file cut to its first 6 records.
  const run = fixturePath('lmeval/pr2236-asdiv/asdiv/meta-llama__Meta-Llama-3-8B-Instruct');
  const cut = join(work, 'cut');
  mkdirSync(cut);
  for (const f of readdirSync(run)) {
    if (f.startsWith('results_')) copyFileSync(join(run, f), join(cut, f));
    else writeFileSync(join(cut, f), readFileSync(join(run, f), 'utf8').split('\n').slice(0, 6).join('\n') + '\n');
  }
  assert.deepEqual(exported(cut, 'cut').map((d) => [d.score, d.uncertainty.num_samples]), [[0.92, 50]]);
  // The whole samples file: the same 50.
  assert.deepEqual(exported(run, 'whole').map((d) => [d.score, d.uncertainty.num_samples]), [[0.92, 50]]);
});

// Inspect's dataset location '~/.cache/inspect_evals/gdm_intercode_ctf/data/ic_ctf.json' has a '/' and does not start
// with one: it was written as source_type hf_dataset, hf_repo '~/.cache/…', a Hub repository that does not exist.
test('a local dataset path is exported as a dataset of type other, a Hub id as hf_dataset', () => {
  const log = externalFixture('agents/inspect-agent-logs/every_eval_ever/tests/data/inspect/data_intercode_ctf_local_path.json');
  assert.deepEqual(results(log, 'local').map((x) => x.source_data), [
    { dataset_name: '~/.cache/inspect_evals/gdm_intercode_ctf/data/ic_ctf.json', source_type: 'other', additional_details: { dataset_name: 'ic_ctf' } },
  ]);
  const run = fixturePath('lmeval/pr2236-asdiv/asdiv/meta-llama__Meta-Llama-3-8B-Instruct');
  assert.deepEqual(results(run, 'hub').map((x) => x.source_data), [{ dataset_name: 'EleutherAI/asdiv', source_type: 'hf_dataset', hf_repo: 'EleutherAI/asdiv', hf_split: 'validation' }]);
});

// EEE's datastore folder is data/<collection>/<developer>/<model>/. The dataset file's name ('ic_ctf.json', extension
// and all) named the collection; for a dataset that is not a Hub id EEE's Inspect converter takes the task's name.
test("an export's collection folder: a Hub dataset's name, else the task's (not a local file's name)", () => {
  const folders = (source: string, name: string) => {
    const out = join(work, `export-${name}`);
    return (readdirSync(out, { recursive: true }) as string[]).filter((f) => f.endsWith('.json') && statSync(join(out, f)).isFile()).map((f) => f.split('/').slice(0, 2).join('/'));
  };
  const log = externalFixture('agents/inspect-agent-logs/every_eval_ever/tests/data/inspect/data_intercode_ctf_local_path.json');
  results(log, 'folder-local');
  assert.deepEqual(folders(log, 'folder-local'), ['data/gdm_intercode_ctf']);
  const run = fixturePath('lmeval/pr2236-asdiv/asdiv/meta-llama__Meta-Llama-3-8B-Instruct');
  results(run, 'folder-hub');
  assert.deepEqual(folders(run, 'folder-hub'), ['data/asdiv']);
});


// The round trip restores the exported disclosure values, among them the trimmed log's inferred document count (1):
// as-recorded read what the result was over from that count and so never said the records are 1 of its 79.
test("re-imported EEE export of a trimmed Inspect log: as-recorded says the result is over 79, the records hold 1", async () => {
  const { loadSource } = await import('../../src/audit/source.ts');
  const { rescoreAsRecorded } = await import('../../src/score/asRecorded.ts');
  const log = externalFixture('agents/inspect-agent-logs/every_eval_ever/tests/data/inspect/data_intercode_ctf_local_path.json');
  const out = join(work, 'export-trimmed');
  assert.equal(runCli(['export', log, '--format', 'eee', '--out', out]).status, 0);
  const { store } = await loadSource([out], { skipBad: false, fields: {} });
  const [section] = await rescoreAsRecorded(store);
  const [cell] = section!.cells as { n: number; why: string }[];
  assert.equal(cell!.n, 1);
  assert.match(cell!.why, /; the result is over 79 item\(s\) \(uncertainty\.num_samples\), the samples file holds 1 record\(s\)$/);
});
