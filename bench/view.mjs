#!/usr/bin/env node
// `lmaudit view` on the import benchmark's store (100,000 truthfulqa_gen documents, made as
// bench/import.mjs makes it), measured in Chromium (Debian's /usr/bin/chromium, playwright-core):
//  1. time from starting `lmaudit view <store>` to the runs page drawn in the browser (target
//     <= 1.5 s), against the same on a 16-document store in the same run (the ratio says what
//     the 100,000 documents cost beyond starting a process and a page);
//  2. a filtered page of items: from setting the filter in the page's URL to the rows drawn,
//     over a mix of filters (text in responses or golds, a metadata field, readings, the token
//     limit, sorts), each filter new to the server (target <= 150 ms at the 95th percentile),
//     against the unfiltered first page drawn the same way. Text search in the prompts (63 MB of
//     prompt text here) is timed apart, for information.
//   --runs N   start-ups timed per store (default 5)
import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const root = fileURLToPath(new URL('..', import.meta.url));
const args = process.argv.slice(2);
const option = (name, fallback) => (args.includes(name) ? Number(args[args.indexOf(name) + 1]) || fallback : fallback);
const RUNS = option('--runs', 5);
const DOCS = 100_000;
const TARGET_FIRST_PAGE_S = 1.5;
const TARGET_FILTER_P95_MS = 150;
const CHROMIUM = '/usr/bin/chromium';

function run(cmd, cmdArgs) {
  const r = spawnSync(cmd, cmdArgs, { cwd: root, encoding: 'utf8', maxBuffer: 1 << 26 });
  if (r.status !== 0) throw new Error(`${cmd} ${cmdArgs.join(' ')} failed (${r.status}):\n${r.stderr.slice(-2000)}`);
}

/** The import benchmark's store: its samples file (bench/generate_lmeval_samples.py), imported. */
function bigStore() {
  const folder = join(root, `bench/out/lmeval-samples-${DOCS}`);
  const store = join(root, `bench/out/lmeval-store-${DOCS}`);
  if (!existsSync(join(folder, 'samples_truthfulqa_gen_2025-05-31T14-30-51.983293.jsonl'))) run('python3', [join(root, 'bench/generate_lmeval_samples.py'), String(DOCS), folder]);
  if (!existsSync(join(store, 'provenance.json'))) run(process.execPath, ['bin/lmaudit.mjs', 'import', folder, '--out', store]);
  return store;
}

function smallStore() {
  const store = join(root, 'bench/out/view-store-16');
  if (!existsSync(join(store, 'provenance.json'))) run(process.execPath, ['bin/lmaudit.mjs', 'import', 'fixtures/lmeval/bigrefactor-2023-06', '--out', store]);
  return store;
}

/** Starts `lmaudit view`, resolving with the child and its URL once it prints it. */
function startView(store) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['bin/lmaudit.mjs', 'view', store], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (chunk) => {
      out += chunk;
      const m = /http:\/\/127\.0\.0\.1:\d+\//.exec(out);
      if (m) resolve({ child, url: m[0] });
    });
    child.stderr.on('data', (chunk) => (out += chunk));
    child.on('exit', (code) => reject(new Error(`lmaudit view exited (${code}) before printing its URL:\n${out}`)));
  });
}

function stop(child) {
  return new Promise((resolve) => {
    child.removeAllListeners('exit');
    child.once('exit', resolve);
    child.kill('SIGTERM');
  });
}

/** Seconds from starting `lmaudit view` to the runs table drawn. */
async function firstPage(browser, store) {
  const page = await browser.newPage();
  const started = performance.now();
  const { child, url } = await startView(store);
  await page.goto(url);
  await page.waitForSelector('table.runs tbody tr');
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => r())));
  const seconds = (performance.now() - started) / 1000;
  await page.close();
  await stop(child);
  return seconds;
}

/** Milliseconds from setting an items page's URL to its rows drawn. */
async function timedFilter(page, hash) {
  return page.evaluate(
    (h) =>
      new Promise((resolve, reject) => {
        const before = document.getElementById('matching')?.getAttribute('data-loaded-for') ?? null;
        const t0 = performance.now();
        location.hash = h;
        const check = () => {
          const now = document.getElementById('matching')?.getAttribute('data-loaded-for') ?? null;
          const error = document.querySelector('p.error')?.textContent;
          if (now !== null && now !== before) requestAnimationFrame(() => resolve(performance.now() - t0));
          else if (error) reject(new Error(`${h}: ${error}`));
          else if (performance.now() - t0 > 60_000) reject(new Error(`${h}: no rows drawn in 60 s`));
          else requestAnimationFrame(check);
        };
        requestAnimationFrame(check);
      }),
    hash,
  );
}

const p95 = (xs) => [...xs].sort((a, b) => a - b)[Math.ceil(xs.length * 0.95) - 1];
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const verdict = (ok) => (ok ? 'met' : 'MISSED');

