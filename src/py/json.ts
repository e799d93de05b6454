/**
 * JSON as Python's `json` module reads and writes it, for documents whose hashes and
 * renderings must match lm-eval's. `JSON.parse` loses the int/float distinction
 * (`1.0` becomes `1`, which then renders and hashes as `1`), so documents are parsed
 * here with floats kept as `PyFloat`. Writing follows `json.dumps(ensure_ascii=False)`,
 * with or without `indent`.
 */
import type { InputLocation } from '../errors.ts';
import { PyFloat } from './values.ts';
import { pyFloatRepr } from './float.ts';
import { readJson, type JsonBuilder } from './jsonReader.ts';
import { isWellFormed, pyJsonString, setMember } from './orderedJson.ts';

/** Python's values: a number with a fraction or exponent (or NaN/Infinity) is a float, any other an int. */
const PYTHON_VALUES: JsonBuilder<unknown> = {
  object(entries) {
    const out: Record<string, unknown> = {};
    for (const [key, value] of entries) setMember(out, key, value);
    return out;
  },
  array: (items) => items,
  string: (value) => value,
  number(raw) {
    // As json.loads: a fraction, an exponent or NaN/Infinity makes a float.
    if (/[.eEIN]/.test(raw)) return new PyFloat(Number(raw));
    const n = Number(raw);
    return Number.isSafeInteger(n) ? n : BigInt(raw);
  },
  bool: (value) => value,
  null: () => null,
};

/** Parses JSON text; floats become `PyFloat`, ints stay numbers (bigint beyond 2^53), NaN/Infinity are accepted. */
export function parsePyJson(text: string, where: InputLocation = {}): unknown {
  return readJson(text, PYTHON_VALUES, where);
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
  if (s.length < 64) return pyJsonString(s);
  if (s !== lastString) {
    lastString = s;
    lastEscaped = pyJsonString(s);
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
      out.push(pyJsonString(k), ': ');
      write(v, indent, inner, out);
    });
    out.push(indent === undefined ? '}' : `\n${pad}}`);
  } else out.push(pyJsonString(String(value)));
}

function floatToken(x: number): string {
  if (Number.isNaN(x)) return 'NaN';
  if (x === Infinity) return 'Infinity';
  if (x === -Infinity) return '-Infinity';
  return pyFloatRepr(x);
}

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
