/**
 * The metadata fields the items page can filter on: every field of every document of a
 * (run, task), nested ones too (`meta.source`), found in DuckDB one level at a time: the keys
 * under each object found at the level above, in any document. A field is a value that is not
 * an object (a string, number, boolean, null or array: an array is compared as its JSON text);
 * a key that holds an object in some documents and a value in others is both a field and a
 * level to look inside. Each field is addressed by a JSON Pointer (RFC 6901: `/meta/source`,
 * `~0` for `~`, `~1` for `/`), which DuckDB's JSON functions read, so no key's spelling can
 * change the path it names.
 */
import { queryRows, sqlString } from '../util/duckdb.ts';

/** Levels looked into (a document's own keys are level 1). */
export const META_DEPTH = 4;
/** Fields offered at most (a task whose documents have more says how many were left out). */
export const META_FIELDS = 500;

export interface MetaFields {
  /** What the page shows and a request names: keys joined by dots (the pointer where a key holds a dot). */
  names: string[];
  /** The JSON Pointer of each field, in the same order. */
  pointers: string[];
  /** Fields found beyond META_FIELDS (not offered), or levels beyond META_DEPTH that hold objects. */
  leftOut: number;
  deeper: boolean;
}

function escapeKey(key: string): string {
  return key.replace(/~/g, '~0').replace(/\//g, '~1');
}

/** `documents`: a SQL relation with a `doc_json` column (the scope's first request of each document). */
export async function findMetaFields(documents: string): Promise<MetaFields> {
  const docs = `(SELECT doc_json FROM ${documents} WHERE json_valid(doc_json))`;
  const fields: { keys: string[]; pointer: string }[] = [];
  let frontier: { keys: string[]; pointer: string }[] = [{ keys: [], pointer: '' }];
  let deeper = false;
  for (let depth = 1; frontier.length > 0; depth++) {
    if (depth > META_DEPTH) {
      deeper = true;
      break;
    }
    // The keys under each object of this level, in any document (every path a constant: DuckDB reads each
    // document once per query, where a path computed per row would parse it once per key).
    const keyed = await queryRows<{ i: number; k: string }>(
      frontier.map((f, i) => `SELECT DISTINCT ${i} AS i, unnest(json_keys(doc_json, ${sqlString(f.pointer)})) AS k FROM ${docs} WHERE json_type(doc_json, ${sqlString(f.pointer)}) = 'OBJECT'`).join(' UNION ALL ') + ' ORDER BY i, k',
    );
    if (keyed.length === 0) break;
    const children = keyed.map((r) => {
      const parent = frontier[Number(r.i)]!;
      return { keys: [...parent.keys, r.k], pointer: `${parent.pointer}/${escapeKey(r.k)}` };
    });
    // Which of them hold an object in some document (a level to look inside), and which a value in some (a field).
    const types = `json_type(doc_json, [${children.map((c) => sqlString(c.pointer)).join(', ')}])`;
    const [kinds] = await queryRows<Record<string, boolean | null>>(
      `SELECT ${children.map((_, j) => `bool_or(t[${j + 1}] = 'OBJECT') AS o${j}, bool_or(t[${j + 1}] <> 'OBJECT') AS l${j}`).join(', ')} FROM (SELECT ${types} AS t FROM ${docs})`,
    );
    const next: typeof frontier = [];
    children.forEach((child, j) => {
      if (kinds?.[`l${j}`]) fields.push(child);
      if (kinds?.[`o${j}`]) next.push(child);
    });
    frontier = next;
  }
  const seen = new Set<string>();
  const kept: { name: string; pointer: string }[] = [];
  for (const f of fields) {
    const name = f.keys.some((k) => k.includes('.')) || f.keys.length === 0 ? f.pointer : f.keys.join('.');
    if (seen.has(name)) continue;
    seen.add(name);
    kept.push({ name, pointer: f.pointer });
  }
  // Shallow fields first (a document's own keys are what a user looks for first), then by name.
  kept.sort((a, b) => a.pointer.split('/').length - b.pointer.split('/').length || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const offered = kept.slice(0, META_FIELDS);
  return { names: offered.map((f) => f.name), pointers: offered.map((f) => f.pointer), leftOut: kept.length - offered.length, deeper };
}
