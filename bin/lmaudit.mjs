#!/usr/bin/env node
// Runs the bundled CLI (built by `npm run build`, which `npm ci` runs through `prepare`),
// compiled with its code cache (bin/bundle.mjs); falls back to the TypeScript sources
// through tsx when no bundle exists.
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { bundle, compileBundle } from './bundle.mjs';

if (existsSync(bundle) && !process.env.LMAUDIT_FROM_SOURCE) {
  const script = compileBundle({ writeCache: Boolean(process.env.LMAUDIT_WRITE_CODE_CACHE) });
  const module = { exports: {} };
  script.runInThisContext()(module.exports, createRequire(bundle), module, bundle, dirname(bundle));
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import(new URL('../src/cli/main.ts', import.meta.url).href);
}
