/**
 * Several finished run stores written as one store of several runs (a grid's cells): the manifest
 * lists every run, each table is the union of theirs (rows keep their run_id), and the write is
 * all or nothing like any other (writeStore stages it and renames it into place).
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { StoreError } from '../errors.ts';
import { sqlString } from '../util/duckdb.ts';
import { SCHEMA_VERSION, STORE_TABLES, StoreManifest, TABLES } from './schema.ts';
import type { TableSource } from './tableStaging.ts';
import { writeStore } from './writeStore.ts';

export async function mergeStores(dest: string, parts: readonly string[], extra: Pick<StoreManifest, 'created_by' | 'grid'>): Promise<StoreManifest> {
  const manifests: StoreManifest[] = [];
  for (const dir of parts) {
    const manifest = StoreManifest.parse(JSON.parse(await readFile(join(dir, 'provenance.json'), 'utf8')));
    if (manifest.recording !== undefined && manifest.recording.status !== 'finished') throw new StoreError(`${dir}: the run did not finish; a merged store holds finished runs only`);
    manifests.push(manifest);
  }
  const manifest: StoreManifest = { schema_version: SCHEMA_VERSION, runs: manifests.flatMap((m) => m.runs), ...extra };
  const tables = {} as Record<(typeof STORE_TABLES)[number], TableSource>;
  for (const table of STORE_TABLES) {
    const columns = TABLES[table].map((c) => `"${c.name}"`).join(', ');
    tables[table] = { sql: parts.map((dir) => `SELECT ${columns} FROM read_parquet(${sqlString(join(dir, `${table}.parquet`))})`).join(' UNION ALL ') };
  }
  await writeStore(dest, manifest, tables);
  return manifest;
}
