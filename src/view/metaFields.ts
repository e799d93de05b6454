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

const ESCAPED_KEY = `replace(replace(k, '~', '~0'), '/', '~1')`;

/** `documents`: a SQL relation with a `doc_json` column (the scope's first request of each document). */
export async function findMetaFields(documents: string): Promise<MetaFields> {
  const fields: { keys: string[]; pointer: string }[] = [];
  let frontier: { keys: string[]; pointer: string }[] = [{ keys: [], pointer: '' }];
  let deeper = false;
  for (let depth = 1; frontier.length > 0; depth++) {
    if (depth > META_DEPTH) {
      deeper = true;
      break;
    }
    const objects = frontier.map((f, i) => `(${i}, ${sqlString(f.pointer)})`).join(', ');
    const found = await queryRows<{ i: number; k: string; obj: boolean; leaf: boolean }>(`
      WITH objects(i, ptr) AS (VALUES ${objects}),
      keyed AS (
        SELECT o.i, o.ptr, d.doc_json, unnest(json_keys(d.doc_json, o.ptr)) AS k
        FROM (SELECT doc_json FROM ${documents} WHERE json_valid(doc_json)) d, objects o
        WHERE json_type(d.doc_json, o.ptr) = 'OBJECT'),
      typed AS (SELECT i, k, json_type(doc_json, ptr || '/' || ${ESCAPED_KEY}) AS t FROM keyed)
      SELECT i, k, bool_or(t = 'OBJECT') AS obj, bool_or(t <> 'OBJECT') AS leaf FROM typed GROUP BY i, k ORDER BY i, k`);
    const next: typeof frontier = [];
    for (const row of found) {
      const parent = frontier[Number(row.i)]!;
      const child = { keys: [...parent.keys, row.k], pointer: `${parent.pointer}/${escapeKey(row.k)}` };
      if (row.leaf) fields.push(child);
      if (row.obj) next.push(child);
    }
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
