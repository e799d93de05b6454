/**
 * Opening a run store for the audit stage. The manifest is validated with the
 * schema module; every Parquet file's columns and schema version are checked
 * before any query runs. A store at any location DuckDB can read works: local
 * paths are read from disk, URLs (s3://, https://) through DuckDB itself.
 */
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { StoreError } from '../errors.ts';
import { queryRows, sqlString } from '../util/duckdb.ts';
import { READABLE_SCHEMA_VERSIONS, STORE_TABLES, StoreManifest, TABLES, type ColumnSpec, type SchemaVersion, type TableName } from './schema.ts';
import { fetchStore, isHttpUrl } from './remoteStore.ts';
import { listParts, responsePartsRelation } from './responseParts.ts';

export interface OpenStore {
  /** Where the store is (a folder path or a URL prefix). */
  readonly location: string;
  readonly manifest: StoreManifest;
  /**
   * A DuckDB table expression for one table, e.g. `read_parquet('…/instances.parquet')`.
   * With `rowNumber`, it also has a `file_row_number` column: the row's position in the store.
   */
  table(name: TableName, options?: { rowNumber?: boolean }): string;
  /** Whether the store is on the local file system (rescores can be appended). */
  readonly local: boolean;
  /**
   * Whether every row group of a table's Parquet file holds the column dictionary-encoded, so
   * that DuckDB reads it as dictionary vectors (absent: the source is not read from Parquet).
   */
  dictionaryEncoded?(table: TableName, column: string): Promise<boolean>;
  /**
   * Set when `lmaudit run` did not finish writing the store: how many responses it holds
   * of how many the run was to get. Its responses are then read from the recorder's parts.
   */
  readonly unfinished?: { responses: number; expected: number };
  /**
   * Instances of request 0 with their first response's text, when the source has them without
   * a join (see ImportedRun.items): columns file_row_number, run_id, task, doc_id, group,
   * target, choices_json, text.
   */
  readonly items?: string;
}

function isUrl(location: string): boolean {
  return /^[a-z][a-z0-9+.-]*:\/\//i.test(location);
}

function joinLocation(location: string, file: string): string {
  return isUrl(location) ? `${location.replace(/\/+$/, '')}/${file}` : join(location, file);
}

const isFile = (path: string) => stat(path).then((s) => s.isFile(), () => false);

/**
 * True when `path` is a local folder that holds a store: a manifest beside its instances, or a manifest lmaudit
 * wrote whose tables are missing (a damaged store is opened, to be named as one, not read as a folder of outputs).
 */
export async function isStoreFolder(path: string): Promise<boolean> {
  if (isUrl(path)) return path.endsWith('/') || !/\.[a-z]+$/i.test(path);
  const manifest = join(path, 'provenance.json');
  if (!(await isFile(manifest))) return false;
  if (await isFile(join(path, 'instances.parquet'))) return true;
  try {
    const createdBy = (JSON.parse(await readFile(manifest, 'utf8')) as { created_by?: unknown } | null)?.created_by;
    return typeof createdBy === 'string' && createdBy.startsWith('lmaudit');
  } catch {
    return false;
  }
}

export async function openStore(location: string): Promise<OpenStore> {
  if (!isHttpUrl(location) || (await httpfsInstalled())) return openAt(location);
  // DuckDB would first try to download its httpfs extension (impossible offline): read a copy instead.
  return { ...(await openAt(await fetchStore(location))), location, local: false };
}

async function httpfsInstalled(): Promise<boolean> {
  const rows = await queryRows<{ installed: boolean }>("SELECT installed FROM duckdb_extensions() WHERE extension_name = 'httpfs'");
  return rows[0]?.installed === true;
}

