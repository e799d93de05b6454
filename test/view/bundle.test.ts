/**
 * `lmaudit view --bundle`: a static site that opens from file:// with no server. Written here
 * for the boolq-seq2seq run (and, as a second source, the same run again so that the compare
 * page is in the bundle too), then walked in Chromium from the file system: runs → task →
 * two cells → the 13 items that flip (see walk.test.ts for the reference) → an item; compare.
 * No request may leave the bundle's folder.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Browser } from 'playwright-core';
import { fixturePath } from '../helpers/fixtures.ts';
import { writeBundle } from '../../src/view/bundle.ts';
import { ensureAssets, launch, NO_CHROMIUM, listed } from './viewHelpers.ts';
import { ViewApi } from '../../src/view/api.ts';
import { ViewSession } from '../../src/view/sources.ts';
import { slowOnly } from '../helpers/slow.ts';

let browser: Browser;
let folder: string;
let index: string;
before(async () => {
  if (NO_CHROMIUM) return;
  await ensureAssets();
  const store = fixturePath('lmeval/bigrefactor-2023-06');
  const api = new ViewApi(await ViewSession.open([store, store], { skipBad: false, fields: {} }));
  folder = await mkdtemp(join(tmpdir(), 'lmaudit-view-bundle-'));
  index = (await writeBundle(api, folder)).index;
  browser = await launch();
});
after(() => browser?.close());

// A slow cross-check since the plain suite passed 5 minutes on a slower 2-core machine: .ci/run runs it.
test('static bundle: the pages open from file:// with no server, and ask for nothing outside the folder', { skip: NO_CHROMIUM || slowOnly }, async () => {
  assert.deepEqual((await readdir(folder)).sort(), ['app.css', 'app.js', 'data', 'index.html']);
  const page = await browser.newPage();
  const outside: string[] = [];
  const base = pathToFileURL(folder).href;
  page.on('request', (r) => !r.url().startsWith(base) && outside.push(r.url()));
  await page.goto(pathToFileURL(index).href);
  await page.locator('a.task-link').first().click();
  await page.waitForSelector('table.matrix');
  await page.locator('td.cell a[data-cell="0"]').click();
  await page.locator('td.cell a[data-cell="1"]').click();
  await page.locator('#flip-link').click();
  await listed(page, '13 items of 16');
  assert.equal(await page.locator('.list a.row').count(), 13);
  await page.locator('.list a.row').first().click();
  await page.waitForSelector('table.readings');
  assert.deepEqual(await page.locator('table.readings td.extracted').allInnerTexts(), [' no', ' no', ' no', 'no', 'no', 'no']);
  // A filter the bundle did not write says so instead of showing nothing.
  await page.goto(`${pathToFileURL(index).href}#/items?s=0&run=lmeval-a6a1045467dd805e&task=boolq-seq2seq&q=ethanol`);
  await page.waitForSelector('p.error:has-text("not in this static bundle")');
  // The comparison of the two sources (the same run twice: nothing differs, nothing flips).
  await page.goto(`${pathToFileURL(index).href}#/compare?a=0&b=1`);
  await page.waitForSelector('#aligned-count:has-text("16 pairs of 16 aligned")');
  assert.deepEqual(outside, []);
  await page.close();
});

test('static bundle: a list longer than the bundle holds says how many of its items are in it and how to see the rest', { skip: NO_CHROMIUM }, async () => {
  const store = fixturePath('lmeval/bigrefactor-2023-06');
  const api = new ViewApi(await ViewSession.open([store], { skipBad: false, fields: {} }));
  const small = await mkdtemp(join(tmpdir(), 'lmaudit-view-bundle-'));
  // At most 10 items a list: the task's 16 items, and the 13 that flip between r0 and r1, are longer.
  const written = await writeBundle(api, small, 10);
  assert.ok(written.notes.includes('boolq-seq2seq: the first 10 of 16 items are in the bundle'), written.notes.join('\n'));
  const page = await browser.newPage();
  const run = 'lmeval-a6a1045467dd805e';
  const at = (hash: string) => `${pathToFileURL(written.index).href}#/${hash}`;
  await page.goto(at(`items?s=0&run=${run}&task=boolq-seq2seq`));
  await listed(page, '16 items of 16', 10);
  assert.equal(await page.locator('#bundle-note').innerText(), 'This static bundle holds the first 10 of these 16 items (in this order); the other 6 are not in it. `lmaudit view` on the same source serves them all, with any filter.');
  assert.equal(await page.locator('.list a.row').count(), 10);
  await page.goto(at(`items?s=0&run=${run}&task=boolq-seq2seq&flip=0%2C1`));
  await listed(page, '13 items of 16', 10);
  await page.waitForSelector('#bundle-note:has-text("the first 10 of these 13 items")');
  // Every item a bundled list shows opens, also those past the first 10 of document order.
  const last = await page.locator('.list a.row').last().getAttribute('data-doc');
  assert.ok(Number(last) >= 10, `the 10th flipped item is document ${last}`);
  await page.locator('.list a.row').last().click();
  await page.waitForSelector(`h1:has-text("Document ${last}")`);
  await page.waitForSelector('table.readings');
  // The two readings' paired statistics are in the bundle too.
  await page.goto(at(`readings?s=0&run=${run}&task=boolq-seq2seq&a=0&b=1`));
  await page.waitForSelector('#a-only:has-text("13")');
  await page.close();
});
