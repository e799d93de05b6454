// instances.response_text is written by each importer beside the responses it comes from
// (schema_version 2). Rescoring reads items from it alone, so any importer that let it drift
// from responses.text would change every score silently: checked here on every real source.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openStore } from '../../src/store/readStore.ts';
import { queryRows } from '../../src/util/duckdb.ts';
import { repoRoot, runCli } from '../helpers/cli.ts';
import { decodedFixture, externalFixture } from '../helpers/fixtures.ts';

/** Imports the sources into a new store (the CLI) and compares each request's response_text with its repeat-0 response joined from responses. */
async function checkStore(sources: string[]): Promise<{ dir: string; requests: number; withText: number; mismatches: unknown[] }> {
  const dir = join(await mkdtemp(join(tmpdir(), 'lmaudit-rt-')), 'store');
  const cli = runCli(['import', ...sources, '--out', dir]);
  assert.equal(cli.status, 0, cli.stderr);
  const store = await openStore(dir);
  const key = 'run_id, task, doc_id, request_idx';
  const [counts] = await queryRows<{ requests: number; with_text: number }>(
    `SELECT count(*) AS requests, count(response_text) AS with_text FROM ${store.table('instances')}`,
  );
  const mismatches = await queryRows(`
    SELECT i.run_id, i.doc_id, i.request_idx, i.response_text, r.text
    FROM ${store.table('instances')} i
    LEFT JOIN (SELECT ${key}, text FROM ${store.table('responses')} WHERE "repeat" = 0) r USING (${key})
    WHERE i.response_text IS DISTINCT FROM r.text LIMIT 5`);
  return { dir, requests: counts!.requests, withText: counts!.with_text, mismatches };
}

test('lm-eval and Pythia outputs: every request carries the text of its first response', async () => {
  const r = await checkStore([externalFixture('lm-evaluation-harness'), externalFixture('pythia')]);
  assert.deepEqual(r.mismatches, []);
  assert.ok(r.withText > 0 && r.withText < r.requests, `${r.withText} of ${r.requests}: generations carry text, log-likelihood requests none`);
});

test('Inspect logs: every sample carries the completion of its first epoch, whichever epoch the log lists first', async () => {
  const r = await checkStore([externalFixture('inspect')]);
  assert.deepEqual(r.mismatches, []);
  assert.ok(r.withText > 0);
  // A log that lists its samples last epoch first: a request's first response is still epoch 1's.
  // (Its one bare NaN, a style setting, is not what this test is about.)
  const log = JSON.parse((await readFile(join(repoRoot, 'fixtures/inspect/synthetic-modern.json'), 'utf8')).replace(/: NaN\b/g, ': null'));
  log.samples.reverse();
  for (const sample of log.samples) sample.output.completion = `ANSWER: ${'ABC'[sample.epoch - 1]} (epoch ${sample.epoch})`;
  assert.deepEqual(log.samples.slice(0, 2).map((x: { epoch: number }) => x.epoch), [3, 3]);
  const path = join(await mkdtemp(join(tmpdir(), 'lmaudit-rt-')), 'epochs.json');
  await writeFile(path, JSON.stringify(log));
  const reversed = await checkStore([path]);
  assert.deepEqual(reversed.mismatches, []);
  assert.deepEqual([reversed.requests, reversed.withText], [5, 5]);
  const [read] = await queryRows<{ texts: string[] }>(`SELECT list(DISTINCT response_text) AS texts FROM ${(await openStore(reversed.dir)).table('instances')}`);
  assert.deepEqual(read!.texts, ['ANSWER: A (epoch 1)']);
});

test('HELM, lighteval and OpenCompass: every request carries the text of its first response', async () => {
  const r = await checkStore([decodedFixture('helm'), decodedFixture('lighteval'), decodedFixture('opencompass')]);
  assert.deepEqual(r.mismatches, []);
  assert.ok(r.withText > 0 && r.withText < r.requests, `${r.withText} of ${r.requests}: generations carry text, lighteval's log-likelihood requests none`);
});

test('generic records: the output, as written, is the response text', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'lmaudit-rt-'));
  await writeFile(join(dir, 'records.jsonl'), ['{"id": "a", "output": " B ", "gold": "B"}', '{"id": "b", "output": "", "gold": "C"}'].join('\n'));
  await writeFile(join(dir, 'table.csv'), 'id,output,gold\nx,"A, then D",D\n');
  const r = await checkStore([join(dir, 'records.jsonl'), join(dir, 'table.csv')]);
  assert.deepEqual(r.mismatches, []);
  assert.deepEqual([r.requests, r.withText], [3, 3]);
});
