/**
 * What the viewer's tests share: the browser bundle built when it is missing or older than
 * its sources, a viewer started in this process over some sources, and Debian's Chromium
 * launched as the HTML report's test launches it (test/report/htmlChromium.test.ts).
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser } from 'playwright-core';
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
