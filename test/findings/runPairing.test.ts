/**
 * Issue 15 part 2, "run pairing": the whole pr2236-asdiv/asdiv folder (four runs: Llama-3-8B
 * asdiv at batch 8, and three asdiv_cot_llama runs of Llama-3-8B, Llama-3.1-8B and a PEFT
 * adapter) against asdiv_cot (Llama-3-8B asdiv at batch 1). The batch-8 run of the same model
 * and task must be the one compared, whatever order the folder walk reads the runs in.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../helpers/cli.ts';

/** The upstream asdiv folder: the two runs fixtures/lmeval ships plus the three of fixtures/lmeval-more. */
function wholeAsdivFolder(): string {
  const dir = join(mkdtempSync(join(tmpdir(), 'lmaudit-pairing-')), 'asdiv');
  cpSync('fixtures/lmeval/pr2236-asdiv/asdiv', dir, { recursive: true });
  cpSync('fixtures/lmeval-more/pr2236-asdiv/asdiv', dir, { recursive: true });
  return dir;
}

const B = 'fixtures/lmeval/pr2236-asdiv/asdiv_cot';

test('a run sharing the task name beats runs paired only by position (first in the walk)', () => {
  const r = runCli(['diff', wholeAsdivFolder(), B, '--json', '--iterations', '200']);
  assert.equal(r.status, 0, r.stderr);
  const diff = JSON.parse(r.stdout);
  assert.equal(diff.comparisons.length, 1);
  const c = diff.comparisons[0];
  // lmeval-4b64… is the batch-8 Llama-3-8B asdiv run (results + samples), as in the README's import.
  assert.equal(c.a.run_id, 'lmeval-4b64765ee7b225f6');
  assert.equal(c.b.run_id, 'lmeval-36abbaa79580e0da');
  assert.deepEqual(c.tasks.map((t: { taskA: string; taskB: string }) => [t.taskA, t.taskB]), [['asdiv', 'asdiv']]);
  assert.equal(
    c.pairedBecause,
    'the same task name (asdiv); 1 setting differs (model.batch_size); chosen over 3 other candidates (3 paired only by position); --run-a/--run-b choose other runs',
  );
  assert.deepEqual(diff.unpairedA.map((u: { label: string }) => u.label.split('/').at(-2)).sort(), [
    '..__prompt-pursuit__results__aug17__gsm8k_8shot_pursue_numq_1000_r16_lr1e-6__epoch_20',
    'meta-llama__Meta-Llama-3-8B-Instruct',
    'meta-llama__Meta-Llama-3.1-8B-Instruct',
  ]);
});

test('the text output says why the pair was made', () => {
  const r = runCli(['diff', wholeAsdivFolder(), B, '--iterations', '200']);
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /^Paired because: the same task name \(asdiv\); 1 setting differs \(model\.batch_size\); chosen over 3 other candidates/m);
  assert.match(r.stdout, /^ {4}asdiv: no task setting differs; falsifier holds/m);
});

test('--run-a overrides the pairing, and the reason says so', () => {
  const r = runCli(['diff', wholeAsdivFolder(), B, '--run-a', 'Meta-Llama-3.1-8B', '--json', '--iterations', '200']);
  assert.equal(r.status, 0, r.stderr);
  const c = JSON.parse(r.stdout).comparisons[0];
  assert.match(c.a.label, /Meta-Llama-3\.1-8B-Instruct\/results_2024-08-21T04-31-41\.160720\.json$/);
  assert.match(c.pairedBecause, /^chosen with --run-a\/--run-b; no task name in common; each run has one task \(asdiv_cot_llama vs asdiv\), paired by position; \d+ settings differ/);
});

test('among runs that share the task name, the closest settings win', async () => {
  const { pairRuns } = await import('../../src/audit/runPairs.ts');
  const { importSources } = await import('../../src/import/index.ts');
  const opts = { skipBad: false, fields: {} };
  // The batch-1 run on one side; on the other, the batch-8 run (listed first) and a second import of the
  // batch-1 run itself (a copy, so not excluded as a self-pair): both share the task name.
  const a = (await importSources([B], opts)).runs.map((x) => x.provenance);
  const both = (await importSources(['fixtures/lmeval/pr2236-asdiv'], opts)).runs.map((x) => x.provenance);
  const far = both.find((x) => x.label.includes('/asdiv/'))!;
  const pairing = pairRuns(a, [far, ...both.filter((x) => x !== far)]);
  assert.equal(pairing.pairs.length, 1);
  // The identical run (0 differing fields) beats the batch-8 run, though the batch-8 run came first.
  assert.match(pairing.pairs[0]!.b.label, /asdiv_cot/);
  assert.match(pairing.pairs[0]!.reason, /^the same task name \(asdiv\); no recorded setting differs; chosen over 1 other candidate \(1 with as many shared names and as many or more settings differing at run level or in the first shared task\)/);
});

test('fixtures/lmeval-more: every file listed in fixtures/SOURCES.md with the sha256 it has', async () => {
  const { readFileSync } = await import('node:fs');
  const { sha256Hex } = await import('../../src/util/hash.ts');
  const sources = readFileSync('fixtures/SOURCES.md', 'utf8');
  const start = sources.indexOf('## lmeval-more/');
  const section = sources.slice(start, sources.indexOf('\n## ', start + 1));
  const rows = [...section.matchAll(/^\| `([^`]+)` \| .* \| `([0-9a-f]{64})` \|$/gm)];
  assert.equal(rows.length, 5);
  for (const [, file, sha] of rows) assert.equal(sha256Hex(readFileSync(join('fixtures/lmeval-more', file!))), sha, file);
});
