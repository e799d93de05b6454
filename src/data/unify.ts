/**
 * JSON and JSON Lines rows as Hugging Face `datasets` (5.x, the json builder lm-eval's `dataset_path: json` uses)
 * hands them over: one table, so every row has every column, in the order the columns first appear, a missing one
 * None; a column (or list, or struct field) holding ints and floats is float throughout (1 reads 1.0, and a template
 * prints "1.0"); NaN and Infinity, which JSON lacks, are None; nested mappings with the same keys take the first
 * one's key order. Where the types conflict (a
 * string and a number, a bool and an int, nested mappings with different keys) `datasets` keeps each value as
 * written (its Json feature), and so does this.
 */
import { PyFloat } from '../py/values.ts';

type Doc = Record<string, unknown>;

type Schema =
  | { t: 'null' | 'bool' | 'int' | 'float' | 'str' | 'raw' }
  | { t: 'list'; item: Schema }
  | { t: 'struct'; keys: string[]; fields: Map<string, Schema> };

const RAW: Schema = { t: 'raw' };
const NULL: Schema = { t: 'null' };

function schemaOf(v: unknown): Schema {
  if (v === null || v === undefined) return NULL;
  if (typeof v === 'boolean') return { t: 'bool' };
  if (typeof v === 'number' || typeof v === 'bigint') return { t: 'int' };
  if (v instanceof PyFloat) return Number.isFinite(v.value) ? { t: 'float' } : NULL;
  if (typeof v === 'string') return { t: 'str' };
  if (Array.isArray(v)) return { t: 'list', item: v.reduce<Schema>((s, x) => merge(s, schemaOf(x)), NULL) };
  if (typeof v === 'object' && Object.getPrototypeOf(v) === Object.prototype) {
    const keys = Object.keys(v);
    return { t: 'struct', keys, fields: new Map(keys.map((k) => [k, schemaOf((v as Doc)[k])])) };
  }
  return RAW;
}

function merge(a: Schema, b: Schema): Schema {
  if (a.t === 'null') return b;
  if (b.t === 'null') return a;
  if (a.t === 'raw' || b.t === 'raw') return RAW;
  if ((a.t === 'int' && b.t === 'float') || (a.t === 'float' && b.t === 'int')) return { t: 'float' };
  if (a.t === 'list' && b.t === 'list') return { t: 'list', item: merge(a.item, b.item) };
  if (a.t === 'struct' && b.t === 'struct') {
    if (a.keys.length !== b.keys.length || !a.keys.every((k) => b.fields.has(k))) return RAW;
    return { t: 'struct', keys: a.keys, fields: new Map(a.keys.map((k) => [k, merge(a.fields.get(k)!, b.fields.get(k)!)])) };
  }
  return a.t === b.t ? a : RAW;
}

function conform(v: unknown, s: Schema): unknown {
  if (v === null || v === undefined || (v instanceof PyFloat && !Number.isFinite(v.value))) return null;
  switch (s.t) {
    case 'float':
      return typeof v === 'number' ? new PyFloat(v) : typeof v === 'bigint' ? new PyFloat(Number(v)) : v;
    case 'list':
      return (v as unknown[]).map((x) => conform(x, s.item));
    case 'struct':
      // fromEntries defines each key as data: a key named __proto__ stays a key.
      return Object.fromEntries(s.keys.map((k) => [k, conform((v as Doc)[k], s.fields.get(k)!)]));
    default:
      return v;
  }
}

export function unifyRows(rows: Doc[]): Doc[] {
  const columns = new Map<string, Schema>();
  for (const row of rows) {
    for (const k of Object.keys(row)) columns.set(k, merge(columns.get(k) ?? NULL, schemaOf(row[k])));
  }
  const names = [...columns.keys()];
  const schemas = names.map((k) => columns.get(k)!);
  return rows.map((row) => Object.fromEntries(names.map((k, i) => [k, conform(Object.hasOwn(row, k) ? row[k] : null, schemas[i]!)])));
}
