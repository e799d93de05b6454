/**
 * A hostile store in Chromium: prompts, responses, golds and document fields holding script
 * tags, event-handler attributes, control characters, bidirectional overrides, right-to-left
 * text and a 100 KB response. Everything must show as characters (the strings themselves are
 * on the page), nothing may run (no dialog, no window.__pwned, no element made from the data),
 * and no request may leave the viewer's own address.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import type { RunningViewer } from '../../src/view/server.ts';
import { launch, NO_CHROMIUM, viewerOn, listed } from './viewHelpers.ts';

export const SCRIPT = '<script>window.__pwned = 1; fetch("http://example.com/x")</script>';
export const IMG = '<img src="http://example.com/y.png" onerror="window.__pwned = 2">';
export const CONTROL = 'bell\u0007 nul\u0000 esc\u001b[31mred\u001b[0m del\u007f';
export const OVERRIDE = 'safe\u202Egnp.exe';
export const ARABIC = 'الجواب هو ب';
export const LONG = `${'A'.repeat(100_000)}END`;

/** An lm-eval samples file of five hostile documents (the store is imported on the fly). */
export async function hostileSamples(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'lmaudit-view-hostile-'));
  const outputs = [SCRIPT, IMG, CONTROL, `${OVERRIDE} ${ARABIC}`, LONG];
  const lines = outputs.map((output, i) =>
    JSON.stringify({
      doc_id: i,
      doc: { question: `${IMG} question ${i}`, subject: i === 0 ? '</script><svg onload="window.__pwned = 3">' : ARABIC },
      target: i === 0 ? SCRIPT : '<b>B</b>',
      arguments: [[`${SCRIPT}\n\nQ: ${IMG}\nA:`, { until: ['\n\n'] }]],
      resps: [[output]],
      filtered_resps: [output],
      exact_match: i === 0 ? 1 : 0,
    }),
  );
  const file = join(dir, 'samples_hostile_2025-01-01T00-00-00.000000.jsonl');
  await writeFile(file, `${lines.join('\n')}\n`);
  return file;
}

let viewer: RunningViewer;
let browser: Browser;
let runId: string;
before(async () => {
  if (NO_CHROMIUM) return;
  const started = await viewerOn([await hostileSamples()]);
  viewer = started.viewer;
  runId = started.api.session.sources[0]!.loaded.store.manifest.runs[0]!.run_id;
  browser = await launch();
});
after(async () => {
  await browser?.close();
  await viewer?.close();
});

async function watched(): Promise<{ page: Page; foreign: string[]; dialogs: string[] }> {
  const page = await browser.newPage();
  const foreign: string[] = [];
  const dialogs: string[] = [];
  page.on('request', (r) => !r.url().startsWith(viewer.url) && foreign.push(r.url()));
  page.on('dialog', (d) => {
    dialogs.push(d.message());
    void d.dismiss();
  });
  return { page, foreign, dialogs };
}

async function inert(page: Page): Promise<void> {
  assert.equal(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned), undefined);
  // The only script is the viewer's own; no image or SVG element was made from the data.
  assert.equal(await page.locator('script').count(), 1);
  assert.equal(await page.locator('img, svg, iframe, object, embed').count(), 0);
}

test('hostile store: runs, task, items and item pages show the strings as characters and run nothing', { skip: NO_CHROMIUM }, async () => {
  const { page, foreign, dialogs } = await watched();
  const scope = `s=0&run=${runId}&task=hostile`;
  await page.goto(`${viewer.url}#/items?${scope}`);
  await listed(page, '5 items of 5');
  const list = await page.locator('.list').innerText();
  assert.ok(list.includes(SCRIPT), 'the script tag is shown as text');
  assert.ok(list.includes(IMG));
  await inert(page);

  for (const doc of ['0', '1']) {
    await page.goto(`${viewer.url}#/item?${scope}&doc=${doc}`);
    await page.waitForSelector(`h1:has-text("Document ${doc}")`);
    // textContent: the folded few-shot part is in the page, closed.
    const text = await page.locator('main').evaluate((e) => e.textContent ?? '');
    assert.ok(text.includes(doc === '0' ? SCRIPT : IMG), `doc ${doc}: the response as characters`);
    assert.ok(text.includes(SCRIPT) && text.includes(IMG), 'the prompt as characters');
    await inert(page);
  }

  // Control characters are shown as symbols (U+2400 block), the override as its code point.
  await page.goto(`${viewer.url}#/item?${scope}&doc=2`);
  await page.waitForSelector('h1:has-text("Document 2")');
  const control = await page.locator('pre.response').first().innerText();
  assert.equal(control, 'bell\u2407 nul\u2400 esc\u241b[31mred\u241b[0m del\u2421');

  await page.goto(`${viewer.url}#/item?${scope}&doc=3`);
  await page.waitForSelector('h1:has-text("Document 3")');
  const rtl = page.locator('pre.response').first();
  assert.equal(await rtl.innerText(), `safe\u27E8U+202E\u27E9gnp.exe ${ARABIC}`);
  // The text isolates its own direction: it cannot reorder what is around it.
  assert.equal(await rtl.evaluate((e) => getComputedStyle(e).unicodeBidi), 'plaintext');

  await page.goto(`${viewer.url}#/item?${scope}&doc=4`);
  await page.waitForSelector('h1:has-text("Document 4")');
  const long = await page.locator('pre.response').first().evaluate((e) => e.textContent ?? '');
  assert.equal(long.length, LONG.length);
  assert.ok(long.endsWith('END'));
  // The list shows the start of it, not 100 KB per row.
  await page.goto(`${viewer.url}#/items?${scope}&sort=response_length&desc=1`);
  await page.waitForSelector('.list a.row[data-doc="4"]');
  assert.ok((await page.locator('.list a.row[data-doc="4"] .c-resp').innerText()).length <= 240);

  // The metadata filter with a hostile value: a field of the documents, matched as text.
  await page.goto(`${viewer.url}#/items?${scope}&meta=subject&mv=${encodeURIComponent('</script><svg onload="window.__pwned = 3">')}`);
  await listed(page, '1 item of 5');
  await inert(page);
  assert.deepEqual(dialogs, []);
  assert.deepEqual(foreign, []);
  await page.close();
});
