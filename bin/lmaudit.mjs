#!/usr/bin/env node
// Runs the bundled CLI (built by `npm run build`, which `npm ci` runs through
// `prepare`); falls back to the TypeScript sources through tsx when no bundle exists.
import { existsSync } from 'node:fs';

const bundle = new URL('../dist/lmaudit.mjs', import.meta.url);
if (existsSync(bundle) && !process.env.LMAUDIT_FROM_SOURCE) {
  await import(bundle.href);
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import(new URL('../src/cli/main.ts', import.meta.url).href);
}
