#!/usr/bin/env node
// Bundles the CLI into ES modules so a command starts without a TypeScript loader
// (tsx adds ~200 ms to every start, which the rescoring benchmark would pay).
import { build } from 'esbuild';

import { rmSync } from 'node:fs';

const BUNDLED = ['@duckdb/node-api', 'zod', 'commander', 'js-yaml'];

/** Marks every bare import external except the packages named (and their subpaths). */
function externalExcept(bundled) {
  return {
    name: 'external-except',
    setup(b) {
      b.onResolve({ filter: /^[^./]/ }, (args) => {
        const inBundled = bundled.some((p) => args.path === p || args.path.startsWith(`${p}/`));
        return inBundled ? undefined : { external: true };
      });
    },
  };
}

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
  // Pure-JS packages on every command's start path are bundled: Node then parses one file
  // instead of hundreds and skips the CommonJS export scan an ESM import of CJS costs
  // (~60 ms for @duckdb/node-api alone). Everything else, and the native DuckDB binding, stays external.
  plugins: [externalExcept(BUNDLED)],
  banner: { js: "import { createRequire as __lmauditCreateRequire } from 'node:module'; const require = __lmauditCreateRequire(import.meta.url);" },
  sourcemap: 'linked',
  logLevel: 'warning',
});
