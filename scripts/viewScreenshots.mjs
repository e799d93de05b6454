#!/usr/bin/env node
// The README's pictures of `lmaudit view`: an item page (boolq-seq2seq from
// fixtures/lmeval/bigrefactor-2023-06, each reading's extracted answer beside the response) and
// a compare page (Mistral-7B truthfulqa_gen, standard vs question-shuffled prompts, from
// fixtures/external, a pair's prompt difference marked). Runs the built CLI (npm run build
// first) and Debian's Chromium; writes docs/img/view-item.png and docs/img/view-compare.png.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import { chromium } from 'playwright-core';

const root = fileURLToPath(new URL('..', import.meta.url));
const out = join(root, 'docs/img');
const MISTRAL = join(root, 'fixtures/external/lm-evaluation-harness/pr1567-slurmevals');

function startView(sources) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(root, 'bin/lmaudit.mjs'), 'view', ...sources], { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] });
    let text = '';
    child.stdout.on('data', (chunk) => {
      text += chunk;
      const m = /http:\/\/127\.0\.0\.1:\d+\//.exec(text);
      if (m) resolve({ child, url: m[0] });
    });
    child.on('exit', (code) => reject(new Error(`lmaudit view exited (${code})`)));
  });
}

async function shoot(browser, sources, hash, ready, file, prepare = async () => {}, region = null) {
  const { child, url } = await startView(sources);
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 }, deviceScaleFactor: 1 });
  try {
    await page.goto(`${url}${hash}`);
    await page.waitForSelector(ready, { timeout: 120_000 });
    await prepare(page);
    if (region === null) await page.screenshot({ path: join(out, file) });
    else await page.locator(region).screenshot({ path: join(out, file) });
    console.log(`wrote docs/img/${file}`);
  } finally {
    await page.close();
    child.removeAllListeners('exit');
    child.kill('SIGTERM');
  }
}

mkdirSync(out, { recursive: true });
const work = mkdtempSync(join(tmpdir(), 'lmaudit-shots-'));
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'] });
try {
  await shoot(browser, ['fixtures/lmeval/bigrefactor-2023-06'], '#/item?s=0&run=lmeval-a6a1045467dd805e&task=boolq-seq2seq&doc=0', 'table.readings', 'view-item.png');
  // The write_out files are stored gzipped (fixtures/external/SOURCES.md); the viewer reads them decompressed.
  const files = [['mistral/truthfulqa_gen_write_out_info.json.gz', 'truthfulqa_gen_write_out_info.json'], ['mistralShuffle/question_shuffle_truthfulqa_gen_write_out_info.json.gz', 'question_shuffle_truthfulqa_gen_write_out_info.json']];
  const sources = files.map(([from, to]) => {
    writeFileSync(join(work, to), gunzipSync(readFileSync(join(MISTRAL, from))));
    return join(work, to);
  });
  // The aligned items, one pair's prompts with the difference marked (the falsifier and statistics are above it).
  await shoot(browser, sources, '#/compare?a=0&b=1&c=0&t=0&score=bleu_acc%2Cnone&filter=bOnly&i=0', 'pre.prompt-diff ins', 'view-compare.png', async () => {}, 'section.items');
} finally {
  await browser.close();
  rmSync(work, { recursive: true, force: true });
}
