#!/usr/bin/env node
// Bundles the CLI into ES modules so a command starts without a TypeScript loader
// (tsx adds ~200 ms to every start, which the rescoring benchmark would pay).
import { build } from 'esbuild';

import { rmSync } from 'node:fs';

rmSync('dist', { recursive: true, force: true });
await build({
  entryPoints: { lmaudit: 'src/cli/main.ts' },
  outdir: 'dist',
  outExtension: { '.js': '.mjs' },
  // One chunk per command's modules: a command loads only what it uses.
  splitting: true,
  chunkNames: 'chunks/[name]-[hash]',
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  packages: 'external',
  sourcemap: 'linked',
  logLevel: 'warning',
});
