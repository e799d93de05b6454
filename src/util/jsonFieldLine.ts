/**
 * The line a field of a whole-JSON document starts on, for errors that name the field by its path
 * (`a.b[2].c`, as the importers' messages write it). JSON.parse keeps no positions, so when such an
 * error is raised the text is scanned once more along the path: strings (with their escapes), objects
 * and arrays are stepped over without building anything, and only the members on the path are entered.
 * It runs only on the error path; a file that imports never pays for it.
 *
 * A line is given only where it is certain: a member written twice is found where JSON.parse (and
 * Python) take it, at its last occurrence; a path that two keys could spell (`f1.micro` as one key or
 * two) and that both spell to different places gets no line. A field that is not in the text (a
 * "missing field") gets the line of the object or array that should hold it, when that is there.
 */
import { readFile } from 'node:fs/promises';
import { BadInputError, type InputLocation } from '../errors.ts';

/** Where a path led: the offset of its value, or of its parent's when the last step is missing. */
interface Found {
  at: number;
  exact: boolean;
}

/**
 * The 1-based line on which the value at `field` starts in `text`, else the line of its parent container
 * when only the last step is missing, else undefined. `firstLine` is the line the text starts on.
 */
export function fieldLine(text: string, field: string, firstLine = 1): number | undefined {
  const root = skipSpace(text, text.charCodeAt(0) === 0xfeff ? 1 : 0);
  if (root >= text.length) return undefined;
  const found = follow(text, root, field);
  if (found === undefined) return undefined;
  let line = firstLine;
  for (let i = text.indexOf('\n'); i !== -1 && i < found.at; i = text.indexOf('\n', i + 1)) line++;
  return line;
}

/**
 * The error with the line of its field in `text` added, when it is a bad-input error about this file (and
 * member) that names a field and no line; any other error is returned as it is.
 */
export function withFieldLine(error: unknown, text: string, where: { file: string; member?: string }): unknown {
  if (!(error instanceof BadInputError)) return error;
  const { file, member, line, field } = error.where;
  if (line !== undefined || field === undefined || file !== where.file || member !== where.member) return error;
  const found = fieldLine(text, field);
  return found === undefined ? error : relocated(error, { ...error.where, line: found });
}

/** The same error (its class, detail and cause) at another location. */
export function relocated(error: BadInputError, where: InputLocation): BadInputError {
  const Kind = error.constructor as new (detail: string, where: InputLocation, options?: { cause?: unknown }) => BadInputError;
  return new Kind(error.detail, where, error.cause === undefined ? undefined : { cause: error.cause });
}

/** Runs the checks of a document read from `text`, adding the line to a bad-input error that names a field of it. */
export function checkingFieldLines<T>(text: string, where: { file: string; member?: string }, check: () => T): T {
  try {
    return check();
  } catch (error) {
    throw withFieldLine(error, text, where);
  }
}

/**
 * An error naming a field of one record of a whole-JSON list at the line the record starts on (`starts`: each
 * record's first line, in order), moved to the line of the field itself: a pretty-printed record spans lines. A
 * record that shares its first line with another, or a field not found in it, keeps the line it had.
 */
export function withRecordFieldLine(error: unknown, text: string, file: string, starts: readonly number[]): unknown {
  if (!(error instanceof BadInputError)) return error;
  const { line, field } = error.where;
  if (error.where.file !== file || error.where.member !== undefined || line === undefined || field === undefined) return error;
  const index = starts.indexOf(line);
  if (index < 0 || starts.lastIndexOf(line) !== index) return error;
  const found = fieldLine(text, `[${index}].${field}`);
  return found === undefined || found === line ? error : relocated(error, { ...error.where, line: found });
}

/**
 * `withFieldLine` for an error about a whole-JSON file no longer held when it is raised (`isJsonFile` says which
 * files are): the file is read again, only now that the input is already refused.
 */
export async function withFieldLineFromFile(error: unknown, isJsonFile: (file: string) => boolean): Promise<unknown> {
  if (!(error instanceof BadInputError)) return error;
  const { file, member, line, field } = error.where;
  if (file === undefined || member !== undefined || line !== undefined || field === undefined || !isJsonFile(file)) return error;
  const text = await readFile(file, 'utf8').catch(() => undefined);
  return text === undefined ? error : withFieldLine(error, text, { file });
}

/**
 * Each element of the top-level JSON array `text` holds: the offset it starts at and its 1-based line, in one pass.
 * A reader that names many records (a `--skip-bad` import of a long array) looks each field up within its element's
 * text, from the element's line, instead of scanning the file from its start once a record.
 */
