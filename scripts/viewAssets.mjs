// The viewer's browser side (src/view/client/), bundled by esbuild into dist/view/app.js
// with its stylesheet beside it: Preact and @tanstack/virtual-core are in the bundle, so
// the page loads nothing from anywhere else (no CDN, fonts or scripts from elsewhere).
import { build } from 'esbuild';
import { copyFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';

export async function buildViewAssets(root) {
  const out = join(root, 'dist/view');
  mkdirSync(out, { recursive: true });
  await build({
    entryPoints: [join(root, 'src/view/client/main.ts')],
    outfile: join(out, 'app.js'),
    bundle: true,
    platform: 'browser',
    format: 'iife',
    target: 'es2020',
    minify: true,
    legalComments: 'none',
    logLevel: 'warning',
  });
  copyFileSync(join(root, 'src/view/client/app.css'), join(out, 'app.css'));
  return out;
}
