/**
 * JSON as Python's `json` module reads and writes it, for documents whose hashes and
 * renderings must match lm-eval's. `JSON.parse` loses the int/float distinction
 * (`1.0` becomes `1`, which then renders and hashes as `1`), so documents are parsed
 * here with floats kept as `PyFloat`. Writing follows `json.dumps(ensure_ascii=False)`,
 * with or without `indent`.
 */
import { BadInputError, type InputLocation } from '../errors.ts';
import { PyFloat } from '../prompt/jinja/values.ts';
import { pyFloatRepr } from '../prompt/jinja/pyfloat.ts';

/** Parses JSON text; floats become `PyFloat`, ints stay numbers (bigint beyond 2^53), NaN/Infinity are accepted. */
export function parsePyJson(text: string, where: InputLocation = {}): unknown {
  const parser = new Parser(text, where);
  parser.ws();
  const value = parser.value();
  parser.ws();
  if (parser.i < text.length) parser.fail('unexpected text after the JSON value');
  return value;
}

class Parser {
  i = 0;
  constructor(
    readonly s: string,
    readonly where: InputLocation,
  ) {}

  fail(message: string): never {
    const line = (this.where.line ?? 1) + (this.s.slice(0, this.i).match(/\n/g)?.length ?? 0);
    throw new BadInputError(`malformed JSON (${message} at offset ${this.i})`, { ...this.where, line });
  }

  ws(): void {
    const s = this.s;
    while (this.i < s.length) {
      const c = s.charCodeAt(this.i);
      if (c === 32 || c === 10 || c === 13 || c === 9) this.i++;
      else break;
    }
  }

  value(): unknown {
    const c = this.s[this.i];
    if (c === '{') return this.object();
    if (c === '[') return this.array();
    if (c === '"') return this.string();
    if (c === 't' && this.s.startsWith('true', this.i)) return (this.i += 4), true;
    if (c === 'f' && this.s.startsWith('false', this.i)) return (this.i += 5), false;
    if (c === 'n' && this.s.startsWith('null', this.i)) return (this.i += 4), null;
    if (c === 'N' && this.s.startsWith('NaN', this.i)) return (this.i += 3), new PyFloat(Number.NaN);
    if (c === 'I' && this.s.startsWith('Infinity', this.i)) return (this.i += 8), new PyFloat(Infinity);
    if (c === '-' && this.s.startsWith('-Infinity', this.i)) return (this.i += 9), new PyFloat(-Infinity);
    return this.number();
  }

  object(): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    this.i++;
    this.ws();
    if (this.s[this.i] === '}') return this.i++, out;
    for (;;) {
      this.ws();
      if (this.s[this.i] !== '"') this.fail('expected a key');
      const key = this.string();
      this.ws();
      if (this.s[this.i] !== ':') this.fail("expected ':'");
      this.i++;
      this.ws();
      out[key] = this.value();
      this.ws();
      const c = this.s[this.i++];
      if (c === '}') return out;
      if (c !== ',') this.fail("expected ',' or '}'");
    }
  }

  array(): unknown[] {
    const out: unknown[] = [];
    this.i++;
    this.ws();
    if (this.s[this.i] === ']') return this.i++, out;
    for (;;) {
      this.ws();
      out.push(this.value());
      this.ws();
      const c = this.s[this.i++];
      if (c === ']') return out;
      if (c !== ',') this.fail("expected ',' or ']'");
    }
  }

  string(): string {
    const start = this.i;
    const s = this.s;
    let j = start + 1;
    let escaped = false;
    for (; j < s.length; j++) {
      const c = s.charCodeAt(j);
      if (c === 92) {
        escaped = true;
        j++;
      } else if (c === 34) break;
    }
    if (j >= s.length) this.fail('unterminated string');
    this.i = j + 1;
    const body = s.slice(start, j + 1);
    if (!escaped) return body.slice(1, -1);
    try {
      return JSON.parse(body) as string;
    } catch {
      this.i = start;
      return this.fail('bad string escape');
    }
  }

  number(): unknown {
    const m = /^-?(?:0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/.exec(this.s.slice(this.i, this.i + 400));
    if (m === null) this.fail('unexpected character');
    this.i += m[0].length;
    if (m[1] !== undefined || m[2] !== undefined) return new PyFloat(Number(m[0]));
    const n = Number(m[0]);
    return Number.isSafeInteger(n) ? n : BigInt(m[0]);
  }
}

