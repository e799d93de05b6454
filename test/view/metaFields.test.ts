/**
 * Metadata filters see every document's fields, nested ones too: an lm-eval samples file of
 * 1,200 documents (each line the boolq-seq2seq fixture's first sample with its own doc_id and
 * doc) where `late` appears only from document 1,100 on, `meta.source` and `meta.deep.level`
 * are nested, `odd` is an object in one document and a string in another, and `a.b` is a key
 * with a dot. The counts are known by construction: meta.source is "web" where i % 3 == 0
 * (400 of 0..1199), late is "yes" for even i ≥ 1100 (50), meta.deep.level is "3" where
 * i % 4 == 3 (300).
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { fixturePath } from '../helpers/fixtures.ts';
import type { ViewApi } from '../../src/view/api.ts';
import type { RunningViewer } from '../../src/view/server.ts';
import { launch, NO_CHROMIUM, viewerOn } from './viewHelpers.ts';

let viewer: RunningViewer;
let api: ViewApi;
let browser: Browser | undefined;
let scope: string;

before(async () => {
  const template = JSON.parse(readFileSync(join(fixturePath('lmeval/bigrefactor-2023-06'), '_boolq-seq2seq.jsonl'), 'utf8').split('\n')[0]!) as Record<string, unknown>;
  const lines: string[] = [];
  for (let i = 0; i < 1200; i++) {
    const doc: Record<string, unknown> = { question: `q${i}`, label: 0, meta: { source: i % 3 === 0 ? 'web' : 'book', deep: { level: String(i % 4) } } };
    if (i >= 1100 && i % 2 === 0) doc.late = 'yes';
    if (i === 5) doc.odd = { x: 'y' };
    if (i === 6) doc.odd = 'z';
    if (i === 7) doc['a.b'] = 'dot';
    lines.push(JSON.stringify({ ...template, doc_id: i, doc }));
  }
  const folder = await mkdtemp(join(tmpdir(), 'lmaudit-view-meta-'));
  await writeFile(join(folder, 'samples_boolq-seq2seq_2025-01-01T00-00-00.jsonl'), `${lines.join('\n')}\n`);
  ({ viewer, api } = await viewerOn([folder]));
  const run = api.session.sources[0]!.loaded.store.manifest.runs[0]!.run_id;
  scope = `s=0&run=${run}&task=boolq-seq2seq`;
  if (!NO_CHROMIUM) browser = await launch();
});
after(async () => {
  await browser?.close();
  await viewer?.close();
});

async function items(query: string): Promise<{ metaFields: string[]; metaNote: string | null; matching: number; rows: { doc_id: string }[] }> {
  return (await api.answer('items', new URLSearchParams(`${scope}&${query}`))) as never;
}

test('the metadata fields are every document\'s, nested ones by their dotted path, found in DuckDB', async () => {
  const all = await items('limit=1');
  // Shallow first, then by name; `meta` and `meta.deep` hold only objects, so they are levels, not fields; `odd` is both.
  assert.deepEqual(all.metaFields, ['/a.b', 'label', 'late', 'odd', 'question', 'meta.source', 'odd.x', 'meta.deep.level']);
  assert.equal(all.metaNote, null);
  assert.equal((await items('meta=late&mv=yes&limit=500')).matching, 50);
  assert.deepEqual((await items('meta=late&mv=yes&limit=2')).rows.map((r) => r.doc_id), ['1100', '1102']);
  assert.equal((await items('meta=meta.source&mv=web')).matching, 400);
  assert.equal((await items('meta=meta.deep.level&mv=3')).matching, 300);
  assert.deepEqual((await items('meta=odd.x&mv=y')).rows.map((r) => r.doc_id), ['5']);
  assert.deepEqual((await items('meta=odd&mv=z')).rows.map((r) => r.doc_id), ['6']);
  assert.deepEqual((await items('meta=%2Fa.b&mv=dot')).rows.map((r) => r.doc_id), ['7']);
  await assert.rejects(items('meta=meta&mv=x'), /no metadata field "meta" in these documents/);
});

/** The list's count reads exactly this (a substring would let '400 items' pass for '0 items'). */
async function shows(page: Page, text: string): Promise<void> {
  await page.waitForFunction((t) => document.getElementById('matching')?.textContent === t, text, { timeout: 5000 }).catch(async (e) => {
    throw new Error(`${String(e)}: shows ${await page.locator('#matching').innerText()} at ${page.url()}`);
  });
}

test('in Chromium: a field first seen after document 1,000 and a nested field filter the list', { skip: NO_CHROMIUM }, async () => {
  const page = await browser!.newPage();
  await page.goto(`${viewer.url}#/items?${scope}`);
  await shows(page, '1,200 items of 1,200');
  await page.waitForSelector('select[name="meta"] option[value="late"]', { state: 'attached' });
  await page.selectOption('select[name="meta"]', 'late');
  await shows(page, '0 items of 1,200');
  await page.fill('input[name="mv"]', 'yes');
  await page.locator('button[type="submit"]').click();
  await shows(page, '50 items of 1,200');
  assert.equal(await page.locator('.list a.row').first().getAttribute('data-doc'), '1100');
  await page.selectOption('select[name="meta"]', 'meta.source');
  await shows(page, '0 items of 1,200');
  await page.fill('input[name="mv"]', 'web');
  await page.locator('button[type="submit"]').click();
  await shows(page, '400 items of 1,200');
  assert.match(page.url(), /meta=meta\.source&mv=web/);
  await page.close();
});
