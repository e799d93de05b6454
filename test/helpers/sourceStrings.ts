/**
 * The string literals of a source file, with comments (and Python docstrings) left out: what a program can use as a
 * path, as opposed to what a comment cites. A small scanner, not a parser: enough for the repository's own code,
 * and `unterminated` says when it lost its place, so a check built on it cannot pass by misreading a file.
 */

export type SourceLanguage = 'js' | 'py' | 'sh';

export interface SourceString {
  /** The literal's text between its quotes, escapes left as written; for a template literal, each piece between `${…}`. */
  text: string;
  line: number;
}

export interface ScannedSource {
  strings: SourceString[];
  /** The scanner ended inside a string, comment or template expression. */
  unterminated: boolean;
}

/** The language whose literal rules a file follows, from its name; undefined for files that are not code. */
export function sourceLanguage(file: string): SourceLanguage | undefined {
  if (/\.(?:[cm]?[jt]s|tsx|jsx)$/.test(file)) return 'js';
  if (file.endsWith('.py')) return 'py';
  if (file.endsWith('.sh')) return 'sh';
  return undefined;
}

export function scanSource(source: string, language: SourceLanguage): ScannedSource {
  if (language === 'js') return scanJs(source);
  if (language === 'py') return scanPy(source);
  return scanSh(source);
}

const lineAt = (source: string, end: number): number => {
  let n = 1;
  for (let i = 0; i < end; i++) if (source.charCodeAt(i) === 10) n++;
  return n;
};

/** JavaScript/TypeScript: '…', "…", `…${…}…` (nested), // and block comments, and regex literals (skipped). */
function scanJs(src: string): ScannedSource {
  const strings: SourceString[] = [];
  /** Brace depth at which each open `${` began; a `}` at that depth resumes the template. */
  const templates: number[] = [];
  let depth = 0;
  // A '/' starts a regex literal after an operator or an opening bracket, and a division after a value.
  let afterValue = false;
  let i = 0;
  const push = (from: number, to: number) => strings.push({ text: src.slice(from, to), line: lineAt(src, from) });
  /** Reads template text from i up to '`' (closing it) or '${'; returns false at end of input. */
  const templateText = (): boolean => {
    const start = i;
    while (i < src.length) {
      const c = src[i]!;
      if (c === '\\') i += 2;
      else if (c === '`') {
        push(start, i);
        i++;
        afterValue = true;
        return true;
      } else if (c === '$' && src[i + 1] === '{') {
        push(start, i);
        templates.push(depth);
        depth++;
        i += 2;
        afterValue = false;
        return true;
      } else i++;
    }
    return false;
  };
  while (i < src.length) {
    const c = src[i]!;
    const next = src[i + 1];
    if (c === '/' && next === '/') {
      const end = src.indexOf('\n', i);
      i = end === -1 ? src.length : end;
    } else if (c === '/' && next === '*') {
      const end = src.indexOf('*/', i + 2);
      if (end === -1) return { strings, unterminated: true };
      i = end + 2;
    } else if (c === "'" || c === '"') {
      const start = ++i;
      while (i < src.length && src[i] !== c && src[i] !== '\n') i += src[i] === '\\' ? 2 : 1;
      if (src[i] !== c) return { strings, unterminated: true };
      push(start, i++);
      afterValue = true;
    } else if (c === '`') {
      i++;
      if (!templateText()) return { strings, unterminated: true };
    } else if (c === '/' && !afterValue) {
      i++;
      let inClass = false;
      while (i < src.length && src[i] !== '\n' && (inClass || src[i] !== '/')) {
        if (src[i] === '[') inClass = true;
        else if (src[i] === ']') inClass = false;
        i += src[i] === '\\' ? 2 : 1;
      }
      if (src[i] !== '/') return { strings, unterminated: true };
      i++;
      while (/[a-z]/.test(src[i] ?? '')) i++;
      afterValue = true;
    } else if (c === '}' && templates.length > 0 && templates[templates.length - 1] === depth - 1) {
      templates.pop();
      depth--;
      i++;
      if (!templateText()) return { strings, unterminated: true };
    } else {
      if (c === '{') depth++;
      if (c === '}') depth--;
      // TypeScript's non-null `x!` leaves a value; `!x` and `!=` do not.
      if (!/\s/.test(c)) afterValue = /[\w$)\]}]/.test(c) || (c === '!' && afterValue && src[i + 1] !== '=');
      // `return /x/` and friends: a keyword ending in a letter is not a value.
      if (/[\w$]/.test(c) && !/[\w$]/.test(src[i + 1] ?? '')) {
        const word = /[\w$]+$/.exec(src.slice(Math.max(0, i - 10), i + 1))?.[0];
        if (word !== undefined && ['return', 'typeof', 'case', 'in', 'of', 'void', 'yield', 'await', 'delete', 'instanceof'].includes(word)) afterValue = false;
      }
      i++;
    }
  }
  return { strings, unterminated: templates.length > 0 };
}

/** Python: '…', "…", '''…''', """…""" with r/b/u/f prefixes, # comments; a triple-quoted string that begins its line is a docstring. */
function scanPy(src: string): ScannedSource {
  const strings: SourceString[] = [];
  let i = 0;
  while (i < src.length) {
    const c = src[i]!;
    if (c === '#') {
      const end = src.indexOf('\n', i);
      i = end === -1 ? src.length : end;
      continue;
    }
    const prefix = /^[rRbBuUfF]{0,2}(?=['"])/.exec(src.slice(i, i + 3));
    if (prefix !== null && (i === 0 || !/[\w]/.test(src[i - 1]!))) {
      const q = i + prefix[0].length;
      const quote = src[q]!;
      const triple = src.startsWith(quote.repeat(3), q);
      const close = triple ? quote.repeat(3) : quote;
      const start = q + close.length;
      let j = start;
      while (j < src.length && !src.startsWith(close, j) && (triple || src[j] !== '\n')) j += src[j] === '\\' ? 2 : 1;
      if (!src.startsWith(close, j)) return { strings, unterminated: true };
      const lineStart = src.lastIndexOf('\n', i - 1) + 1;
      const docstring = triple && src.slice(lineStart, i).trim() === '';
      if (!docstring) strings.push({ text: src.slice(start, j), line: lineAt(src, start) });
      i = j + close.length;
      continue;
    }
    i++;
  }
  return { strings, unterminated: false };
}

/** Shell: every word is potentially a path, so each line's text before a # comment counts as one string. */
function scanSh(src: string): ScannedSource {
  return {
    strings: src.split('\n').map((l, n) => ({ text: l.replace(/(^|\s)#.*$/, ''), line: n + 1 })),
    unterminated: false,
  };
}
