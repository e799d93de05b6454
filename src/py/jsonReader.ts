/**
 * The one hand-written JSON reader, for JSON as Python's `json` module reads it:
 * bare NaN / Infinity / -Infinity accepted, control characters inside strings
 * refused (json.loads' default `strict=True`), every number handed over as written.
 * What it builds is the caller's: the lossless tree of orderedJson.ts (key order and
 * number spelling kept, for lm-eval's doc hashes) or Python values for the template
 * engine (pyjson.ts: floats as PyFloat, ints as numbers).
 *
 * Why hand-written: JSON.parse rejects the bare tokens, loses the int/float spelling
 * and moves integer-like keys to the front of an object, and Node 20 has no
 * source-text access in revivers; no installed library keeps all three.
 */
import { BadInputError, type InputLocation } from '../errors.ts';

/** Makes the caller's value out of each JSON value the reader finishes. */
export interface JsonBuilder<T> {
  /** The members in the order written (a repeated key appears twice; Python keeps the last). */
  object(entries: [string, T][]): T;
  array(items: T[]): T;
  string(value: string): T;
  /** A number token as written: digits as in the text, or NaN, Infinity, -Infinity. */
  number(raw: string): T;
  bool(value: boolean): T;
  null(): T;
}

const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const NON_FINITE = ['NaN', 'Infinity', '-Infinity'] as const;
/** Python's json raises RecursionError near its stack limit; a bound keeps a hostile file from overflowing ours. */
const MAX_DEPTH = 512;

class JsonReader<T> {
  pos = 0;
  /** Start offsets of the top-level array's items (to report the line of item i). */
  readonly itemStarts: number[] = [];
  constructor(
    readonly text: string,
    readonly build: JsonBuilder<T>,
    readonly where: InputLocation,
  ) {}

  fail(message: string): never {
    const before = this.text.slice(0, this.pos);
    const line = (this.where.line ?? 1) + (before.match(/\n/g)?.length ?? 0);
    throw new BadInputError(`malformed JSON at character ${this.pos}: ${message}`, { ...this.where, line });
  }

  skip(): void {
    const t = this.text;
    while (this.pos < t.length) {
      const c = t.charCodeAt(this.pos);
      if (c === 32 || c === 10 || c === 13 || c === 9) this.pos++;
      else break;
    }
  }

  value(depth: number): T {
    if (depth > MAX_DEPTH) this.fail(`nesting deeper than ${MAX_DEPTH}`);
    this.skip();
    const t = this.text;
    const c = t[this.pos];
    if (c === '{') return this.object(depth);
    if (c === '[') return this.array(depth);
    if (c === '"') return this.build.string(this.string());
    if (t.startsWith('true', this.pos)) return (this.pos += 4), this.build.bool(true);
    if (t.startsWith('false', this.pos)) return (this.pos += 5), this.build.bool(false);
    if (t.startsWith('null', this.pos)) return (this.pos += 4), this.build.null();
    for (const token of NON_FINITE) {
      if (t.startsWith(token, this.pos)) return (this.pos += token.length), this.build.number(token);
    }
    NUMBER.lastIndex = this.pos;
    const m = NUMBER.exec(t);
    if (m === null) this.fail(c === undefined ? 'unexpected end of input' : `unexpected ${JSON.stringify(c)}`);
    this.pos += m[0].length;
    return this.build.number(m[0]);
  }

  string(): string {
    const t = this.text;
    const start = this.pos;
    let i = start + 1;
    let escaped = false;
    for (;;) {
      const c = t.charCodeAt(i);
      if (Number.isNaN(c)) this.fail('unterminated string');
      if (c === 92) {
        escaped = true;
        i += 2;
        continue;
      }
      if (c === 34) break;
      if (c < 32) {
        this.pos = i;
        this.fail('control character inside a string');
      }
      i++;
    }
    this.pos = i + 1;
    if (!escaped) return t.slice(start + 1, i);
    try {
      return JSON.parse(t.slice(start, i + 1)) as string;
    } catch {
      this.pos = start;
      return this.fail('bad escape in string');
    }
  }

  object(depth: number): T {
    this.pos++;
    const entries: [string, T][] = [];
    this.skip();
    if (this.text[this.pos] === '}') return this.pos++, this.build.object(entries);
    for (;;) {
      this.skip();
      if (this.text[this.pos] !== '"') this.fail('expected a key');
      const key = this.string();
      this.skip();
      if (this.text[this.pos] !== ':') this.fail("expected ':'");
      this.pos++;
      entries.push([key, this.value(depth + 1)]);
      this.skip();
      const c = this.text[this.pos++];
      if (c === '}') return this.build.object(entries);
      if (c !== ',') (this.pos--, this.fail("expected ',' or '}'"));
    }
  }

  array(depth: number): T {
    this.pos++;
    const items: T[] = [];
    this.skip();
    if (this.text[this.pos] === ']') return this.pos++, this.build.array(items);
    for (;;) {
      if (depth === 0) {
        this.skip();
        this.itemStarts.push(this.pos);
      }
      items.push(this.value(depth + 1));
      this.skip();
      const c = this.text[this.pos++];
      if (c === ']') return this.build.array(items);
      if (c !== ',') (this.pos--, this.fail("expected ',' or ']'"));
    }
  }

  /** The whole text as one value (whitespace around it allowed). */
  document(): T {
    const value = this.value(0);
    this.skip();
    if (this.pos !== this.text.length) this.fail('trailing characters after the JSON value');
    return value;
  }
}

/** Reads one JSON document. `where.line` is the line the text starts on (errors name file and line). */
export function readJson<T>(text: string, build: JsonBuilder<T>, where: InputLocation = {}): T {
  return new JsonReader(text, build, where).document();
}

/** Reads the JSON value at the start of `text` (after whitespace), whatever follows it (a file's first record, from its head). */
export function readLeadingJson<T>(text: string, build: JsonBuilder<T>, where: InputLocation = {}): T {
  return new JsonReader(text, build, where).value(0);
}

/** Reads a top-level JSON array, each item with the 1-based line it starts on. */
export function readJsonArray<T>(text: string, build: JsonBuilder<T>, isArray: (value: T) => T[] | null, where: InputLocation = {}): { value: T; line: number }[] {
  const reader = new JsonReader(text, build, where);
  const items = isArray(reader.document());
  if (items === null) throw new BadInputError('expected a JSON array', { ...where, line: 1 });
  let line = 1;
  let offset = 0;
  return items.map((value, i) => {
    const start = reader.itemStarts[i]!;
    for (; offset < start; offset++) if (text.charCodeAt(offset) === 10) line++;
    return { value, line };
  });
}
