// Compiling the bundle (dist/lmaudit.cjs) with the V8 code cache the build made for it; used by
// bin/lmaudit.mjs to run it, and by test/bundle.test.ts to check that V8 takes the cache.
//
// Compiling half a megabyte of JavaScript was a fifth of a rescoring's start-up, and a rescoring
// from a store is timed from the process start. V8 rejects a cache made by another Node or under
// other flags, and the bundle then compiles as usual. Node 20 has no compile cache for this
// (module.enableCompileCache is Node 22), and the v8-compile-cache package would write its cache
// into the temp folder at run time; this one is made once, by the build, and only read.
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import vm from 'node:vm';

export const bundle = fileURLToPath(new URL('../dist/lmaudit.cjs', import.meta.url));
const cache = `${bundle}.cache`;

/**
 * The cache, if the build made it after the bundle as it stands. V8 checks a cache against the
 * length of the source, not its bytes: a bundle edited or rebuilt since must not meet an old one.
 */
function codeCache() {
  if (!existsSync(cache) || statSync(cache).mtimeMs < statSync(bundle).mtimeMs) return undefined;
  return readFileSync(cache);
}

/**
 * The bundle compiled inside the CommonJS module wrapper, as Node would run it from require().
 * `writeCache` (the build): compile afresh and save what V8 compiled by the time the process exits.
 */
export function compileBundle({ writeCache = false } = {}) {
  // Latin-1: the build writes the bundle in ASCII (scripts/build.mjs asciiOnly), which Latin-1 reads as it is.
  const source = `(function (exports, require, module, __filename, __dirname) {${readFileSync(bundle, 'latin1')}\n})`;
  const script = new vm.Script(source, {
    filename: bundle,
    cachedData: writeCache ? undefined : codeCache(),
    // (No dynamic import() is left in the bundle; should one come, it resolves as the main program's would.)
    importModuleDynamically: vm.constants?.USE_MAIN_CONTEXT_DEFAULT_LOADER,
  });
  if (writeCache) process.on('exit', () => writeFileSync(cache, script.createCachedData()));
  return script;
}

/** The newest modification time of the files under `dir`. */
function newest(dir) {
  return Math.max(0, ...readdirSync(dir, { withFileTypes: true }).map((e) => (e.isDirectory() ? newest(join(dir, e.name)) : statSync(join(dir, e.name)).mtimeMs)));
}

/**
 * Whether the bundle was built after the last change to the sources and the build script. The tests run the CLI as a
 * user does, from the bundle: scripts/run-tests.mjs rebuilds one that is behind, and test/helpers/cli.ts runs the
 * sources instead when a test runs without it.
 */
export function bundleIsCurrent() {
  if (!existsSync(bundle)) return false;
  const root = fileURLToPath(new URL('..', import.meta.url));
  return statSync(bundle).mtimeMs >= Math.max(newest(join(root, 'src')), statSync(join(root, 'scripts/build.mjs')).mtimeMs);
}