export function arrayElements(text: string): { at: number; line: number }[] {
  const elements: { at: number; line: number }[] = [];
  let i = skipSpace(text, text.charCodeAt(0) === 0xfeff ? 1 : 0);
  if (text[i] !== '[') return elements;
  i = skipSpace(text, i + 1);
  if (text[i] === ']') return elements;
  let line = 1;
  let counted = 0;
  while (i < text.length) {
    for (let nl = text.indexOf('\n', counted); nl !== -1 && nl < i; nl = text.indexOf('\n', nl + 1)) line++;
    counted = i;
    elements.push({ at: i, line });
    i = skipSpace(text, skipValue(text, i));
    if (text[i] !== ',') break;
    i = skipSpace(text, i + 1);
  }
  return elements;
}

function follow(text: string, at: number, rest: string): Found | undefined {
  if (rest === '') return { at, exact: true };
  const c = text[at];
  if (c === '{') return followObject(text, at, rest);
  if (c === '[') return followArray(text, at, rest);
  return undefined;
}

function followObject(text: string, open: number, rest: string): Found | undefined {
  // Every key the rest of the path may start with, at its last occurrence (the one a parser keeps).
  const candidates = new Map<string, number>();
  let i = skipSpace(text, open + 1);
  if (text[i] === '}') i = text.length;
  while (i < text.length && text[i] === '"') {
    const keyEnd = skipString(text, i);
    const key = decodeKey(text.slice(i, keyEnd));
    i = skipSpace(text, keyEnd);
    if (text[i] !== ':') return undefined;
    const value = skipSpace(text, i + 1);
    if (key !== undefined && rest.startsWith(key) && (rest.length === key.length || rest[key.length] === '.' || rest[key.length] === '[')) {
      candidates.set(key, value);
    }
    i = skipSpace(text, skipValue(text, value));
    if (text[i] !== ',') break;
    i = skipSpace(text, i + 1);
  }
  const results: Found[] = [];
  for (const [key, value] of candidates) {
    const after = rest.slice(key.length);
    const found = follow(text, value, after.startsWith('.') ? after.slice(1) : after);
    if (found !== undefined) results.push(found);
  }
  const exact = distinct(results.filter((r) => r.exact));
  if (exact.length > 0) return exact.length === 1 ? exact[0] : undefined;
  const parents = distinct(results);
  if (parents.length > 0) return parents.length === 1 ? parents[0] : undefined;
  // The last step is missing from this object: the object is the field's parent.
  return candidates.size === 0 && !/[.[]/.test(rest) ? { at: open, exact: false } : undefined;
}

function followArray(text: string, open: number, rest: string): Found | undefined {
  const step = /^\[(\d+)\]/.exec(rest);
  if (step === null) return undefined;
  const index = Number(step[1]);
  const after = rest.slice(step[0].length);
  let i = skipSpace(text, open + 1);
  if (text[i] === ']') return after === '' ? { at: open, exact: false } : undefined;
  for (let n = 0; i < text.length; n++) {
    if (n === index) return follow(text, i, after.startsWith('.') ? after.slice(1) : after);
    i = skipSpace(text, skipValue(text, i));
    if (text[i] !== ',') break;
    i = skipSpace(text, i + 1);
  }
  return after === '' ? { at: open, exact: false } : undefined;
}

function distinct(found: Found[]): Found[] {
  return found.filter((f, i) => found.findIndex((g) => g.at === f.at) === i);
}

function decodeKey(quoted: string): string | undefined {
  if (!quoted.includes('\\')) return quoted.slice(1, -1);
  try {
    return JSON.parse(quoted) as string;
  } catch {
    return undefined;
  }
}

function skipSpace(text: string, i: number): number {
  while (i < text.length) {
    const c = text.charCodeAt(i);
    if (c === 32 || c === 10 || c === 13 || c === 9) i++;
    else break;
  }
  return i;
}

/** The offset just past the string that opens at `i` (escapes stepped over). */
function skipString(text: string, i: number): number {
  for (let j = i + 1; j < text.length; j++) {
    const c = text.charCodeAt(j);
    if (c === 92 /* \ */) j++;
    else if (c === 34 /* " */) return j + 1;
  }
  return text.length;
}

/** The offset just past the value that starts at `i`; nesting is counted, not recursed, so depth costs nothing. */
function skipValue(text: string, i: number): number {
  const first = text[i];
  if (first === '"') return skipString(text, i);
  if (first !== '{' && first !== '[') {
    // A number, true, false, null, or Python's NaN / Infinity / -Infinity.
    while (i < text.length && !',}] \n\r\t'.includes(text[i]!)) i++;
    return i;
  }
  let depth = 0;
  for (let j = i; j < text.length; j++) {
    const c = text.charCodeAt(j);
    if (c === 34) j = skipString(text, j) - 1;
    else if (c === 123 || c === 91) depth++;
    else if (c === 125 || c === 93) {
      depth--;
      if (depth === 0) return j + 1;
    }
  }
  return text.length;
}
