/**
 * Python `re` patterns (as lm-eval task YAML writes them) translated to JS RegExp
 * with the same matches, or refused. Differences handled (§2.6): `$` also matches
 * before a final "\n"; `.` excludes only "\n"; Unicode `\d \w \s \b` (JS's are ASCII,
 * and JS `\s` adds U+FEFF); inline flags `(?s) (?i) (?m) (?a)`; `(?P<name>…)`;
 * a `{` that is not a quantifier is a literal; `\,`-style escapes of any punctuation.
 * Anything without a faithful JS form (verbose mode, scoped flags, conditionals,
 * atomic groups, possessive quantifiers, `\N{…}`, negated classes inside sets) throws
 * UnsupportedError naming the pattern: a silently different match would be worse; so do
 * repeats JavaScript runs differently (a repeated group that can match empty, a capture
 * inside a repeated group). Running a pattern as Python iterates is pyRegexMatch.ts.
 */
import { BadInputError, UnsupportedError } from '../errors.ts';
import { PY_WHITESPACE_CLASS } from './str.ts';
import { ALNUM, DECIMALS } from './unicodedata.ts';

export interface PyPattern {
  readonly source: string;
  /** The translated JS regex, global and Unicode. */
  readonly regex: RegExp;
  /** Capturing groups, as Python counts them (findall's shape depends on it). */
  readonly groups: number;
}

// Python str.isspace() characters: JS \s lacks \x1c-\x1f and \x85 and adds \ufeff.
const PY_SPACE = PY_WHITESPACE_CLASS;
const ASCII_SPACE = ' \\t\\n\\r\\f\\v';
// Python \w on str: str.isalnum() or "_", and \d: str.isdecimal(), both as Unicode 14 has them
// (JS \p{…} follows Node's newer Unicode); built on first use (a start-up that translates no pattern skips their tables).
let pyClasses: { word: string; digit: string; notDigit: string } | undefined;
const py = () => (pyClasses ??= { word: `${ALNUM.classBody()}_`, digit: DECIMALS.classBody(), notDigit: DECIMALS.classBody(true) });
const ASCII_WORD = 'A-Za-z0-9_';
const SYNTAX = new Set([...'^$\\.*+?()[]{}|/']);

interface Flags {
  dotall: boolean;
  multiline: boolean;
  ignorecase: boolean;
  ascii: boolean;
}

const cache = new Map<string, PyPattern>();

