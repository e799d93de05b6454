#!/usr/bin/env node
// Runs the bundled CLI (built by `npm run build`, which `npm ci` runs through `prepare`);
// falls back to the TypeScript sources through tsx when no bundle exists.
//
// The bundle is compiled with the V8 code cache the build made for it: compiling half a
// megabyte of JavaScript was a fifth of a rescoring's start-up, and a rescoring from a store
// is timed from the process start. V8 rejects a cache made by another Node or under other
// flags, and the bundle then compiles as usual. Node 20 has no compile cache for this
// (module.enableCompileCache is Node 22), and the v8-compile-cache package would write its
// cache into the temp folder at run time; this one is made once, by the build, and only read.
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import vm from 'node:vm';

const bundle = fileURLToPath(new URL('../dist/lmaudit.cjs', import.meta.url));
const cache = `${bundle}.cache`;

/**
 * The cache, if the build made it after the bundle as it stands. V8 checks a cache against the
 * length of the source, not its bytes: a bundle edited or rebuilt since must not meet an old one.
 */
function codeCache() {
  if (!existsSync(cache) || statSync(cache).mtimeMs < statSync(bundle).mtimeMs) return undefined;
  return readFileSync(cache);
}

if (existsSync(bundle) && !process.env.LMAUDIT_FROM_SOURCE) {
  // The CommonJS module wrapper, spelled out: the bundle runs as Node would run it from require().
  const source = `(function (exports, require, module, __filename, __dirname) {${readFileSync(bundle, 'utf8')}\n})`;
  const script = new vm.Script(source, {
    filename: bundle,
    cachedData: process.env.LMAUDIT_WRITE_CODE_CACHE ? undefined : codeCache(),
    // (No dynamic import() is left in the bundle; should one come, it resolves as the main program's would.)
    importModuleDynamically: vm.constants?.USE_MAIN_CONTEXT_DEFAULT_LOADER,
  });
  // The build's rescoring saves what V8 compiled by the time it exits.
  if (process.env.LMAUDIT_WRITE_CODE_CACHE) process.on('exit', () => writeFileSync(cache, script.createCachedData()));
  const module = { exports: {} };
  script.runInThisContext()(module.exports, createRequire(bundle), module, bundle, dirname(bundle));
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import(new URL('../src/cli/main.ts', import.meta.url).href);
}
