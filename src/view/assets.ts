/**
 * The page the viewer serves and the bundle writes: one HTML shell, the browser bundle
 * (dist/view/app.js, built by scripts/viewAssets.mjs) and its stylesheet. They are read
 * once into memory; the server answers only these names, so no request reaches a file.
 * The Content-Security-Policy lets the page load only its own script and stylesheet and
 * (served) talk only to its own server: nothing leaves the machine even if a string from a
 * model were ever taken as markup.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { BadInputError } from '../errors.ts';
import { packageRoot } from '../util/packageRoot.ts';

export interface ViewAssets {
  script: string;
  style: string;
}

export function readAssets(): ViewAssets {
  const folder = join(packageRoot(), 'dist/view');
  try {
    return { script: readFileSync(join(folder, 'app.js'), 'utf8'), style: readFileSync(join(folder, 'app.css'), 'utf8') };
  } catch {
    throw new BadInputError(`the viewer's page is not built (no dist/view/app.js): run \`npm run build\` in ${packageRoot()}`);
  }
}

const PAGE_POLICY = "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'";
/** The header's policy adds what only a header can say (a <meta> policy cannot forbid framing). */
export const SERVED_POLICY = `${PAGE_POLICY}; frame-ancestors 'none'`;

/** The shell; a bundle loads its data as scripts from data/ beside it (file:// allows no fetch). */
export function pageHtml(kind: 'served' | 'bundle'): string {
  const policy = kind === 'served' ? PAGE_POLICY : "default-src 'none'; script-src 'self' file:; style-src 'self' file:; img-src data:; base-uri 'none'; form-action 'none'";
  return [
    '<!doctype html>',
    '<html lang="en"><head><meta charset="utf-8">',
    `<meta http-equiv="Content-Security-Policy" content="${policy}">`,
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    '<title>lmaudit view</title>',
    '<link rel="stylesheet" href="app.css">',
    kind === 'bundle' ? '<script src="data/bundle.js"></script>' : '',
    '</head><body><div id="app"></div><script src="app.js"></script></body></html>',
    '',
  ].join('\n');
}
