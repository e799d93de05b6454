/**
 * Python `re.sub(pattern, repl, string, count)` (3.11) on a JS RegExp, for
 * lm-eval's `regex_replace` template filter. The pattern is translated where
 * Python and JS differ (`\d \w \s \b` are Unicode-aware in Python, `.` only
 * excludes "\n", `$` also matches before a final "\n", `(?P<name>…)`, `{`
 * literal unless a quantifier, the replacement's `\1`/`\g<name>` syntax);
 * constructs JS cannot express exactly (possessive and atomic groups, scoped
 * flags, verbose mode, conditionals, negated classes inside sets) are refused.
 */
import { UnsupportedError } from '../../errors.ts';
import { PyValueError } from './values.ts';

const SPACE = '\\t-\\r\\x1c-\\x20\\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000';
const WORD = '\\p{L}\\p{N}_';
const SYNTAX = '^$\\.*+?()[]{}|/';

interface Translated {
  source: string;
  flags: string;
}

function unsupported(what: string, pattern: string): never {
  throw new UnsupportedError(`regex_replace: ${what} in ${JSON.stringify(pattern)} has no exact JavaScript equivalent`);
}

/** Translate a Python `re` pattern (str, default flags) to an equivalent JS `u` RegExp source. */
export function translatePattern(pattern: string): Translated {
  let i = 0;
  let out = '';
  const flags = new Set<string>();
  const lead = /^\(\?([aiLmsux]+)\)/.exec(pattern);
  if (lead) {
    for (const f of lead[1]!) flags.add(f);
    i = lead[0].length;
  }
  for (const f of flags) if ('xL'.includes(f)) unsupported(`the (?${f}) flag`, pattern);
  const ascii = flags.has('a');
  const word = ascii ? 'A-Za-z0-9_' : WORD;
  const digit = ascii ? '0-9' : '\\p{Nd}';
  const space = ascii ? ' \\t\\n\\r\\f\\v' : SPACE;
  let lastWasQuantifier = false;
  const chars = Array.from(pattern);
  let inClass = false;
  const hexEscape = (cp: number): string => `\\u{${cp.toString(16)}}`;

  const escape = (): string => {
    const c = chars[++i];
    if (c === undefined) throw new PyValueError('bad escape (end of pattern)');
    const simple: Record<string, string> = { n: '\\n', t: '\\t', r: '\\r', f: '\\f', v: '\\v', a: '\\x07' };
    if (c in simple) return simple[c]!;
    if (c === 'x' || c === 'u' || c === 'U') {
      const width = c === 'x' ? 2 : c === 'u' ? 4 : 8;
      const hex = chars.slice(i + 1, i + 1 + width).join('');
      if (!new RegExp(`^[0-9a-fA-F]{${width}}$`).test(hex)) throw new PyValueError(`incomplete escape \\${c}${hex}`);
      i += width;
      return hexEscape(parseInt(hex, 16));
    }
    if (/[0-9]/.test(c)) {
      let digits = c;
      while (digits.length < 3 && /[0-9]/.test(chars[i + 1] ?? '')) digits += chars[++i];
      if (c === '0' || (digits.length === 3 && /^[0-3][0-7]{2}$/.test(digits))) {
        const oct = c === '0' ? digits.match(/^0[0-7]{0,2}/)![0] : digits;
        i -= digits.length - oct.length;
        return hexEscape(parseInt(oct, 8));
      }
      if (inClass) throw new PyValueError(`bad escape \\${c}`);
      const ref = digits.slice(0, 2);
      i -= digits.length - ref.length;
      return `(?:\\${ref})`;
    }
    const classes: Record<string, string> = { d: digit, w: word, s: space };
    if (c.toLowerCase() in classes && 'dwsDWS'.includes(c)) {
      const body = classes[c.toLowerCase()]!;
      if (inClass) {
        if (c === c.toUpperCase()) unsupported(`\\${c} inside a character set`, pattern);
        return body;
      }
      return c === c.toUpperCase() ? `[^${body}]` : `[${body}]`;
    }
    if (inClass) {
      if (c === 'b') return '\\x08';
    } else {
      if (c === 'b') return ascii ? '\\b' : `(?:(?<=[${word}])(?![${word}])|(?<![${word}])(?=[${word}]))`;
      if (c === 'B') return ascii ? '\\B' : `(?:(?<=[${word}])(?=[${word}])|(?<![${word}])(?![${word}]))`;
      if (c === 'A') return '(?<![\\s\\S])';
      if (c === 'Z') return '(?![\\s\\S])';
    }
    if (c === 'N') unsupported('\\N{…}', pattern);
    if (/[A-Za-z]/.test(c)) throw new PyValueError(`bad escape \\${c}`);
    return SYNTAX.includes(c) || (c === '-' && inClass) ? `\\${c}` : c;
  };

  for (; i < chars.length; i++) {
    const c = chars[i]!;
    if (inClass) {
      if (c === ']') {
        inClass = false;
        out += ']';
      } else if (c === '\\') out += escape();
      else if (c === '[') out += '\\[';
      else out += c;
      continue;
    }
    let quantifier = false;
    switch (c) {
      case '\\':
        out += escape();
        break;
      case '.':
        out += flags.has('s') ? '[\\s\\S]' : '[^\\n]';
        break;
      case '^':
        out += flags.has('m') ? '(?:(?<![\\s\\S])|(?<=\\n))' : '(?<![\\s\\S])';
        break;
      case '$':
        out += flags.has('m') ? '(?=\\n|(?![\\s\\S]))' : '(?=\\n?(?![\\s\\S]))';
        break;
      case '[': {
        inClass = true;
        out += '[';
        if (chars[i + 1] === '^') out += chars[++i];
        if (chars[i + 1] === ']') {
          out += '\\]';
          i++;
        }
        break;
      }
      case '(': {
        const rest = chars.slice(i, i + 4).join('');
        if (rest.startsWith('(?P<')) {
          out += '(?<';
          i += 3;
        } else if (rest.startsWith('(?P=')) {
          const close = chars.indexOf(')', i);
          out += `\\k<${chars.slice(i + 4, close).join('')}>`;
          i = close;
        } else if (rest.startsWith('(?#')) {
          i = chars.indexOf(')', i);
        } else if (/^\(\?[:=!]/.test(rest) || rest.startsWith('(?<=') || rest.startsWith('(?<!')) {
          out += '(';
        } else if (rest.startsWith('(?')) {
          unsupported(`the group ${JSON.stringify(rest)}`, pattern);
        } else out += '(';
        break;
      }
      case '{': {
        const m = /^\{(\d*)(,(\d*))?\}/.exec(chars.slice(i).join(''));
        if (m && (m[1] !== '' || m[2] !== undefined)) {
          out += `{${m[1] || '0'}${m[2] !== undefined ? `,${m[3]}` : ''}}`;
          i += Array.from(m[0]).length - 1;
          quantifier = true;
        } else out += '\\{';
        break;
      }
      case '}':
        out += '\\}';
        break;
      case '*':
      case '?':
      case '+':
        if (c === '+' && lastWasQuantifier) unsupported('a possessive quantifier', pattern);
        out += c;
        quantifier = c !== '?' || !lastWasQuantifier;
        break;
      default:
        out += c === '/' ? '\\/' : c;
    }
    lastWasQuantifier = quantifier;
  }
  if (inClass) throw new PyValueError('unterminated character set');
  return { source: out, flags: `gu${flags.has('i') ? 'i' : ''}` };
}

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
  const { source, flags } = translatePattern(pattern);
  let re: RegExp;
  try {
    re = new RegExp(source, flags);
  } catch (e) {
    throw new PyValueError(`invalid pattern ${JSON.stringify(pattern)}: ${(e as Error).message}`);
  }
  let n = 0;
  return s.replace(re, (...args: unknown[]) => {
    const hasNamed = typeof args[args.length - 1] === 'object' && args[args.length - 1] !== undefined;
    const named = (hasNamed ? args[args.length - 1] : {}) as Record<string, string | undefined>;
    const groups = args.slice(0, args.length - (hasNamed ? 3 : 2)) as (string | undefined)[];
    if (count > 0 && n++ >= count) return groups[0]!;
    return expandTemplate(repl, groups, named);
  });
}
