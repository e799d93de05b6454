/**
 * The table across runs in `lmaudit report`: a section in every format (md, tex, json, html), and in
 * HTML a heat map that renders in headless Chromium with no request leaving the page and hostile
 * strings (a row label or reading from the records) shown as text; a small multiple per interaction
 * (Mistral truthfulqa_gen standard vs shuffled, held to test/table/reference/table_reference.py).
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
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

const REF = JSON.parse(readFileSync(new URL('./reference/table_reference.json', import.meta.url), 'utf8')) as {
  truthfulqa: { interactions: { readings: [string, string]; n: number; effects: [number, number]; effect_ci95: [[number, number], [number, number]]; difference: number; ci95: [number, number] }[] };
};

async function truthfulqaReport() {
  const { store } = await loadSource([`${SLURM}/mistral/truthfulqa_gen_write_out_info.json`, `${SLURM}/mistralShuffle/question_shuffle_truthfulqa_gen_write_out_info.json`], { skipBad: false, fields: {} });
  return buildReport(store, null, null, { ...DEFAULT_PAIRED_OPTIONS, iterations: 200 });
}

test('report HTML: one small multiple per interaction, its marks the paired intervals Python computes; past 24 the note says how many are drawn', async () => {
  const data = await truthfulqaReport();
  const t = data.tables[0]!;
  const ref = REF.truthfulqa.interactions;
  assert.equal(t.interactions.length, ref.length);
  const html = renderReport(data, 'html');
  assert.equal((html.match(/<svg [^>]*class="chart interaction"/g) ?? []).length, ref.length);
  assert.ok(html.includes(`One chart per interaction, all ${ref.length}:`));
  const f = (x: number) => x.toFixed(4);
  for (const x of ref) {
    const change = 'truthfulqa_gen → question_shuffle_truthfulqa_gen';
    assert.ok(html.includes(`<title>${change}: effect under recorded ${x.readings[0]} ${f(x.effects[0])}, 95% CI [${f(x.effect_ci95[0][0])}, ${f(x.effect_ci95[0][1])}], n = ${x.n}</title>`), x.readings.join());
    assert.ok(html.includes(`<title>${change}: effect under recorded ${x.readings[1]} ${f(x.effects[1])}, 95% CI [${f(x.effect_ci95[1][0])}, ${f(x.effect_ci95[1][1])}], n = ${x.n}</title>`), x.readings.join());
    assert.ok(html.includes(`<title>${change}: difference of the effects (the interaction) ${f(x.difference)}, 95% CI [${f(x.ci95[0])}, ${f(x.ci95[1])}], n = ${x.n}</title>`), x.readings.join());
  }
  // More interactions than are drawn: the first 24, in the findings' order, and the note says so.
  t.interactions = [...t.interactions, ...t.interactions, ...t.interactions];
  const many = renderReport(data, 'html');
  assert.equal((many.match(/<svg [^>]*class="chart interaction"/g) ?? []).length, 24);
  assert.ok(many.includes(`the first 24 of ${3 * ref.length} (distinguishable from 0 first, then by size; the JSON report has every one)`));
  assert.equal(renderReport(data, 'json').includes('"effect_ci95"'), true);
});

test('report HTML: the small multiples render in Chromium, no request leaves the page, hostile readings and labels stay text', { skip: existsSync(CHROMIUM) ? false : 'chromium not installed (apt-get install chromium)' }, async () => {
  const data = await truthfulqaReport();
  const t = data.tables[0]!;
  const distinguishable = t.interactions.filter((x) => x.distinguishable).length;
  for (const x of t.interactions) {
    x.from = HOSTILE;
    x.readings = [HOSTILE, x.readings[1]];
  }
  const dir = await mkdtemp(join(tmpdir(), 'lmaudit-table-multiples-'));
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
    const charts = page.locator('div.small-multiples svg.chart.interaction');
    assert.equal(await charts.count(), t.interactions.length);
    assert.equal(await charts.locator('g.mark').count(), 3 * t.interactions.length);
    for (let i = 0; i < (await charts.count()); i++) {
      const box = await charts.nth(i).boundingBox();
      assert.ok(box !== null && box.width >= 280 && box.height >= 100, `chart ${i} is laid out`);
    }
    // The interaction's mark is red exactly where its interval excludes 0.
    assert.equal(await charts.locator('g.mark circle[fill="#b00000"]').count(), distinguishable);
    const first = await charts.nth(0).locator('text').allTextContents();
    assert.ok(first[0]!.startsWith('A: </svg></table>'), first[0]);
    assert.ok((await charts.nth(0).locator('g.mark title').first().textContent())!.startsWith(HOSTILE));
  } finally {
    await browser.close();
  }
});