if (!existsSync(CHROMIUM)) {
  console.log(`bench/view.mjs: ${CHROMIUM} not found (apt-get install chromium); nothing measured`);
  process.exit(1);
}
if (!existsSync(join(root, 'dist/view/app.js'))) run(process.execPath, ['scripts/build.mjs']);
const big = bigStore();
const small = smallStore();
const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'] });
try {
  console.log(`\nlmaudit view on the import benchmark's store (${DOCS.toLocaleString()} documents), ${RUNS} start-up(s) per store, in Chromium`);
  const bigTimes = [];
  const smallTimes = [];
  for (let i = 0; i < RUNS; i++) {
    smallTimes.push(await firstPage(browser, small));
    bigTimes.push(await firstPage(browser, big));
  }
  const ratio = median(bigTimes) / median(smallTimes);
  console.log(`  start to runs page drawn: ${DOCS.toLocaleString()} documents median ${median(bigTimes).toFixed(2)} s (${bigTimes.map((t) => t.toFixed(2)).join(', ')}); 16 documents (baseline) median ${median(smallTimes).toFixed(2)} s: ${ratio.toFixed(2)}x (target <= ${TARGET_FIRST_PAGE_S} s: ${verdict(median(bigTimes) <= TARGET_FIRST_PAGE_S)})`);

  const { child, url } = await startView(big);
  const page = await browser.newPage();
  try {
    const runs = await (await fetch(`${url}api/runs`)).json();
    const run = runs.sources[0].runs[0].run_id;
    const scope = `s=0&run=${encodeURIComponent(run)}&task=truthfulqa_gen`;
    await page.goto(url);
    await page.waitForSelector('table.runs');
    // The task's items table is made on first use (the matrix's readings joined in): timed once, apart.
    const prepared = performance.now();
    await page.goto(`${url}#/task?${scope}`);
    await page.waitForSelector('#all-items', { timeout: 120_000 });
    console.log(`  for information: the task page (rescoring matrix with every item's readings, the items table made) ${((performance.now() - prepared) / 1000).toFixed(2)} s`);
    const unfiltered = [];
    for (let i = 0; i < 10; i++) {
      unfiltered.push(await timedFilter(page, `#/items?${scope}&sort=${i % 2 ? 'doc_id' : 'pos'}&desc=${i % 4 < 2 ? '' : '1'}&offset=${i}`));
    }
    const words = ['water', 'seeds', 'because', 'people', 'you', 'the', 'no', 'comment', 'is', 'happens', 'eat', 'grow', 'stomach', 'digest', 'sick', 'dreams', 'die', 'nothing', 'pass', 'will'];
    const filters = [
      ...words.map((w) => `q=${w}&in=response`),
      ...words.slice(0, 10).map((w) => `q=${w}&in=gold`),
      'meta=category&mv=Misconceptions', 'meta=type&mv=Adversarial', 'meta=type&mv=Non-Adversarial', 'meta=category&mv=Law',
      'cell=0&verdict=correct', 'cell=3&verdict=incorrect', 'flip=0%2C3', 'noanswer=1', 'truncated=1',
      'sort=response', 'sort=response&desc=1', 'sort=response_length&desc=1', 'sort=target', 'sort=finish_reason',
      'q=water&in=response&sort=response_length', 'meta=category&mv=Misconceptions&sort=response',
    ];
    const filtered = [];
    for (const f of filters) filtered.push(await timedFilter(page, `#/items?${scope}&${f}`));
    const slowest = filters.map((f, i) => [f, filtered[i]]).sort((a, b) => b[1] - a[1]).slice(0, 3);
    const prompts = [];
    for (const w of ['water', 'telescope', 'Barcelona', 'banana', 'president']) prompts.push(await timedFilter(page, `#/items?${scope}&q=${w}&in=prompt`));
    const ratioFilter = p95(filtered) / p95(unfiltered);
    console.log(`  a filtered page of items, URL set to rows drawn: p95 ${p95(filtered).toFixed(0)} ms, median ${median(filtered).toFixed(0)} ms over ${filtered.length} filters; unfiltered pages (baseline) p95 ${p95(unfiltered).toFixed(0)} ms: ${ratioFilter.toFixed(2)}x (target p95 <= ${TARGET_FILTER_P95_MS} ms: ${verdict(p95(filtered) <= TARGET_FILTER_P95_MS)})`);
    console.log(`  the slowest filters: ${slowest.map(([f, t]) => `${f} ${t.toFixed(0)} ms`).join('; ')}`);
    console.log(`  for information: text search in the prompts (every prompt scanned) ${prompts.map((t) => t.toFixed(0)).join(', ')} ms`);
    console.log(`  load average over the last minute when done: ${loadavg()[0].toFixed(2)} on ${availableParallelism()} cores`);
    process.exitCode = median(bigTimes) <= TARGET_FIRST_PAGE_S && p95(filtered) <= TARGET_FILTER_P95_MS ? 0 : 1;
  } finally {
    await page.close();
    await stop(child);
  }
} finally {
  await browser.close();
}