async function openAt(location: string): Promise<OpenStore> {
  const manifestPath = joinLocation(location, 'provenance.json');
  let text: string;
  try {
    text = isUrl(location)
      ? String((await queryRows<{ content: string }>(`SELECT content FROM read_text(${sqlString(manifestPath)})`))[0]?.content)
      : await readFile(manifestPath, 'utf8');
  } catch (error) {
    throw new StoreError(`${manifestPath}: cannot read the store manifest (${(error as Error).message})`, { cause: error });
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new StoreError(`${manifestPath}: not valid JSON (${(error as Error).message})`);
  }
  const version = (json as { schema_version?: unknown })?.schema_version as SchemaVersion;
  if (!READABLE_SCHEMA_VERSIONS.includes(version)) {
    throw new StoreError(`${manifestPath}: schema_version ${String(version)}, this lmaudit reads ${READABLE_SCHEMA_VERSIONS.join(' and ')}`);
  }
  const parsed = StoreManifest.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new StoreError(`${manifestPath}: field '${issue.path.join('.')}': ${issue.message}`);
  }
  const paths = Object.fromEntries(
    (Object.keys(TABLES) as TableName[]).map((t) => [t, joinLocation(location, `${t}.parquet`)]),
  ) as Record<TableName, string>;
  for (const table of STORE_TABLES) await checkColumns(paths[table], table, version);
  const unfinished = await unfinishedRun(location, parsed.data, paths.responses);
  return {
    location,
    manifest: unfinished?.manifest ?? parsed.data,
    local: !isUrl(location),
    ...(unfinished && { unfinished: unfinished.counts }),
    // file_row_number: the instance's position, as the joined form numbers it. An unfinished
    // store's instances have no response_text yet: its items are found through the join.
    ...(version >= 2 && unfinished === null && {
      items: `SELECT file_row_number, run_id, task, doc_id, "group", target, choices_json, response_text AS text
        FROM read_parquet(${sqlString(paths.instances)}, file_row_number = true) WHERE request_idx = 0`,
    }),
    async dictionaryEncoded(table: TableName, column: string): Promise<boolean> {
      const rows = await queryRows<{ every: boolean | null }>(`
        SELECT bool_and(contains(encodings, 'DICTIONARY')) AS every
        FROM parquet_metadata(${sqlString(paths[table])}) WHERE path_in_schema = ${sqlString(column)}`);
      return rows[0]?.every === true;
    },
    table(name: TableName, options?: { rowNumber?: boolean }): string {
      if (name === 'responses' && unfinished !== null) {
        return options?.rowNumber ? `(SELECT row_number() OVER () - 1 AS file_row_number, * FROM ${unfinished.responses})` : unfinished.responses;
      }
      if (name === 'rescores') {
        return `read_parquet(${sqlString(joinLocation(location, 'rescores/*.parquet'))}, union_by_name = true)`;
      }
      return `read_parquet(${sqlString(paths[name])}${options?.rowNumber ? ', file_row_number = true' : ''})`;
    },
  };
}

/**
 * A store whose run did not finish: its responses are the recorder's parts (responses.parquet
 * is not theirs until the run finishes), and its manifest says so in a note on each run.
 */
async function unfinishedRun(
  location: string,
  manifest: StoreManifest,
  responsesFile: string,
): Promise<{ responses: string; counts: { responses: number; expected: number }; manifest: StoreManifest } | null> {
  const recording = manifest.recording;
  if (recording === undefined || recording.status === 'finished') return null;
  if (isUrl(location)) throw new StoreError(`${location}: the run that writes this store did not finish; open it from a local folder`);
  const parts = await listParts(join(location, recording.parts));
  const responses = parts.length > 0 ? responsePartsRelation(location, parts, recording.parts) : `(SELECT * FROM read_parquet(${sqlString(responsesFile)}) WHERE false)`;
  const held = Number((await queryRows<{ n: bigint | number }>(`SELECT count(*) AS n FROM ${responses}`))[0]?.n ?? 0);
  const counts = { responses: held, expected: recording.expected_responses };
  const message = `unfinished: ${held.toLocaleString('en-US')} of ${recording.expected_responses.toLocaleString('en-US')} responses (the run stopped before it finished; \`lmaudit run … --resume ${location}\` continues it)`;
  const runs = manifest.runs.map((r) => ({ ...r, notes: [...r.notes, { task: null, kind: 'unfinished-run', message, evidence: [] }] }));
  return { responses, counts, manifest: { ...manifest, runs } };
}

async function checkColumns(path: string, table: TableName, version: SchemaVersion): Promise<void> {
  if (!isUrl(path) && !(await isFile(path))) throw new StoreError(`${path}: missing: the store's manifest (provenance.json) is there, its ${table} table is not`);
  let described: { column_name: string; column_type: string }[];
  try {
    described = await queryRows(`DESCRIBE SELECT * FROM read_parquet(${sqlString(path)})`);
  } catch (error) {
    throw new StoreError(`${path}: cannot read (${(error as Error).message.split('\n')[0]})`, { cause: error });
  }
  const have = new Map(described.map((d) => [d.column_name, d.column_type]));
  for (const column of TABLES[table].filter((c: ColumnSpec) => (c.since ?? 1) <= version)) {
    const type = have.get(column.name);
    if (type === undefined) throw new StoreError(`${path}: missing column '${column.name}'`);
    if (type !== column.type) throw new StoreError(`${path}: column '${column.name}' is ${type}, expected ${column.type}`);
  }
}
