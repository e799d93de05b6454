/**
 * The HTML report in a real headless Chromium (Debian's `chromium`, driven by
 * playwright-core): it renders, the charts are there, no network request is
 * attempted, and hostile model output is shown as text and runs nothing.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium } from 'playwright-core';
import { loadSource } from '../../src/audit/source.ts';
import { diffStores } from '../../src/audit/diff.ts';
import { buildReport } from '../../src/report/model.ts';
import { renderReport } from '../../src/report/render.ts';
import { DEFAULT_PAIRED_OPTIONS } from '../../src/audit/pairedStats.ts';

const CHROMIUM = '/usr/bin/chromium';
const HOSTILE = [
  '<script>window.__pwned = 1; fetch("http://example.com/x")</script>',
  '<img src="http://example.com/y.png" onerror="window.__pwned = 2">',
  '</svg></table><svg onload="window.__pwned = 3"><script>window.__pwned = 4</script>',
];

async function hostileReport(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'lmaudit-html-'));
  const rows = (outputs: string[]) => outputs.map((output, i) => JSON.stringify({ id: String(i), output, gold: i === 0 ? output : 'B' })).join('\n');
  // A and B: same three items; A's answers are the hostile strings, B answers "B" everywhere.
  await writeFile(join(dir, 'a.jsonl'), rows(HOSTILE));
  await writeFile(join(dir, 'b.jsonl'), rows(['B', 'B', 'B']));
  const options = { skipBad: false, fields: {} };
  const a = await loadSource([join(dir, 'a.jsonl')], options);
  const b = await loadSource([join(dir, 'b.jsonl')], options);
  const diff = await diffStores(a.store, b.store, { iterations: 200 });
  const data = await buildReport(a.store, diff, null, { ...DEFAULT_PAIRED_OPTIONS, iterations: 200, title: 'Hostile <b>title</b> <script>window.__pwned = 5</script>' });
  const html = renderReport(data, 'html');
  const file = join(dir, 'report.html');
  await writeFile(file, html);
  return file;
}

test('HTML report: renders in Chromium, charts present, no requests, hostile output inert', { skip: existsSync(CHROMIUM) ? false : 'chromium not installed (apt-get install chromium)' }, async () => {
  const file = await hostileReport();
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
  });
  try {
    const page = await browser.newPage();
    const requests: string[] = [];
    const dialogs: string[] = [];
    page.on('request', (r) => requests.push(r.url()));
    page.on('dialog', (d) => {
      dialogs.push(d.message());
      void d.dismiss();
    });
    const url = pathToFileURL(file).href;
    await page.goto(url, { waitUntil: 'load' });
    await page.waitForTimeout(300);

    assert.deepEqual(requests, [url], `requests other than the report itself: ${requests.join(', ')}`);
    assert.deepEqual(dialogs, []);
    assert.equal(await page.evaluate(() => (globalThis as unknown as { __pwned?: number }).__pwned), undefined);
    assert.equal(await page.locator('script').count(), 0);
    assert.equal(await page.locator('img').count(), 0);
    assert.equal(await page.locator('[onerror], [onload]').count(), 0);

    const text = await page.locator('body').innerText();
    for (const h of HOSTILE) assert.ok(text.includes(h.slice(0, 40)), `shown as text: ${h}`);
    assert.match(await page.title(), /Hostile <b>title<\/b> <script>/);

    assert.ok((await page.locator('svg.chart.dot-plot circle.dot').count()) > 0, 'matrix dot plot with dots');
    assert.ok((await page.locator('svg.chart.dot-plot line.interval').count()) > 0, 'interval bars');
    assert.ok((await page.locator('svg.chart.forest-plot line.zero').count()) > 0, 'forest plot of differences');
    const box = await page.locator('svg.chart').first().boundingBox();
    assert.ok(box !== null && box.width > 100 && box.height > 40, 'the chart is laid out');
    assert.ok((await page.locator('table').count()) >= 4);
  } finally {
    await browser.close();
  }
});
