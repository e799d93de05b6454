/**
 * Python `re.sub(pattern, repl, string, count)` (3.11), for lm-eval's
 * `regex_replace` template filter: the pattern goes through the shared
 * Python-regex translator (src/util/pyRegex.ts, which refuses what JS cannot
 * express exactly); the replacement's `\1` / `\g<name>` syntax is expanded here.
 */
import { compilePython } from './re.ts';
import { PyValueError } from './values.ts';

/** Python's replacement template: `\1`, `\g<1>`, `\g<name>`, `\n`…; other ASCII-letter escapes are errors. */
function expandTemplate(repl: string, groups: (string | undefined)[], named: Record<string, string | undefined>): string {
  let out = '';
  for (let i = 0; i < repl.length; i++) {
    const c = repl[i]!;
    if (c !== '\\') {
      out += c;
      continue;
    }
    const e = repl[++i];
    if (e === undefined) throw new PyValueError('bad escape (end of pattern)');
    if (e === 'g') {
      const m = /^<([^>]*)>/.exec(repl.slice(i + 1));
      if (!m) throw new PyValueError('missing group name');
      const ref = m[1]!;
      const v = /^\d+$/.test(ref) ? groups[Number(ref)] : Object.hasOwn(named, ref) ? named[ref] : null;
      if (v === null || (/^\d+$/.test(ref) && Number(ref) >= groups.length)) throw new PyValueError(`invalid group reference ${ref}`);
      out += v ?? '';
      i += m[0].length;
    } else if (/[0-9]/.test(e)) {
      let digits = e;
      while (digits.length < 3 && /[0-9]/.test(repl[i + 1] ?? '')) digits += repl[++i];
      if (e === '0' || (digits.length === 3 && /^[0-7]{3}$/.test(digits))) {
        const oct = e === '0' ? digits.match(/^0[0-7]{0,2}/)![0] : digits;
        i -= digits.length - oct.length;
        out += String.fromCodePoint(parseInt(oct, 8));
      } else {
        const ref = Number(digits.slice(0, 2));
        i -= digits.length - Math.min(2, digits.length);
        if (ref >= groups.length) throw new PyValueError(`invalid group reference ${ref}`);
        out += groups[ref] ?? '';
      }
    } else {
      const simple: Record<string, string> = { n: '\n', t: '\t', r: '\r', f: '\f', v: '\v', a: '\x07', b: '\b', '\\': '\\' };
      if (e in simple) out += simple[e];
      else if (/[A-Za-z]/.test(e)) throw new PyValueError(`bad escape \\${e}`);
      else out += `\\${e}`;
    }
  }
  return out;
}

/** `re.sub(pattern, repl, s, count=count)`; count 0 replaces every match. */
export function pySub(pattern: string, repl: string, s: string, count: number): string {
  // The one Python-regex translator; a fresh RegExp because String.replace uses lastIndex.
  const compiled = compilePython(pattern).regex;
  const re = new RegExp(compiled.source, compiled.flags);
  let n = 0;
  return s.replace(re, (...args: unknown[]) => {
    const hasNamed = typeof args[args.length - 1] === 'object' && args[args.length - 1] !== undefined;
    const named = (hasNamed ? args[args.length - 1] : {}) as Record<string, string | undefined>;
    const groups = args.slice(0, args.length - (hasNamed ? 3 : 2)) as (string | undefined)[];
    if (count > 0 && n++ >= count) return groups[0]!;
    return expandTemplate(repl, groups, named);
  });
}
