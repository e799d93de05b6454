#!/usr/bin/env node
// Bundles the CLI into one CommonJS file, dist/lmaudit.cjs (tsx would add ~200 ms to every
// start, which the rescoring benchmark pays), then makes the V8 code cache that bin/lmaudit.mjs
// compiles it with: dist/lmaudit.cjs.cache, written by a rescoring of a small store so that it
// holds the functions a rescoring runs, not only the top level.
import { build } from 'esbuild';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildViewAssets } from './viewAssets.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const BUNDLED = ['@duckdb/node-api', 'zod', 'commander', 'js-yaml', 'get-east-asian-width'];

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

/**
 * The bundle with every character past ASCII written as a \u escape, so that bin/bundle.mjs reads it as Latin-1 (a
 * copy; UTF-8 decoding checks every byte) into a one-byte string: esbuild escapes strings but leaves comments and
 * regular expressions as written, and one '×' in a comment made the whole 2.4 MB source a two-byte string. Together
 * 5-9 ms of every command's start (ten alternations: `import --help` 162 → 153 ms, `ls` of a run 310 → 305 ms). An escape means the same
 * character in a comment and in a regular expression (a code point past U+FFFF as its surrogate pair, which a
 * `u` expression reads as the one code point).
 */
function asciiOnly(file) {
  const text = readFileSync(file, 'utf8');
  const escaped = text.replace(/[^\x00-\x7f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  if (!/^[\x00-\x7f]*$/.test(escaped)) throw new Error(`${file}: not ASCII after escaping`);
  writeFileSync(file, escaped);
}

rmSync(join(root, 'dist'), { recursive: true, force: true });
await build({
  // The samples reader's worker threads run a bundle of their own (src/import/lmeval/piecePool.ts).
  entryPoints: { lmaudit: join(root, 'src/cli/main.ts'), samplesWorker: join(root, 'src/import/lmeval/samplesWorker.ts') },
  outdir: join(root, 'dist'),
  outExtension: { '.js': '.cjs' },
  // One file: with the code cache, what costs at start-up is no longer parsing but finding and
  // reading files. A command's modules still run only when it imports them (esbuild keeps a
  // dynamic import lazy in a CommonJS bundle).
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  // Pure-JS packages on every command's start path are bundled: Node then reads one file instead
  // of hundreds. Everything else, and the native DuckDB binding, stays external.
  plugins: [externalExcept(BUNDLED)],
  define: { 'import.meta.url': '__lmauditModuleUrl' },
  banner: { js: "const __lmauditModuleUrl = require('node:url').pathToFileURL(__filename).href;" },
  sourcemap: 'linked',
  logLevel: 'warning',
});
asciiOnly(join(root, 'dist/lmaudit.cjs'));
// `lmaudit view`'s page: its own browser bundle (scripts/viewAssets.mjs).
await buildViewAssets(root);

// The code cache: a rescoring of a small store, with the bundle asked to save what V8 compiled.
// It only saves time: if it cannot be made, the build warns and the bundle runs without it.
const work = mkdtempSync(join(tmpdir(), 'lmaudit-build-'));
try {
  const records = ['Answer: (B)', ' D\n', 'So the answer is A, not C.', 'c', 'None of these'].map((output, i) =>
    JSON.stringify({ id: `q${i}`, output, gold: 'ABCD'[i % 4], subject: `s${i % 2}` }),
  );
  writeFileSync(join(work, 'outputs.jsonl'), `${records.join('\n')}\n`);
  const cli = (args, env = {}) => {
    const r = spawnSync(process.execPath, [join(root, 'bin/lmaudit.mjs'), ...args], { cwd: work, encoding: 'utf8', env: { ...process.env, ...env } });
    if (r.status !== 0) throw new Error(`lmaudit ${args.join(' ')} failed:\n${r.stderr}`);
  };
  cli(['import', 'outputs.jsonl', '--out', 'store']);
  cli(['rescore', 'store', '--json'], { LMAUDIT_WRITE_CODE_CACHE: '1' });
} catch (error) {
  console.warn(`warning: no V8 code cache for the bundle (start-up will be slower): ${error.message}`);
} finally {
  rmSync(work, { recursive: true, force: true });
}
