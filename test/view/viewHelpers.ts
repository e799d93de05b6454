/**
 * What the viewer's tests share: the browser bundle built when it is missing or older than
 * its sources, a viewer started in this process over some sources, and Debian's Chromium
 * launched as the HTML report's test launches it (test/report/htmlChromium.test.ts).
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';
import { ViewApi } from '../../src/view/api.ts';
import { startViewer, type RunningViewer } from '../../src/view/server.ts';
import { ViewSession } from '../../src/view/sources.ts';

export const CHROMIUM = '/usr/bin/chromium';
export const NO_CHROMIUM = existsSync(CHROMIUM) ? false : 'chromium not installed (apt-get install chromium)';
const root = fileURLToPath(new URL('../../', import.meta.url));

function newest(dir: string): number {
  return Math.max(...readdirSync(dir, { withFileTypes: true }).map((e) => (e.isDirectory() ? newest(join(dir, e.name)) : statSync(join(dir, e.name)).mtimeMs)));
}

export async function ensureAssets(): Promise<void> {
  const built = join(root, 'dist/view/app.js');
  if (existsSync(built) && statSync(built).mtimeMs >= newest(join(root, 'src/view'))) return;
  const { buildViewAssets } = (await import(join(root, 'scripts/viewAssets.mjs'))) as { buildViewAssets: (root: string) => Promise<string> };
  await buildViewAssets(root);
}

export async function viewerOn(paths: string[]): Promise<{ viewer: RunningViewer; api: ViewApi }> {
  await ensureAssets();
  const api = new ViewApi(await ViewSession.open(paths, { skipBad: false, fields: {} }));
  return { viewer: await startViewer(api), api };
}

export function launch(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'] });
}

/**
 * Waits for the items list to say `text` ("13 items of 16") and to have drawn its rows: the list is virtualized, and
 * draws its rows a render after the count (a loaded machine showed a test the page between the two).
 */
export async function listed(page: Page, text: string, rows?: number): Promise<void> {
  await page.waitForSelector(`#matching:has-text("${text}")`);
  // A short list is drawn whole (the tests' lists of up to 16 fit the window), unless the caller says how many rows
  // it holds (a static bundle's first ones); of a longer list, some rows.
  const expected = rows ?? Number(/^([\d,]+) items?\b/.exec(text)![1]!.replace(/,/g, ''));
  await page.waitForFunction((n) => {
    const drawn = document.querySelectorAll('.list a.row').length;
    return n <= 16 ? drawn === n : drawn > 0;
  }, expected);
}
