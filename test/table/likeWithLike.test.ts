/**
 * Issue 28 §6: `lmaudit import pr1567-slurmevals --out st && lmaudit table st` compares like with like.
 * The folder holds Mistral-7B's winogrande and truthfulqa_gen, each with standard and question-shuffled
 * prompts (four runs, one task each). A table is one benchmark: winogrande's rows never share a table, a
 * span or a spread with truthfulqa_gen's; a row label is what varies between its rows, in words; and the
 * HTML heat map's column headers do not overlap one another, the title or the cells, as Chromium lays
 * them out (their bounding boxes).
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
import { buildTables } from '../../src/audit/table.ts';
import { buildReport } from '../../src/report/model.ts';
import { renderReport } from '../../src/report/render.ts';
import { decodedFixture, externalFixture } from '../helpers/fixtures.ts';
import { slowOnly } from '../helpers/slow.ts';

const CHROMIUM = '/usr/bin/chromium';
const SLURM = externalFixture('lm-evaluation-harness/pr1567-slurmevals');

async function slurmStore() {
  // The whole folder, as `lmaudit import` reads it (the console logs beside the write_out files are skipped).
  return (await loadSource([SLURM], { skipBad: true, fields: {} })).store;
}

test('the four Mistral runs: one table per benchmark, labels in words, no span across tasks', async () => {
  const store = await slurmStore();
  const tables = await buildTables(store, { aggregation: 'micro', tolerance: 0 });
  assert.deepEqual(tables.map((t) => t.task).sort(), ['truthfulqa_gen / question_shuffle_truthfulqa_gen', 'winogrande / question_shuffle_winogrande']);
  for (const t of tables) {
    // Rows are one benchmark's: the task variant is the one setting that varies, named as the task is.
    assert.deepEqual(t.rows.map((r) => r.label), t.task.split(' / '));
    for (const r of t.rows) assert.deepEqual(r.parts.map((p) => p.field), ['task.name']);
    assert.deepEqual(t.extremes!.separated_by.filter((s) => s !== 'reading rule'), ['task.name']);
  }
  const wino = tables.find((t) => t.task.startsWith('winogrande'))!;
  // SOURCES.md: acc 990/1267 standard, 609/1267 shuffled: the span is that difference, 30.1 points, not 43.6.
  assert.equal(wino.extremes!.difference, 990 / 1267 - 609 / 1267);
  assert.match(wino.extremes!.sentence, /^the 30\.1-point span is winogrande read by acc\/none vs question_shuffle_winogrande read by acc\/none$/);
});

// A slow cross-check since the plain suite passed 5 minutes on a slower 2-core machine: .ci/run runs it.
test('the heat maps\' column headers do not overlap in Chromium (bounding boxes)', { skip: existsSync(CHROMIUM) ? slowOnly : 'chromium not installed (apt-get install chromium)' }, async () => {
  const data = await buildReport(await slurmStore(), null, null, { ...DEFAULT_PAIRED_OPTIONS, iterations: 200 });
  assert.equal(data.tables.length, 2);
  const dir = await mkdtemp(join(tmpdir(), 'lmaudit-heat-headers-'));
  const file = join(dir, 'report.html');
  await writeFile(file, renderReport(data, 'html'));
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'] });
  try {
    const page = await browser.newPage();
    await page.goto(pathToFileURL(file).href, { waitUntil: 'load' });
    const maps = page.locator('svg.chart.heat-map');
    assert.equal(await maps.count(), 2);
    type Box = { x: number; y: number; width: number; height: number };
    const overlap = (a: Box, b: Box) => a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;
    let headers = 0;
    for (let m = 0; m < 2; m++) {
      const map = maps.nth(m);
      const boxes = (await map.locator('text.reading').evaluateAll((els) => els.map((e) => (e as unknown as { getBoundingClientRect(): Box }).getBoundingClientRect()).map((r) => ({ x: r.x, y: r.y, width: r.width, height: r.height })))) as Box[];
      const title = (await map.locator(':scope > text').first().boundingBox())!;
      const cells = (await map.locator('g.cell rect, rect.cell').evaluateAll((els) => els.map((e) => (e as unknown as { getBoundingClientRect(): Box }).getBoundingClientRect()).map((r) => ({ x: r.x, y: r.y, width: r.width, height: r.height })))) as Box[];
      const svg = (await map.boundingBox())!;
      assert.ok(boxes.length >= 1);
      for (const [i, a] of boxes.entries()) {
        assert.ok(a.width > 0 && a.height > 0, `header ${i} is drawn`);
        for (const b of boxes.slice(i + 1)) assert.ok(!overlap(a, b), `heat map ${m}: headers overlap: ${JSON.stringify(a)} ${JSON.stringify(b)}`);
        assert.ok(!overlap(a, title), `heat map ${m}: header ${i} overlaps the title`);
        for (const c of cells) assert.ok(!overlap(a, c), `heat map ${m}: header ${i} overlaps a cell`);
        assert.ok(a.y >= svg.y && a.x + a.width <= svg.x + svg.width, `heat map ${m}: header ${i} inside the chart`);
      }
      headers += boxes.length;
    }
    // truthfulqa_gen's five recorded readings ("recorded bleurt_acc", …) and winogrande's one.
    assert.equal(headers, 6);
  } finally {
    await browser.close();
  }
});

test('HELM MMLU and HellaSwag runs (ten multiple_choice_joint items each) never share a table', async () => {
  // Each run holds one task under its own name, as the renamed variants above do, with the same output type and
  // document count; the recorded dataset (HELM's scenario class and its arguments) tells the benchmarks apart.
  const root = decodedFixture('helm');
  const store = (await loadSource([join(root, 'evaleval-every_eval_ever/tests/data/helm')], { skipBad: false, fields: {} })).store;
  const tables = await buildTables(store, { aggregation: 'micro', tolerance: 0 });
  assert.deepEqual(tables.map((t) => t.task).sort(), ['commonsense:dataset=hellaswag,method=multiple_choice_joint', 'mmlu:subject=philosophy,method=multiple_choice_joint']);
  for (const t of tables) assert.equal(t.rows.length, 1);
});
