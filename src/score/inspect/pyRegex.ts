/**
 * Python `re` patterns as JS RegExps, for the patterns Inspect's scorers use and
 * for user patterns recorded in a log. Python str patterns are Unicode-aware
 * (\w, \d, \b), `$` without MULTILINE also matches before a trailing newline, `\Z`
 * is the absolute end, and flags may be inline (`(?is)`). What cannot be
 * translated faithfully (conditionals, possessive quantifiers, atomic groups,
 * inline flag groups mid-pattern) is refused rather than approximated.
 */
import { UnsupportedError } from '../../errors.ts';

const WORD = '\\p{L}\\p{N}_';

export interface PyRegexOptions {
  ignoreCase?: boolean;
  multiline?: boolean;
  dotAll?: boolean;
}

export function pyRegex(pattern: string, options: PyRegexOptions = {}): RegExp {
  let body = pattern;
  const flags = { i: options.ignoreCase ?? false, m: options.multiline ?? false, s: options.dotAll ?? false };
  const inline = /^\(\?([aiLmsux]+)\)/.exec(body);
  if (inline !== null) {
    for (const f of inline[1]!) {
      if (f === 'i') flags.i = true;
      else if (f === 'm') flags.m = true;
      else if (f === 's') flags.s = true;
      else if (f === 'x' || f === 'L') throw new UnsupportedError(`Python regex flag '${f}' is not supported: ${pattern}`);
    }
    body = body.slice(inline[0].length);
  }
  if (/\(\?\(|\(\?>|[*+?}]\+|\(\?[aiLmsux-]+[:)]/.test(body)) {
    throw new UnsupportedError(`Python regex construct without a JS equivalent: ${pattern}`);
  }
  let out = '';
  let inClass = false;
  for (let i = 0; i < body.length; i++) {
    const c = body[i]!;
    if (c === '\\') {
      const n = body[i + 1] ?? '';
      i++;
      if (n === 'w') out += inClass ? WORD : `[${WORD}]`;
      else if (n === 'W') out += inClass ? '\\W' : `[^${WORD}]`;
      else if (n === 'd') out += '\\p{Nd}';
      else if (n === 'D') out += '\\P{Nd}';
      else if (n === 'b' && !inClass) out += `(?:(?<=[${WORD}])(?![${WORD}])|(?<![${WORD}])(?=[${WORD}]))`;
      else if (n === 'B' && !inClass) out += `(?:(?<=[${WORD}])(?=[${WORD}])|(?<![${WORD}])(?![${WORD}]))`;
      else if (n === 'Z' && !inClass) out += '$(?![\\s\\S])';
      else if (n === 'A' && !inClass) out += '(?<![\\s\\S])';
      else if (/[\\^$.|?*+()[\]{}\/-]/.test(n) || /[nrtfv0sS]/.test(n)) out += `\\${n}`;
      else if (/[1-9]/.test(n)) out += `\\${n}`;
      else out += n === '' ? '\\\\' : /[A-Za-z]/.test(n) ? `\\${n}` : n;
      continue;
    }
    if (inClass) {
      if (c === ']') inClass = false;
      out += c;
      continue;
    }
    if (c === '[') {
      inClass = true;
      out += c;
      if (body[i + 1] === '^') out += body[++i];
      if (body[i + 1] === ']') out += `\\${body[++i]}`;
      continue;
    }
    if (c === '$' && !flags.m) {
      out += '(?=\\n?$(?![\\s\\S]))';
      continue;
    }
    if (c === '(' && body.startsWith('(?P<', i)) {
      out += '(?<';
      i += 3;
      continue;
    }
    if (c === '(' && body.startsWith('(?P=', i)) {
      const end = body.indexOf(')', i);
      out += `\\k<${body.slice(i + 4, end)}>`;
      i = end;
      continue;
    }
    out += c;
  }
  const jsFlags = `u${flags.i ? 'i' : ''}${flags.m ? 'm' : ''}${flags.s ? 's' : ''}`;
  try {
    return new RegExp(out, jsFlags);
  } catch (error) {
    throw new UnsupportedError(`cannot translate Python regex ${JSON.stringify(pattern)} (${(error as Error).message})`);
  }
}

/** Python `re.search(...).groups()`: null when there is no match; groups that did not take part are null. */
export function pySearchGroups(regex: RegExp, text: string): (string | null)[] | null {
  const m = regex.exec(text);
  if (m === null) return null;
  return m.slice(1).map((g) => g ?? null);
}

/** Python `re.findall` for a pattern with exactly one group: the group of every non-overlapping match. */
export function pyFindAllGroup1(regex: RegExp, text: string): string[] {
  const global = new RegExp(regex.source, regex.flags.includes('g') ? regex.flags : `${regex.flags}g`);
  const out: string[] = [];
  for (const m of text.matchAll(global)) out.push(m[1] ?? '');
  return out;
}