/** Flags passed as Python's `re.compile(pattern, flags)` would (inline flags in the pattern add to them). */
/** Python 3.11's `re.escape` on str: only the characters special in a pattern get a backslash. */
export function pyReEscape(text: string): string {
  return text.replace(/[()[\]{}?*+\-|^$\\.&~# \t\n\r\v\f]/g, '\\$&');
}

export interface PyRegexFlags {
  ignoreCase?: boolean;
  multiline?: boolean;
  dotAll?: boolean;
}

export function compilePython(pattern: string, options: PyRegexFlags = {}): PyPattern {
  const key = `${options.ignoreCase ? 'i' : ''}${options.multiline ? 'm' : ''}${options.dotAll ? 's' : ''}\u0000${pattern}`;
  const hit = cache.get(key);
  if (hit !== undefined) return hit;
  const refuse = (why: string): never => {
    throw new UnsupportedError(`Python regex ${JSON.stringify(pattern)} has no faithful JavaScript form: ${why}`);
  };
  // What Python's re itself rejects is bad input, not a translation gap.
  const invalid = (why: string): never => {
    throw new BadInputError(`invalid Python regex ${JSON.stringify(pattern)}: ${why}`);
  };
  const flags: Flags = {
    dotall: options.dotAll ?? false,
    multiline: options.multiline ?? false,
    ignorecase: options.ignoreCase ?? false,
    ascii: false,
  };
  let i = 0;
  // Global inline flags: Python 3.11 only accepts them at the start.
  for (let m = /^\(\?([aiLmsux]+)\)/.exec(pattern); m !== null; m = /^\(\?([aiLmsux]+)\)/.exec(pattern.slice(i))) {
    for (const f of m[1]!) {
      if (f === 's') flags.dotall = true;
      else if (f === 'm') flags.multiline = true;
      else if (f === 'i') flags.ignorecase = true;
      else if (f === 'a') flags.ascii = true;
      else if (f === 'u') continue;
      else refuse(f === 'x' ? 'verbose mode (?x)' : `inline flag (?${f})`);
    }
    i += m[0].length;
  }
  const word = flags.ascii ? ASCII_WORD : py().word;
  const space = flags.ascii ? ASCII_SPACE : PY_SPACE;
  const digit = flags.ascii ? '0-9' : py().digit;
  const boundary = `(?:(?<=[${word}])(?![${word}])|(?<![${word}])(?=[${word}]))`;
  // Python 3.11's \B never matches an empty string (sre's at_non_boundary checks for it).
  const notBoundary = `(?:(?<=[${word}])(?=[${word}])|(?<![${word}])(?![${word}])(?:(?=[\\s\\S])|(?<=[\\s\\S])))`;
  let out = '';
  let groups = 0;
  /** Each open group: where its translation starts in `out`, and how many capturing groups opened before it. */
  const opens: { at: number; groupsBefore: number }[] = [];
  const n = pattern.length;

  const escapeLiteral = (ch: string) => (SYNTAX.has(ch) ? `\\${ch}` : /[\p{L}\p{N}\s]/u.test(ch) ? ch : `\\u{${ch.codePointAt(0)!.toString(16)}}`);

  /** One escape sequence at pattern[i] === '\\'; returns [js, advance]. `inClass` limits what is allowed. */
  const escape = (at: number, inClass: boolean): [string, number] => {
    const c = pattern[at + 1];
    if (c === undefined) return invalid('bad escape (end of pattern)');
    const classItem = (body: string) => (inClass ? body : `[${body}]`);
    switch (c) {
      case 'd': return [classItem(digit), 2];
      case 'w': return [classItem(word), 2];
      case 's': return [classItem(space), 2];
      case 'D': return inClass ? (flags.ascii ? refuse('\\D inside a set') : [py().notDigit, 2]) : [`[^${digit}]`, 2];
      case 'W': return inClass ? refuse('\\W inside a set') : [`[^${word}]`, 2];
      case 'S': return inClass ? refuse('\\S inside a set') : [`[^${space}]`, 2];
      case 'b': return inClass ? ['\\x08', 2] : [boundary, 2];
      case 'B': return inClass ? refuse('\\B inside a set') : [notBoundary, 2];
      case 'A': return inClass ? refuse('\\A inside a set') : ['^', 2];
      case 'Z': return inClass ? refuse('\\Z inside a set') : ['$', 2];
      case 'n': return ['\\n', 2];
      case 't': return ['\\t', 2];
      case 'r': return ['\\r', 2];
      case 'f': return ['\\f', 2];
      case 'v': return ['\\v', 2];
      case 'a': return ['\\x07', 2];
      case 'x': {
        const hex = /^[0-9a-fA-F]{2}/.exec(pattern.slice(at + 2));
        return hex ? [`\\u{${hex[0]}}`, 4] : invalid('incomplete escape \\x');
      }
      case 'u': {
        const hex = /^[0-9a-fA-F]{4}/.exec(pattern.slice(at + 2));
        return hex ? [`\\u{${hex[0]}}`, 6] : invalid('incomplete escape \\u');
      }
      case 'U': {
        const hex = /^[0-9a-fA-F]{8}/.exec(pattern.slice(at + 2));
        return hex ? [`\\u{${parseInt(hex[0], 16).toString(16)}}`, 10] : invalid('incomplete escape \\U');
      }
      case 'N': return refuse('named character \\N{…}');
      default:
        break;
    }
    if (/[0-9]/.test(c)) {
      const octal = /^(0[0-7]{0,2}|[0-7]{3})/.exec(pattern.slice(at + 1));
      if (octal !== null && (c === '0' || octal[0].length === 3)) return [`\\u{${parseInt(octal[0], 8).toString(16)}}`, 1 + octal[0].length];
      if (inClass) return refuse('a back-reference inside a set');
      const ref = /^[1-9][0-9]?/.exec(pattern.slice(at + 1))!;
      return [`\\${ref[0]}`, 1 + ref[0].length];
    }
    if (/[A-Za-z]/.test(c)) return invalid(`bad escape \\${c}`);
    if (inClass && (c === '-' || c === ']' || c === '\\' || c === '^' || c === '[')) return [`\\${c}`, 2];
    const cp = pattern.codePointAt(at + 1)!;
    return [escapeLiteral(String.fromCodePoint(cp)), 1 + (cp > 0xffff ? 2 : 1)];
  };

  while (i < n) {
    const c = pattern[i]!;
    if (c === '\\') {
      const [js, adv] = escape(i, false);
      out += js;
      i += adv;
    } else if (c === '[') {
      let j = i + 1;
      let body = '';
      if (pattern[j] === '^') {
        body += '^';
        j++;
      }
      if (pattern[j] === ']') {
        body += '\\]';
        j++;
      }
      for (;;) {
        const d = pattern[j];
        if (d === undefined) invalid('unterminated character set');
        if (d === ']') break;
        if (d === '\\') {
          const [js, adv] = escape(j, true);
          body += js;
          j += adv;
        } else if (d === '[') {
          body += '\\[';
          j++;
        } else if (d === '&' && pattern[j + 1] === '&') refuse('set operation &&');
        else if (d === '-' && pattern[j + 1] === '-') refuse('set operation --');
        else {
          const cp = pattern.codePointAt(j)!;
          const ch = String.fromCodePoint(cp);
          body += ch === '/' || ch === '|' || ch === '{' || ch === '}' || ch === '(' || ch === ')' ? `\\${ch}` : ch;
          j += ch.length;
        }
      }
      // JS ignore-case inside sets mirrors Python's enough only without flags; same [..] text otherwise.
      out += `[${body}]`;
      i = j + 1;
    } else if (c === '(') {
      opens.push({ at: out.length, groupsBefore: groups });
      if (pattern[i + 1] !== '?') {
        groups++;
        out += '(';
        i++;
        continue;
      }
      const rest = pattern.slice(i);
      let m: RegExpExecArray | null;
      if ((m = /^\(\?P<([A-Za-z_]\w*)>/.exec(rest)) !== null) {
        groups++;
        out += `(?<${m[1]}>`;
        i += m[0].length;
      } else if ((m = /^\(\?P=([A-Za-z_]\w*)\)/.exec(rest)) !== null) {
        out += `\\k<${m[1]}>`;
        i += m[0].length;
      } else if ((m = /^\(\?#[^)]*\)/.exec(rest)) !== null) {
        opens.pop(); // a comment, not a group
        i += m[0].length;
      } else if ((m = /^\(\?(:|=|!|<=|<!)/.exec(rest)) !== null) {
        out += m[0];
        i += m[0].length;
      } else if (/^\(\?<[A-Za-z_]/.test(rest)) {
        const named = /^\(\?<([A-Za-z_]\w*)>/.exec(rest)!;
        groups++;
        out += named[0];
        i += named[0].length;
      } else if (rest.startsWith('(?>')) refuse('atomic group (?>…)');
      else if (rest.startsWith('(?(')) refuse('conditional (?(…)…)');
      else refuse(`group syntax ${rest.slice(0, 6)}… (scoped flags or an unknown extension)`);
    } else if (c === '.') {
      out += flags.dotall ? '[\\s\\S]' : '[^\\n]';
      i++;
    } else if (c === '$') {
      // Python: end of string or just before a final "\n" (MULTILINE: before any "\n"). JS `$` without m: end only.
      out += flags.multiline ? '(?=\\n|$)' : '(?=\\n?$)';
      i++;
    } else if (c === '^') {
      out += flags.multiline ? '(?:^|(?<=\\n))' : '^';
      i++;
    } else if (c === '{') {
      const q = /^\{(\d*)(,?)(\d*)\}/.exec(pattern.slice(i));
      if (q !== null && (q[1] !== '' || (q[2] === ',' && q[3] !== ''))) {
        out += `{${q[1] === '' ? '0' : q[1]}${q[2]}${q[3]}}`;
        i += q[0].length;
      } else {
        out += '\\{';
        i++;
      }
    } else if (c === '}' || c === ']') {
      // Literal outside a set in Python; JS's Unicode mode refuses them unescaped.
      out += `\\${c}`;
      i++;
    } else if ((c === '+' || c === '*' || c === '?' || c === '}') && pattern[i + 1] === '+') {
      refuse('possessive quantifier');
    } else if (c === '/') {
      out += '\\/';
      i++;
    } else if (c === ')') {
      const open = opens.pop() ?? { at: 0, groupsBefore: groups };
      const capturing = /^\((?!\?)|^\(\?<[A-Za-z_]/.test(out.slice(open.at));
      out += ')';
      i++;
      const quantifier = quantifierAt(pattern, i);
      if (quantifier !== null && matchesEmpty(out.slice(open.at))) {
        // Python repeats such a group differently from JS ('(?:[^a]??){1,3}' on ' ': Python
        // finds '', ' ', '', JS finds ' ', ''): no translation gives Python's matches.
        refuse('a repeated group that can match the empty string');
      }
      if (quantifier !== null && quantifier.max > 1 && groups - open.groupsBefore > (capturing ? 1 : 0)) {
        // JS forgets a group's capture at each repetition of an enclosing group; Python keeps the
        // last value ('(?:(a)|b)+' on 'ab': group 1 is 'a' in Python, unset in JS).
        refuse('a capturing group inside a repeated group');
      }
    } else {
      const cp = pattern.codePointAt(i)!;
      const ch = String.fromCodePoint(cp);
      out += ch;
      i += ch.length;
    }
  }
  let regex: RegExp;
  try {
    regex = new RegExp(out, `gu${flags.ignorecase ? 'i' : ''}`);
  } catch (error) {
    // The translation is faithful for valid patterns, so a JS syntax error means Python rejects it too.
    return invalid((error as Error).message);
  }
  const compiled = { source: pattern, regex, groups };
  cache.set(key, compiled);
  return compiled;
}

/** The quantifier starting at `pattern[i]`, with its largest count, or null (a `{` that is not one is a literal, as in Python). */
function quantifierAt(pattern: string, i: number): { max: number } | null {
  const c = pattern[i];
  if (c === '*' || c === '+') return { max: Infinity };
  if (c === '?') return { max: 1 };
  const q = c === '{' ? /^\{(\d*)(,?)(\d*)\}/.exec(pattern.slice(i)) : null;
  if (q === null || !(q[1] !== '' || (q[2] === ',' && q[3] !== ''))) return null;
  return { max: q[2] === '' ? Number(q[1]) : q[3] === '' ? Infinity : Number(q[3]) };
}

/** Whether a translated group can match the empty string, taken alone (a group that cannot be tested alone, e.g. one with a backreference, counts as able). */
function matchesEmpty(group: string): boolean {
  try {
    return new RegExp(`^${group}$`, 'u').test('');
  } catch {
    return true;
  }
}
