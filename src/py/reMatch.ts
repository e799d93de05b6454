/**
 * Running a translated Python pattern (pyRegex.ts) the way Python's `re` iterates:
 * findall, search and sub, with Python 3.7+'s rule for matches after an empty match.
 */
import type { PyPattern } from './re.ts';

/** Python `pattern.findall(text)`: whole matches, group 1, or tuples of all groups ('' for unmatched). */
export function findall(p: PyPattern, text: string): (string | string[])[] {
  const out: (string | string[])[] = [];
  for (const m of matches(p, text)) {
    if (p.groups === 0) out.push(m[0]);
    else if (p.groups === 1) out.push(m[1] ?? '');
    else out.push(Array.from({ length: p.groups }, (_, g) => m[g + 1] ?? ''));
  }
  return out;
}

/** Python `re.search(pattern, text).groups()`: null without a match; groups that did not take part are null. */
export function searchGroups(p: PyPattern, text: string): (string | null)[] | null {
  for (const m of matches(p, text)) return Array.from({ length: p.groups }, (_, g) => m[g + 1] ?? null);
  return null;
}

/** Python `re.sub(pattern, "", text)`: every non-overlapping match removed. */
export function subEmpty(p: PyPattern, text: string): string {
  let out = '';
  let last = 0;
  for (const m of matches(p, text)) {
    out += text.slice(last, m.index);
    last = m.index + m[0].length;
  }
  return out + text.slice(last);
}

/**
 * Python 3.7+ iteration (findall, finditer, sub): after an empty match at p the next search
 * starts at p again but may not end there — a non-empty match may start where an empty
 * one did ('\\d??' finds '', '', '9' in 'a9'). JS moves one character on instead, so that
 * one search is a sticky regex whose end must not be p, after which the search goes on
 * from the next character.
 */
function* matches(p: PyPattern, text: string): Generator<RegExpExecArray> {
  const re = new RegExp(p.regex.source, p.regex.flags);
  let pos = 0;
  /** Code points before `pos`, counted as `pos` moves on (the lookbehind counts code points). */
  let codePoints = 0;
  let mustAdvance = false;
  while (pos <= text.length) {
    let m: RegExpExecArray | null = null;
    if (mustAdvance) {
      m = nonEmptyMatchAt(p, text, pos, codePoints);
      if (m === null) {
        if (pos === text.length) return;
        re.lastIndex = pos + (text.codePointAt(pos)! > 0xffff ? 2 : 1);
        m = re.exec(text);
      }
    } else {
      re.lastIndex = pos;
      m = re.exec(text);
    }
    if (m === null) return;
    yield m;
    const end = m.index + m[0].length;
    mustAdvance = end === m.index;
    codePoints += codePointsBetween(text, pos, end);
    pos = end;
  }
}

/**
 * The first non-empty match starting at `pos` (`codePoints` before it), or null. A pattern that
 * never looks behind its start (no lookbehind, no ^) is run on the text from `pos`, where
 * "not empty" is a lookbehind of one step; one that does looks at the whole text, with a
 * lookbehind that counts the code points before `pos` (linear in them, so kept for those).
 */
function nonEmptyMatchAt(p: PyPattern, text: string, pos: number, codePoints: number): RegExpExecArray | null {
  const key = p.regex.source + p.regex.flags;
  const sticky = p.regex.flags.replace('g', '') + 'y';
  let fromHere = fromHereCache.get(key);
  if (fromHere === undefined) {
    // null: the pattern looks behind its start, so it must see the whole text.
    fromHere = looksBehind(p.regex.source) ? null : new RegExp(`(?:${p.regex.source})(?<!^)`, sticky);
    fromHereCache.set(key, fromHere);
  }
  if (fromHere !== null) {
    fromHere.lastIndex = 0;
    const m = fromHere.exec(text.slice(pos));
    if (m !== null) m.index += pos;
    return m;
  }
  const byEnd = atCodePointCache.get(key) ?? new Map<number, RegExp>();
  atCodePointCache.set(key, byEnd);
  let re = byEnd.get(codePoints);
  if (re === undefined) {
    if (byEnd.size > 256) byEnd.clear();
    byEnd.set(codePoints, (re = new RegExp(`(?:${p.regex.source})(?<!^[\\s\\S]{${codePoints}})`, sticky)));
  }
  re.lastIndex = pos;
  return re.exec(text);
}
const fromHereCache = new Map<string, RegExp | null>();
const atCodePointCache = new Map<string, Map<number, RegExp>>();

/** Whether a translated source looks before where its match starts: a lookbehind, or ^ outside a set. */
function looksBehind(source: string): boolean {
  let inSet = false;
  for (let i = 0; i < source.length; i++) {
    const c = source[i];
    if (c === '\\') i++;
    else if (inSet) inSet = c !== ']';
    else if (c === '[') inSet = true;
    else if (c === '^' || (c === '(' && source.startsWith('(?<=', i)) || (c === '(' && source.startsWith('(?<!', i))) return true;
  }
  return false;
}

function codePointsBetween(text: string, from: number, to: number): number {
  let n = 0;
  for (let i = from; i < to; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < to) i++;
    n++;
  }
  return n;
}
