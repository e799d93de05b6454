/**
 * The table across runs in `lmaudit report`: a section in every format (md, tex, json, html), and in
 * HTML a heat map that renders in headless Chromium with no request leaving the page and hostile
 * strings (a row label or reading from the records) shown as text.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { chromium } from 'playwright-core';
import { DEFAULT_PAIRED_OPTIONS } from '../../src/audit/pairedStats.ts';
import { loadSource } from '../../src/audit/source.ts';
import { buildReport } from '../../src/report/model.ts';
import { renderReport } from '../../src/report/render.ts';
import { externalFixture } from '../helpers/fixtures.ts';

const CHROMIUM = '/usr/bin/chromium';
const SLURM = externalFixture('lm-evaluation-harness/pr1567-slurmevals');
const HOSTILE = '</svg></table><svg onload="window.__pwned = 1"><script>window.__pwned = 2; fetch("http://example.com/x")</script>';

async function mistralReport() {
  const { store } = await loadSource([`${SLURM}/mistral/winogrande_write_out_info.json`, `${SLURM}/mistralShuffle/question_shuffle_winogrande_write_out_info.json`], { skipBad: false, fields: {} });
  return buildReport(store, null, null, { ...DEFAULT_PAIRED_OPTIONS, iterations: 200 });
}

test('report: the table across runs is a section of md, tex, json and html', async () => {
  const data = await mistralReport();
  assert.equal(data.tables.length, 1);
  const t = data.tables[0]!;
  const json = JSON.parse(renderReport(data, 'json'));
  assert.deepEqual(json.tables[0].rows.map((r: { label: string }) => r.label), ['winogrande', 'question_shuffle_winogrande']);
  assert.equal(json.tables[0].rows[0].cells[0].score, 990 / 1267);
  const md = renderReport(data, 'md');
  assert.match(md, /## The table across runs/);
  assert.match(md, /\| question\\_shuffle\\_winogrande \| 0\.4807 ±0\.0140 \(1267\) \| 0\.0 pts \|/);
  assert.match(md, /- span: the 30\.1-point span is winogrande read by acc\/none vs question\\_shuffle\\_winogrande read by acc\/none/);
  const tex = renderReport(data, 'tex');
  assert.match(tex, /\\subsection\*\{The table across runs\}/);
  assert.match(tex, /^question\\_\\allowbreak\{\}shuffle\\_\\allowbreak\{\}winogrande & 0\.4807 (±|\$\\pm\$)0\.0140 \(1267\) & 0\.0 pts/m);
  const html = renderReport(data, 'html');
  assert.match(html, /<h2 id="across-runs">The table across runs<\/h2>/);
  assert.equal((html.match(/<g class="cell">/g) ?? []).length, t.rows.length * t.columns.length);
  assert.match(html, /<title>question_shuffle_winogrande · acc\/none: 0\.4807 ± 0\.0140, 95% CI \[0\.4531, 0\.5082\], n = 1267<\/title>/);
});

test('report HTML: the heat map renders in Chromium, no request leaves the page, a hostile label stays text', { skip: existsSync(CHROMIUM) ? false : 'chromium not installed (apt-get install chromium)' }, async () => {
  const data = await mistralReport();
  // A label and a reading as hostile as a task name or a system instruction from the records could be.
  data.tables[0]!.rows[0]!.label = HOSTILE;
  data.tables[0]!.columns[0]!.key = HOSTILE;
  const dir = await mkdtemp(join(tmpdir(), 'lmaudit-table-html-'));
  const file = join(dir, 'report.html');
  await writeFile(file, renderReport(data, 'html'));
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'] });
  try {
    const page = await browser.newPage();
    const requests: string[] = [];
    page.on('request', (r) => requests.push(r.url()));
    const url = pathToFileURL(file).href;
    await page.goto(url, { waitUntil: 'load' });
    await page.waitForTimeout(300);
    assert.deepEqual(requests, [url]);
    assert.equal(await page.evaluate(() => (globalThis as unknown as { __pwned?: number }).__pwned), undefined);
    assert.equal(await page.locator('script').count(), 0);
    assert.equal(await page.locator('[onload]').count(), 0);
    const heat = page.locator('svg.chart.heat-map');
    assert.equal(await heat.count(), 1);
    assert.equal(await heat.locator('g.cell rect').count(), 2);
    const box = await heat.boundingBox();
    assert.ok(box !== null && box.width > 300 && box.height > 60, 'the heat map is laid out');
    // The hover text is the cell's interval; the two squares are coloured by score (highest deep, lowest white).
    const titles = await heat.locator('g.cell rect title').allTextContents();
    assert.ok(titles[1]!.includes('95% CI [0.4531, 0.5082], n = 1267'), titles[1]);
    assert.ok(titles[0]!.startsWith(HOSTILE), 'the hostile label is in the hover text, as text');
    const fills = [await heat.locator('g.cell rect').nth(0).getAttribute('fill'), await heat.locator('g.cell rect').nth(1).getAttribute('fill')];
    assert.deepEqual(fills, ['rgb(31, 78, 154)', 'rgb(255, 255, 255)']);
    assert.ok((await page.locator('body').innerText()).includes(HOSTILE.slice(0, 40)));
  } finally {
    await browser.close();
  }
});
