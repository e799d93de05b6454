/**
 * JSON as Python writes it: `json.dumps` emits bare NaN, Infinity and -Infinity,
 * which JSON.parse rejects. These tokens are rewritten (outside strings only) to
 * marker strings that a reviver turns back into numbers. Errors name file and line.
 */
import { BadInputError, type InputLocation } from '../errors.ts';
import { parseOrdered } from '../py/orderedJson.ts';

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
    // V8 names the position for some errors only: the lossless reader (slower, only on this
    // path) finds the exact line and says what it expected there.
    parseOrdered(text, where);
    throw new BadInputError(`malformed JSON (${(error as Error).message.replace(/\s+/g, ' ').slice(0, 160)})`, where);
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

/** A stored JSON text read as an object (a document's doc_json): null when absent, not JSON, or not an object. */
export function parseJsonObject(text: string | null): Record<string, unknown> | null {
  if (text === null) return null;
  try {
    const value: unknown = JSON.parse(text);
    return isPlainObject(value) ? value : null;
  } catch {
    return null;
  }
}
