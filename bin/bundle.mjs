// Compiling the bundle (dist/lmaudit.cjs) with the V8 code cache the build made for it; used by
// bin/lmaudit.mjs to run it, and by test/bundle.test.ts to check that V8 takes the cache.
//
// Compiling half a megabyte of JavaScript was a fifth of a rescoring's start-up, and a rescoring
// from a store is timed from the process start. V8 rejects a cache made by another Node or under
// other flags, and the bundle then compiles as usual. Node 20 has no compile cache for this
// (module.enableCompileCache is Node 22), and the v8-compile-cache package would write its cache
// into the temp folder at run time; this one is made once, by the build, and only read.
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
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
  const source = `(function (exports, require, module, __filename, __dirname) {${readFileSync(bundle, 'utf8')}\n})`;
  const script = new vm.Script(source, {
    filename: bundle,
    cachedData: writeCache ? undefined : codeCache(),
    // (No dynamic import() is left in the bundle; should one come, it resolves as the main program's would.)
    importModuleDynamically: vm.constants?.USE_MAIN_CONTEXT_DEFAULT_LOADER,
  });
  if (writeCache) process.on('exit', () => writeFileSync(cache, script.createCachedData()));
  return script;
}
