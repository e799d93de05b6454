/**
 * The installed package's root folder (where audits/, tasks/ and fixtures/ ship).
 * Found by walking up from this module, because the module runs both from
 * src/ (tests, tsx) and from the bundle in dist/.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

let root: string | undefined;

export function packageRoot(): string {
  if (root !== undefined) return root;
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest) && (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string }).name === 'lmaudit') {
      root = dir;
      return dir;
    }
    const parent = dirname(dir);
    if (parent === dir) throw new Error('lmaudit: cannot find the package root (package.json named lmaudit)');
    dir = parent;
  }
}