/** `json.dumps(value, ensure_ascii=False)` (separators ", " and ": "), or with `indent`. */
export function dumpsPy(value: unknown, indent?: number): string {
  return dumpsPyParts(value, indent).join('');
}

/** The pieces `dumpsPy` joins; a repeated long string comes back as the same escaped string object each time. */
export function dumpsPyParts(value: unknown, indent?: number): string[] {
  const parts: string[] = [];
  write(value, indent, '', parts);
  return parts;
}

/** Multiple-choice requests repeat one long context per choice; escaping it once saves most of the work. */
let lastString = '';
let lastEscaped = '""';

function escapeString(s: string): string {
  if (s.length < 64) return JSON.stringify(s);
  if (s !== lastString) {
    lastString = s;
    lastEscaped = JSON.stringify(s);
  }
  return lastEscaped;
}

function write(value: unknown, indent: number | undefined, pad: string, out: string[]): void {
  if (value === null || value === undefined) out.push('null');
  else if (typeof value === 'string') out.push(escapeString(value));
  else if (typeof value === 'boolean') out.push(value ? 'true' : 'false');
  else if (typeof value === 'number') out.push(Number.isInteger(value) ? String(value) : floatToken(value));
  else if (typeof value === 'bigint') out.push(String(value));
  else if (value instanceof PyFloat) out.push(floatToken(value.value));
  else if (Array.isArray(value)) {
    if (value.length === 0) return void out.push('[]');
    const inner = indent === undefined ? '' : pad + ' '.repeat(indent);
    out.push(indent === undefined ? '[' : `[\n${inner}`);
    value.forEach((item, k) => {
      if (k > 0) out.push(indent === undefined ? ', ' : `,\n${inner}`);
      write(item, indent, inner, out);
    });
    out.push(indent === undefined ? ']' : `\n${pad}]`);
  } else if (typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>);
    if (entries.length === 0) return void out.push('{}');
    const inner = indent === undefined ? '' : pad + ' '.repeat(indent);
    out.push(indent === undefined ? '{' : `{\n${inner}`);
    entries.forEach(([k, v], n) => {
      if (n > 0) out.push(indent === undefined ? ', ' : `,\n${inner}`);
      out.push(JSON.stringify(k), ': ');
      write(v, indent, inner, out);
    });
    out.push(indent === undefined ? '}' : `\n${pad}}`);
  } else out.push(JSON.stringify(String(value)));
}

function floatToken(x: number): string {
  if (Number.isNaN(x)) return 'NaN';
  if (x === Infinity) return 'Infinity';
  if (x === -Infinity) return '-Infinity';
  return pyFloatRepr(x);
}

/** `String.prototype.isWellFormed` (Node 20 has it; the ES2022 type library does not declare it). */
const isWellFormed = (s: string): boolean => (s as unknown as { isWellFormed(): boolean }).isWellFormed();

/** True when `JSON.stringify` spells `value` exactly as Python's json would: only strings, ints, bools, null, lists, dicts. */
export function isJsonPlain(value: unknown): boolean {
  if (value === null || typeof value === 'boolean') return true;
  // JSON.stringify escapes a lone surrogate; Python (ensure_ascii=False) writes it raw.
  if (typeof value === 'string') return isWellFormed(value);
  if (typeof value === 'number') return Number.isSafeInteger(value);
  if (Array.isArray(value)) return value.every(isJsonPlain);
  if (typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype) {
    for (const key in value) if (!isJsonPlain((value as Record<string, unknown>)[key]) || !isWellFormed(key)) return false;
    return true;
  }
  return false;
}

/**
 * `json.dumps(value, indent=2, ensure_ascii=False)`. For plain values `JSON.stringify`
 * writes the same bytes (same layout, same escapes) natively; anything else (floats,
 * big ints, lone surrogates) goes through `dumpsPy`.
 */
export function dumpsPyIndent2(value: unknown): string {
  if (isJsonPlain(value)) return JSON.stringify(value, null, 2);
  return dumpsPy(value, 2);
}
