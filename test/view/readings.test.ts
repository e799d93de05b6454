/**
 * Two readings of one task compared in Chromium: McNemar's 2×2 table with each discordant cell
 * opening its items, the accuracy under each reading, B − A with its paired standard error, and
 * the exact McNemar p. On the repository's letter-sweep records (test/score/fixtures/
 * letter_cases.jsonl), whose verdicts under each rule Python computed itself
 * (make_letter_cases.py → letter_cases.expected.json): every expected number below is counted
 * here from Python's verdicts, with McNemar's binomial tail summed exactly in BigInt, not taken
 * from lmaudit's code. first-letter and last-letter flip both ways (11 and 10 items).
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Browser } from 'playwright-core';
import { fixturePath } from '../helpers/fixtures.ts';
import type { RunningViewer } from '../../src/view/server.ts';
import { launch, NO_CHROMIUM, viewerOn, listed } from './viewHelpers.ts';

const records = fileURLToPath(new URL('../score/fixtures/letter_cases.jsonl', import.meta.url));
const python = JSON.parse(readFileSync(new URL('../score/fixtures/letter_cases.expected.json', import.meta.url), 'utf8')) as Record<string, number | string>[];

let viewer: RunningViewer;
let browser: Browser;
let run: string;

before(async () => {
  if (NO_CHROMIUM) return;
  const started = await viewerOn([records, fixturePath('lmeval/bigrefactor-2023-06')]);
  viewer = started.viewer;
  run = started.api.session.sources[0]!.loaded.store.manifest.runs[0]!.run_id;
  browser = await launch();
});
after(async () => {
  await browser?.close();
  await viewer?.close();
});

/** Exact two-sided McNemar p: 2·P(X ≤ min) for X ~ Binomial(m, 1/2), capped at 1, in rationals. */
function mcnemarP(b: number, c: number): number {
  const m = BigInt(b + c);
  let coefficient = 1n;
  let tail = 0n;
  for (let i = 0n; i <= BigInt(Math.min(b, c)); i++) {
    if (i > 0n) coefficient = (coefficient * (m - i + 1n)) / i;
    tail += coefficient;
  }
  return Math.min(1, Number(2n * tail * 10n ** 18n / 2n ** m) / 1e18);
}

