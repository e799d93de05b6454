/**
 * The response parts of an unfinished run (see recorder.ts): their names, and the one
 * SQL relation that reads them typed as the schema's responses table, so every reader
 * (resume, finish, the audit commands through readStore) reads them the same way.
 */
import { readdir } from 'node:fs/promises';
import { sqlIdent, sqlString } from '../util/duckdb.ts';
import { TABLES } from './schema.ts';

export const PARTS_FOLDER = 'responses.parts';

export function partFileName(n: number): string {
  return `part-${String(n).padStart(6, '0')}.jsonl`;
}

/** A final part's number; 0 for any other name (temporary files start with a dot). */
export function partNumber(name: string): number {
  const m = /^part-(\d+)\.jsonl$/.exec(name);
  return m === null ? 0 : Number(m[1]);
}

/**
 * `(SELECT … FROM read_json([...]))`: the parts as the responses table. Doubles were
 * written as text (JSON has no NaN/Infinity) and are cast back here.
 */
export function responsePartsRelation(storeDir: string, partNames: readonly string[], folder = PARTS_FOLDER): string {
  const files = partNames.map((n) => sqlString(`${storeDir.replace(/\/+$/, '')}/${folder}/${n}`)).join(', ');
  const spec = TABLES.responses;
  const columns = spec.map((c) => `${sqlIdent(c.name)}: '${c.type === 'DOUBLE' ? 'VARCHAR' : c.type}'`).join(', ');
  const select = spec.map((c) => `CAST(${sqlIdent(c.name)} AS ${c.type}) AS ${sqlIdent(c.name)}`).join(', ');
  return `(SELECT ${select} FROM read_json([${files}], format = 'newline_delimited', columns = {${columns}}))`;
}

/** Final part files in a folder, in part order (none when the folder does not exist yet). */
export async function listParts(folder: string): Promise<string[]> {
  let names: string[];
  try {
    names = await readdir(folder);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  return names.filter((n) => partNumber(n) > 0).sort((a, b) => partNumber(a) - partNumber(b));
}
