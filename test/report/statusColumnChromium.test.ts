/**
 * Issue 25 §6: in the HTML report a status column (falsifier, verdict, status, recorded,
 * distinguishable, disclosure) never breaks inside a word, however narrow the window. Checked
 * in headless Chromium: every word of every status cell lies on one line box (a word broken
 * across lines has two client rects), and a screenshot of the narrow page is taken.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium } from 'playwright-core';
import { runCli } from '../helpers/cli.ts';

const CHROMIUM = '/usr/bin/chromium';

/** Run in the page: every word of every status cell, and those whose client rects lie on more than one line. */
const CHECK_WORDS = `(() => {
  const STATUS = ['falsifier', 'verdict', 'status', 'recorded', 'distinguishable', 'disclosure'];
  const out = [];
  let checked = 0;
  for (const table of document.querySelectorAll('table')) {
    const headers = Array.from(table.querySelectorAll('thead th')).map((th) => th.textContent ?? '');
    for (const row of table.querySelectorAll('tbody tr')) {
      Array.from(row.children).forEach((td, i) => {
        if (!STATUS.includes(headers[i] ?? '')) return;
        const text = td.firstChild;
        if (text === null || text.nodeType !== Node.TEXT_NODE) return;
        const content = text.textContent ?? '';
        for (const m of content.matchAll(/\\S+/g)) {
          const range = document.createRange();
          range.setStart(text, m.index);
          range.setEnd(text, m.index + m[0].length);
          checked++;
          const lines = new Set(Array.from(range.getClientRects()).map((r) => Math.round(r.top)));
          if (lines.size > 1) out.push(headers[i] + ": '" + m[0] + "' in '" + content + "'");
        }
      });
    }
  }
  return { out, checked };
})()`;

test('HTML report: status columns never break inside a word (Chromium, 420 px wide, screenshot)', { skip: existsSync(CHROMIUM) ? false : 'chromium not installed (apt-get install chromium)' }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'lmaudit-status-'));
  const file = join(dir, 'report.html');
  // A pair with verdicts and a violated falsifier, and long disclosure values beside the status cells.
  const r = runCli(['report', 'fixtures/external/pythia/zero-shot', '--against', 'fixtures/external/pythia/five-shot', '--tasks', 'lambada_openai', '--out', file]);
  assert.equal(r.status, 0, r.stderr);
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'] });
  try {
    const page = await browser.newPage({ viewport: { width: 420, height: 900 } });
    await page.goto(pathToFileURL(file).href, { waitUntil: 'load' });
    const broken = (await page.evaluate(CHECK_WORDS)) as { out: string[]; checked: number };
    assert.ok(broken.checked > 20, `status words checked: ${broken.checked}`);
    assert.deepEqual(broken.out, []);
    const shot = join(dir, 'narrow.png');
    await page.screenshot({ path: shot, fullPage: true });
    assert.ok(statSync(shot).size > 10_000, 'a screenshot of the laid-out page');
  } finally {
    await browser.close();
  }
});