test('two readings: McNemar table from Python verdicts, accuracies, B − A with its paired standard error, p', { skip: NO_CHROMIUM }, async () => {
  const [A, B] = ['first-letter', 'last-letter'];
  const a = python.map((e) => Number(e[A]));
  const b = python.map((e) => Number(e[B]));
  const n = python.length;
  const count = (x: number, y: number) => a.filter((v, i) => v === x && b[i] === y).length;
  const [bothRight, aOnly, bOnly, bothWrong] = [count(1, 1), count(1, 0), count(0, 1), count(0, 0)];
  assert.deepEqual([aOnly, bOnly], [11, 10]);
  const d = b.map((v, i) => v - a[i]!);
  const meanD = d.reduce((s, x) => s + x, 0) / n;
  const sd = Math.sqrt(d.reduce((s, x) => s + (x - meanD) ** 2, 0) / (n - 1));

  const page = await browser.newPage();
  await page.goto(`${viewer.url}#/task?s=0&run=${run}&task=letter_cases`);
  await page.waitForSelector('table.matrix');
  // r2 and r3 are first-letter/strip and last-letter/strip in this sweep; the page names them.
  await page.locator('td.cell a[data-cell="2"]').click();
  await page.locator('td.cell a[data-cell="3"]').click();
  await page.locator('#readings-link').click();
  await page.waitForSelector('table#mcnemar');
  assert.equal(await page.locator('h1').innerText(), 'A r2 first-letter/strip vs B r3 last-letter/strip');
  assert.equal(await page.locator('#paired-n').innerText().then((t) => t.split(' scored')[0]), `${n.toLocaleString('en-US')} items`);
  assert.equal(await page.locator('#both-right').innerText(), bothRight.toLocaleString('en-US'));
  assert.equal(await page.locator('#a-only').innerText(), String(aOnly));
  assert.equal(await page.locator('#b-only').innerText(), String(bOnly));
  assert.equal(await page.locator('#both-wrong').innerText(), bothWrong.toLocaleString('en-US'));
  assert.equal(await page.locator('#mean-a').innerText(), ((bothRight + aOnly) / n).toFixed(4));
  assert.equal(await page.locator('#mean-b').innerText(), ((bothRight + bOnly) / n).toFixed(4));
  assert.equal(await page.locator('#difference').innerText(), ((bOnly - aOnly) / n).toFixed(4));
  assert.equal(await page.locator('#stderr').innerText(), (sd / Math.sqrt(n)).toFixed(4));
  // 2·Σ_{i≤10} C(21, i) / 2^21 = 1 exactly (the tail is half the mass plus the middle term): capped at 1.
  assert.equal(await page.locator('#mcnemar-p').innerText(), mcnemarP(aOnly, bOnly).toPrecision(3));
  assert.match(await page.locator('#sentence').innerText(), /is not distinguishable from noise at n = 3042: McNemar exact p = 1 on 21 discordant item\(s\) \(11 right only in A, 10 right only in B\)/);

  // Each discordant cell opens exactly its items: Python's ids right under one rule and wrong under the other.
  const ids = (x: number[], y: number[]) => python.filter((_, i) => x[i] === 1 && y[i] === 0).map((e) => String(e.id)).sort();
  await page.locator('#a-only').click();
  await listed(page, `${aOnly} items of ${n.toLocaleString('en-US')}`);
  assert.match(await page.locator('#rightonly-filter').innerText(), /Right under r2 first-letter\/strip and wrong under r3 last-letter\/strip/);
  assert.deepEqual((await page.locator('.list a.row').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-doc')))).sort(), ids(a, b));
  await page.goBack();
  await page.locator('#b-only').click();
  await listed(page, `${bOnly} items of ${n.toLocaleString('en-US')}`);
  assert.deepEqual((await page.locator('.list a.row').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-doc')))).sort(), ids(b, a));
  await page.close();
});

test('two readings: the same reading twice, or one that does not exist, is refused with a reason (and so is such a McNemar cell)', { skip: NO_CHROMIUM }, async () => {
  const same = await fetch(`${viewer.url}api/readings?s=0&run=${run}&task=letter_cases&a=2&b=2`);
  assert.equal(same.status, 400);
  assert.deepEqual(await same.json(), { error: 'two different readings are needed' });
  const none = await fetch(`${viewer.url}api/readings?s=0&run=${run}&task=letter_cases&a=2&b=9`);
  assert.equal(none.status, 400);
  assert.deepEqual(await none.json(), { error: 'reading b: no reading 9 (this task has 4)' });
  const cell = await fetch(`${viewer.url}api/items?s=0&run=${run}&task=letter_cases&rightonly=2,9`);
  assert.equal(cell.status, 400);
  assert.deepEqual(await cell.json(), { error: 'rightonly: no reading 9 (this task has 4)' });
  const shape = await fetch(`${viewer.url}api/items?s=0&run=${run}&task=letter_cases&rightonly=2`);
  assert.deepEqual(await shape.json(), { error: "parameter 'rightonly' must be two reading numbers, e.g. 0,3" });
});

test('two readings on the boolq-seq2seq run: 13 right only under exact/strip, counted by hand', { skip: NO_CHROMIUM }, async () => {
  // walk.test.ts: 13 of the 16 responses equal their gold once stripped (r0 right), and lm-eval's exact match is 0
  // on all 16 (r1 wrong). So the table is 0 | 13 / 0 | 3; B − A = −13/16 = −0.8125; the differences are −1 (13 times)
  // and 0 (3 times): sd² = (13·0.1875² + 3·0.8125²)/15 = 2.4375/15 = 0.1625, stderr = √0.1625/4 = 0.10078;
  // McNemar p = 2·(1/2)^13 = 0.000244140625.
  const page = await browser.newPage();
  await page.goto(`${viewer.url}#/readings?s=1&run=lmeval-a6a1045467dd805e&task=boolq-seq2seq&a=0&b=1`);
  await page.waitForSelector('table#mcnemar');
  assert.deepEqual(await Promise.all(['#both-right', '#a-only', '#b-only', '#both-wrong'].map((id) => page.locator(id).innerText())), ['0', '13', '0', '3']);
  assert.equal(await page.locator('#mean-a').innerText(), '0.8125');
  assert.equal(await page.locator('#mean-b').innerText(), '0.0000');
  assert.equal(await page.locator('#difference').innerText(), '-0.8125');
  assert.equal(await page.locator('#stderr').innerText(), '0.1008');
  assert.equal(await page.locator('#mcnemar-p').innerText(), '0.000244');
  await page.locator('#a-only').click();
  await listed(page, '13 items of 16');
  await page.close();
});
