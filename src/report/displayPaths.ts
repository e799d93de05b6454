/**
 * Paths as a reader of the appendix should see them: relative to the working directory (where
 * the command was run), so that `lmaudit report /home/me/runs/x.json` prints `runs/x.json` and an
 * appendix does not print the author's machine layout. The paths rewritten are the ones the data
 * names as paths (the subject, run labels, recorded file paths); each is replaced wherever it
 * appears, before any value is clipped (so a cut path cannot keep half the prefix). Model outputs
 * and prompts are left as they are unless they quote one of those paths.
 */
import { isAbsolute, relative } from 'node:path';
import { isPlainObject } from '../util/json.ts';

const PATH_KEYS = new Set(['path', 'label', 'location', 'file']);

/** Absolute paths the data names under a path-like key (a location may list several, comma-separated). */
function namedPaths(value: unknown, into: Set<string>, key = ''): void {
  if (typeof value === 'string') {
    if (PATH_KEYS.has(key)) for (const p of value.split(', ')) if (isAbsolute(p)) into.add(p);
  } else if (Array.isArray(value)) {
    for (const x of value) namedPaths(x, into, key);
  } else if (isPlainObject(value)) {
    for (const [k, x] of Object.entries(value)) namedPaths(x, into, k);
  }
}

/** A copy of `value` with the absolute paths it names shown relative to `cwd` (plain objects and arrays are copied; other objects kept). */
export function withDisplayPaths<T>(value: T, cwd: string = process.cwd()): T {
  const found = new Set<string>();
  namedPaths(value, found);
  if (found.size === 0) return value;
  // One pass, longest first: a file's path is replaced whole rather than as its folder's, and a replacement is never rewritten again.
  const shown = new Map([...found].map((p) => [p, relative(cwd, p) || '.']));
  const pattern = new RegExp([...found].sort((a, b) => b.length - a.length).map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|'), 'g');
  const rewrite = (text: string) => text.replace(pattern, (p) => shown.get(p)!);
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') return rewrite(v);
    if (Array.isArray(v)) return v.map(walk);
    if (isPlainObject(v)) return Object.fromEntries(Object.entries(v).map(([k, x]) => [rewrite(k), walk(x)]));
    return v;
  };
  return walk(value) as T;
}
