/**
 * JSON and JSON Lines rows as Hugging Face `datasets` (5.x, the json builder lm-eval's `dataset_path: json` uses)
 * hands them over: one table, so every row has every column, in the order the columns first appear, a missing one
 * None; a column (or list, or struct field) holding ints and floats is float throughout (1 reads 1.0, and a template
 * prints "1.0"); nested mappings with the same keys take the first one's key order. Where the types conflict (a
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
  if (v instanceof PyFloat) return { t: 'float' };
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

/** Whether conforming to the schema changes any value (most files are uniform already: leave their rows alone). */
function changes(s: Schema): boolean {
  if (s.t === 'float') return true;
  if (s.t === 'list') return changes(s.item);
  if (s.t === 'struct') return true;
  return false;
}

function conform(v: unknown, s: Schema): unknown {
  if (v === null || v === undefined) return v === undefined ? null : v;
  switch (s.t) {
    case 'float':
      return typeof v === 'number' ? new PyFloat(v) : typeof v === 'bigint' ? new PyFloat(Number(v)) : v;
    case 'list':
      return changes(s.item) ? (v as unknown[]).map((x) => conform(x, s.item)) : v;
    case 'struct': {
      const out: Doc = {};
      for (const k of s.keys) out[k] = conform((v as Doc)[k], s.fields.get(k)!);
      return out;
    }
    default:
      return v;
  }
}

export function unifyRows(rows: Doc[]): Doc[] {
  const columns = new Map<string, Schema>();
  let sameKeys = true;
  const first = rows.length > 0 ? Object.keys(rows[0]!) : [];
  for (const row of rows) {
    const keys = Object.keys(row);
    if (keys.length !== first.length || keys.some((k, i) => k !== first[i])) sameKeys = false;
    for (const k of keys) columns.set(k, merge(columns.get(k) ?? NULL, schemaOf(row[k])));
  }
  const names = [...columns.keys()];
  if (sameKeys && !names.some((k) => changes(columns.get(k)!))) return rows;
  return rows.map((row) => {
    const out: Doc = {};
    for (const k of names) out[k] = conform(row[k], columns.get(k)!);
    return out;
  });
}

