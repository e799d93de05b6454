/**
 * The compare page on a 0/1 score whose source says lower is better (test/helpers/boolqCopy.ts: gpt2-tiny's and
 * qwen3-tiny's boolq with acc renamed pct_stereotype, higher_is_better false): the McNemar table's discordant columns
 * and the item filters name 1s, not right answers ("1 only in A"), as diff's sentence does; a score where a 1 is right
 * keeps "right only in A".
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import type { RunningViewer } from '../../src/view/server.ts';
import { relabelled } from '../helpers/boolqCopy.ts';
import { launch, NO_CHROMIUM, viewerOn } from './viewHelpers.ts';

let root: string;
let viewer: RunningViewer;
let browser: Browser;
before(async () => {
  if (NO_CHROMIUM) return;
  root = mkdtempSync(join(tmpdir(), 'lmaudit-view-lower-'));
  viewer = (await viewerOn([relabelled(root, 'gpt2-tiny'), relabelled(root, 'qwen3-tiny')])).viewer;
  browser = await launch();
});
after(async () => {
  await browser?.close();
  await viewer?.close();
  if (root !== undefined) rmSync(root, { recursive: true, force: true });
});

test('compare: a lower-is-better 0/1 score names its discordant items as 1s, in the table and the item filters', { skip: NO_CHROMIUM }, async () => {
  const page = await browser.newPage();
  await page.goto(viewer.url);
  await page.locator('#compare-link').click();
  await page.waitForSelector('table.paired');
  const headers = await page.locator('table.paired thead th').allInnerTexts();
  assert.deepEqual(headers.slice(6, 8), ['McNemar: 1 only in A', '1 only in B']);
  const main = await page.locator('main').innerText();
  // The item filters of the chosen score, pct_stereotype; the rescored cells' own sentences, where a 1 is right, keep
  // "right only in A".
  assert.match(main, /Show: +all +prompt differs +response differs +1 only in A +1 only in B/);
  assert.match(await page.locator('table.paired tr', { hasText: 'pct_stereotype,none' }).innerText(), /scored 1 only in A, \d+ only in B; a 1 is the worse outcome here/);
  assert.match(await page.locator('table.paired tr', { hasText: 'rescored:acc/none' }).innerText(), /right only in A/);
  await page.close();
});
