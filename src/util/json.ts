/**
 * JSON as Python writes it: `json.dumps` emits bare NaN, Infinity and -Infinity,
 * which JSON.parse rejects. These tokens are rewritten (outside strings only) to
 * marker strings that a reviver turns back into numbers. Errors name file and line.
 */
import { BadInputError, type InputLocation } from '../errors.ts';

/** The marker as parsed; it is written escaped (JSON forbids a raw control character in a string). */
const MARK = '\u0000lmaudit:';
const MARK_ESCAPED = '\\u0000lmaudit:';
const TOKENS: Record<string, number> = { NaN: Number.NaN, Infinity: Number.POSITIVE_INFINITY, '-Infinity': Number.NEGATIVE_INFINITY };

function revive(_key: string, value: unknown): unknown {
  if (typeof value === 'string' && value.startsWith(MARK)) return TOKENS[value.slice(MARK.length)];
  return value;
}

/** Rewrites bare NaN/Infinity tokens outside strings; returns null when there are none. */
function rewriteNonFinite(text: string): string | null {
  if (!text.includes('NaN') && !text.includes('Infinity')) return null;
  let out = '';
  let last = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92 /* \ */) i++;
      else if (c === 34 /* " */) inString = false;
      continue;
    }
    if (c === 34) {
      inString = true;
      continue;
    }
    for (const token of ['-Infinity', 'Infinity', 'NaN']) {
      if (text.startsWith(token, i)) {
        out += `${text.slice(last, i)}"${MARK_ESCAPED}${token}"`;
        i += token.length - 1;
        last = i + 1;
        break;
      }
    }
  }
  return out + text.slice(last);
}

/** Parses JSON that may contain Python's NaN/Infinity tokens. `where.line` is the line the text starts on. */
export function parsePythonJson(text: string, where: InputLocation = {}): unknown {
  try {
    const rewritten = rewriteNonFinite(text);
    return rewritten === null ? JSON.parse(text) : JSON.parse(rewritten, revive);
  } catch (error) {
    const message = (error as Error).message;
    // V8 names the position for some errors only; the scanner finds it for all.
    const offset = syntaxErrorOffset(text);
    const line = (where.line ?? 1) + (text.slice(0, offset).match(/\n/g)?.length ?? 0);
    throw new BadInputError(`malformed JSON (${message.replace(/\s+/g, ' ').slice(0, 160)})`, { ...where, line });
  }
}

/** Serialises a parsed value back to JSON text, keeping NaN/Infinity as Python's tokens. */
export function toPythonJson(value: unknown): string {
  let hasNonFinite = false;
  const text = JSON.stringify(value, (_k, v) => {
    if (typeof v === 'number' && !Number.isFinite(v)) {
      hasNonFinite = true;
      return `${MARK}${Number.isNaN(v) ? 'NaN' : v > 0 ? 'Infinity' : '-Infinity'}`;
    }
    return v;
  });
  if (!hasNonFinite) return text ?? 'null';
  return text.replace(/"\\u0000lmaudit:(NaN|-?Infinity)"/g, '$1');
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The offset of the first JSON syntax error in `text` (Python's dialect: NaN and
 * ±Infinity allowed). Used only after JSON.parse has failed, to name the line.
 */
export function syntaxErrorOffset(text: string): number {
  let i = 0;
  const ws = () => {
    while (i < text.length && ' \t\n\r'.includes(text[i]!)) i++;
  };
  const fail = (): never => {
    throw i;
  };
  const literal = (word: string) => (text.startsWith(word, i) ? (i += word.length) : fail());
  const string = () => {
    i++;
    while (i < text.length && text[i] !== '"') {
      if (text.charCodeAt(i) < 0x20) fail();
      i += text[i] === '\\' ? 2 : 1;
    }
    if (i >= text.length) fail();
    i++;
  };
  const value = (): void => {
    ws();
    const c = text[i];
    if (c === '{') {
      i++;
      ws();
      if (text[i] === '}') return void i++;
      for (;;) {
        ws();
        if (text[i] !== '"') fail();
        string();
        ws();
        if (text[i] !== ':') fail();
        i++;
        value();
        ws();
        if (text[i] === ',') i++;
        else if (text[i] === '}') return void i++;
        else fail();
      }
    }
    if (c === '[') {
      i++;
      ws();
      if (text[i] === ']') return void i++;
      for (;;) {
        value();
        ws();
        if (text[i] === ',') i++;
        else if (text[i] === ']') return void i++;
        else fail();
      }
    }
    if (c === '"') return string();
    if (c === 't') return void literal('true');
    if (c === 'f') return void literal('false');
    if (c === 'n') return void literal('null');
    if (c === 'N') return void literal('NaN');
    if (c === 'I') return void literal('Infinity');
    const number = /^-?(?:Infinity|(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?)/.exec(text.slice(i, i + 400));
    if (number === null) fail();
    i += number![0].length;
  };
  try {
    value();
    ws();
    return i < text.length ? i : text.length;
  } catch (offset) {
    return typeof offset === 'number' ? Math.min(offset, text.length) : 0;
  }
}
