/**
 * JSON as Inspect (pydantic / Python json) writes it: bare `NaN`, `Infinity`
 * and `-Infinity` tokens outside strings. They are swapped for marker strings
 * (written as JSON escapes, so the text stays valid JSON) and revived as numbers.
 *
 * Why not src/util/json.ts's parsePythonJson: it inserts its marker's NUL as a
 * raw control character, which JSON.parse rejects inside a string, so any text
 * with a non-finite token fails there (reported to the lead). Errors here name
 * the file, member and line the same way.
 */
import { BadInputError, type InputLocation } from '../../errors.ts';

const MARK = '\u0000inspect:';
const TOKENS = ['-Infinity', 'Infinity', 'NaN'] as const;
const VALUES: Record<string, number> = { NaN: Number.NaN, Infinity: Number.POSITIVE_INFINITY, '-Infinity': Number.NEGATIVE_INFINITY };

function revive(_key: string, value: unknown): unknown {
  return typeof value === 'string' && value.startsWith(MARK) ? VALUES[value.slice(MARK.length)] : value;
}

function rewrite(text: string): string | null {
  if (!text.includes('NaN') && !text.includes('Infinity')) return null;
  const parts: string[] = [];
  let last = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92) i++;
      else if (c === 34) inString = false;
      continue;
    }
    if (c === 34) {
      inString = true;
      continue;
    }
    if (c !== 45 && c !== 73 && c !== 78) continue; // '-', 'I', 'N'
    const token = TOKENS.find((t) => text.startsWith(t, i));
    if (token === undefined) continue;
    parts.push(text.slice(last, i), `"\\u0000inspect:${token}"`);
    i += token.length - 1;
    last = i + 1;
  }
  parts.push(text.slice(last));
  return parts.join('');
}

export function parseInspectJson(text: string, where: InputLocation = {}): unknown {
  const rewritten = rewrite(text);
  const source = rewritten ?? text;
  try {
    return rewritten === null ? JSON.parse(text) : JSON.parse(rewritten, revive);
  } catch (error) {
    const message = (error as Error).message;
    const position = /position (\d+)/.exec(message);
    // The rewrite adds characters but no newlines, so lines counted in the rewritten text are the file's lines.
    const line = position === null ? where.line : (where.line ?? 1) + (source.slice(0, Number(position[1])).match(/\n/g)?.length ?? 0);
    throw new BadInputError(`malformed JSON (${message.replace(/\s+/g, ' ').slice(0, 160)})`, { ...where, ...(line === undefined ? {} : { line }) });
  }
}
