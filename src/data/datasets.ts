/**
 * Dataset loading for task configs. `dataset_path` is either a local folder/file or a
 * Hugging Face dataset id. For ids, a local copy is looked up first (the shipped
 * `fixtures/benchmarks/<id>/<config>/<split>.jsonl`, then `$LMAUDIT_DATASETS` with the
 * same layout), and otherwise the hub's Parquet conversion is downloaded (src/data/hub.ts)
 * and read through DuckDB, as `datasets` would.
 * Rows keep Python's int/float distinction; JSON rows are made one table as `datasets` makes them (src/data/unify.ts).
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { extname, join, resolve } from 'node:path';
import { BadInputError } from '../errors.ts';
import { PyFloat } from '../py/values.ts';
import { parsePyJson } from '../py/json.ts';
import { packageRoot } from '../util/packageRoot.ts';
import { hubParquetFiles } from './hub.ts';
import { unifyRows } from './unify.ts';

export type Doc = Record<string, unknown>;

export interface DatasetRef {
  path: string | null;
  name: string | null;
  kwargs: Record<string, unknown> | null;
}

const EXTENSIONS = ['.jsonl', '.json', '.csv', '.parquet'];

/** Legacy hub ids that now redirect to an organisation's copy (older lm-eval configs use them). */
const HUB_ALIASES: Record<string, string> = {
  truthful_qa: 'truthfulqa/truthful_qa',
  winogrande: 'allenai/winogrande',
  ai2_arc: 'allenai/ai2_arc',
  gsm8k: 'openai/gsm8k',
  hellaswag: 'Rowan/hellaswag',
  super_glue: 'aps/super_glue',
};

/** Folders holding `<dataset id>/<config>/<split>.<ext>` copies, searched in order. */
export function localDatasetRoots(): string[] {
  const roots: string[] = [];
  if (process.env.LMAUDIT_DATASETS) roots.push(...process.env.LMAUDIT_DATASETS.split(':').filter(Boolean));
  const shipped = join(packageRoot(), 'fixtures', 'benchmarks');
  if (existsSync(shipped)) roots.push(shipped);
  return roots;
}

/** Where a split's rows come from: a local file, or the hub's Parquet conversion of a dataset id. */
export function locateSplit(
  ref: DatasetRef,
  split: string,
  baseDir?: string,
): { file: string } | { hub: { id: string; config: string; split: string } } {
  const dataFiles = ref.kwargs?.data_files;
  if (dataFiles !== undefined && dataFiles !== null) {
    const chosen = typeof dataFiles === 'string' || Array.isArray(dataFiles) ? (split === 'train' ? dataFiles : undefined) : (dataFiles as Record<string, unknown>)[split];
    const first = Array.isArray(chosen) ? chosen[0] : chosen;
    if (typeof first !== 'string') throw new BadInputError(`dataset_kwargs.data_files has no file for split '${split}'`, { field: 'dataset_kwargs' });
    // datasets.load_dataset resolves data_files against the working directory, as lm-eval runs it; a task
    // folder that ships its data beside the YAML is found there too (where lm-eval would find nothing).
    const tried = [...new Set([resolve(first), resolve(baseDir ?? '.', first)])];
    const file = tried.find((f) => existsSync(f));
    if (file === undefined) throw new BadInputError(`data file not found for split '${split}' (looked for ${tried.join(' and ')})`, { file: first });
    return { file };
  }
  if (ref.path === null) throw new BadInputError('the task has no dataset_path', { field: 'dataset_path' });
  const config = ref.name ?? 'default';
  const local = resolve(baseDir ?? '.', ref.path);
  if (existsSync(local)) {
    if (statSync(local).isFile()) return { file: local };
    for (const dir of [join(local, config), local]) {
      for (const ext of EXTENSIONS) if (existsSync(join(dir, split + ext))) return { file: join(dir, split + ext) };
    }
    throw new BadInputError(`no file for split '${split}' (looked for ${split}{${EXTENSIONS.join(',')}})`, { file: local });
  }
  const id = HUB_ALIASES[ref.path] ?? ref.path;
  for (const root of localDatasetRoots()) {
    for (const ext of EXTENSIONS) {
      const file = join(root, id, config, split + ext);
      if (existsSync(file)) return { file };
    }
  }
  return { hub: { id, config, split } };
}

export async function loadSplit(ref: DatasetRef, split: string, baseDir?: string): Promise<Doc[]> {
  const where = locateSplit(ref, split, baseDir);
  if ('hub' in where) {
    const files = await hubParquetFiles(where.hub.id, where.hub.config, where.hub.split);
    return duckRows(`SELECT * FROM read_parquet([${files.map(sqlLiteral).join(', ')}])`);
  }
  return loadFile(where.file);
}

export async function loadFile(file: string): Promise<Doc[]> {
  const ext = extname(file).toLowerCase();
  if (ext === '.jsonl') return unifyRows(readJsonl(file));
  if (ext === '.json') {
    const value = parsePyJson(readFileSync(file, 'utf8'), { file });
    if (Array.isArray(value)) return unifyRows(value.map((row, i) => asDoc(row, file, i + 1)));
    throw new BadInputError('a JSON dataset must be an array of objects', { file });
  }
  if (ext === '.csv') return readCsvAsPandas(file);
  if (ext === '.parquet') return duckRows(`SELECT * FROM read_parquet(${sqlLiteral(file)})`);
  throw new BadInputError(`unsupported dataset file type '${ext}' (use ${EXTENSIONS.join(', ')})`, { file });
}

const sqlLiteral = (value: string): string => `'${value.replaceAll("'", "''")}'`;

/**
 * A CSV file as `datasets`' csv builder reads it (pandas.read_csv with its defaults, then Arrow): comma-separated,
 * pandas' NA spellings ("", NA, null, None, nan, n/a…) None in every column, and each column typed as pandas infers
 * it: all ints → int ("007" is 7; with an NA, floats), all numbers → float, all True/False spellings → bool, else
 * text. DuckDB's own sniffing gave "007", the booleans of "yes", and "NA" as text.
 */
async function readCsvAsPandas(file: string): Promise<Doc[]> {
  const { duck } = await import('../util/duckdb.ts');
  const conn = await duck();
  const reader = await conn.runAndReadAll(`SELECT * FROM read_csv(${sqlLiteral(file)}, header = true, all_varchar = true, delim = ',', quote = '"', escape = '"')`);
  const names = reader.columnNames();
  const rows = reader.getRowsJS() as (string | null)[][];
  const convert = names.map((_, j) => pandasColumn(rows.map((r) => r[j] ?? null)));
  return rows.map((r) => Object.fromEntries(names.map((n, j) => [n, convert[j]!(r[j] ?? null)])));
}

const PANDAS_NA = new Set(['', '#N/A', '#N/A N/A', '#NA', '-1.#IND', '-1.#QNAN', '-NaN', '-nan', '1.#IND', '1.#QNAN', '<NA>', 'N/A', 'NA', 'NULL', 'NaN', 'None', 'n/a', 'nan', 'null']);
const PANDAS_INT = /^\s*[-+]?\d+\s*$/;
const PANDAS_FLOAT = /^\s*[-+]?(?:(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?|inf|infinity)\s*$/i;
const PANDAS_TRUE = new Set(['True', 'TRUE', 'true']);
const PANDAS_FALSE = new Set(['False', 'FALSE', 'false']);

function pandasColumn(values: (string | null)[]): (v: string | null) => unknown {
  const isNA = (v: string | null): v is null => v === null || PANDAS_NA.has(v);
  const present = values.filter((v): v is string => !isNA(v));
  const asFloat = (v: string): PyFloat => {
    const t = v.trim().toLowerCase().replace(/^\+/, '');
    return new PyFloat(t === 'inf' || t === 'infinity' ? Infinity : t === '-inf' || t === '-infinity' ? -Infinity : Number(t));
  };
  if (present.length === 0) return () => null;
  if (present.every((v) => PANDAS_INT.test(v))) {
    if (present.length === values.length) return (v) => (Number.isSafeInteger(Number(v)) ? Number(v) : BigInt(v!.trim()));
    return (v) => (isNA(v) ? null : asFloat(v));
  }
  if (present.every((v) => PANDAS_FLOAT.test(v))) return (v) => (isNA(v) ? null : asFloat(v));
  if (present.every((v) => PANDAS_TRUE.has(v) || PANDAS_FALSE.has(v))) return (v) => (isNA(v) ? null : PANDAS_TRUE.has(v));
  return (v) => (isNA(v) ? null : v);
}

function readJsonl(file: string): Doc[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new BadInputError(`cannot read (${(error as Error).message})`, { file });
  }
  // Most files need no exact parsing at all: one native parse of the whole file.
  if (!NEEDS_EXACT.test(text)) {
    try {
      const rows = JSON.parse(`[${text.split('\n').filter((r) => r.trim() !== '').join(',')}]`) as unknown[];
      if (rows.every((r) => typeof r === 'object' && r !== null && !Array.isArray(r))) return rows as Doc[];
    } catch {
      // a malformed row: the per-row pass below names its line
    }
  }
  const docs: Doc[] = [];
  let line = 0;
  for (const row of text.split('\n')) {
    line++;
    if (row.trim() === '') continue;
    docs.push(asDoc(parseRow(row, file, line), file, line));
  }
  return docs;
}

/**
 * `JSON.parse` is several times faster than our parser but turns `1.0` into `1` and
 * rounds big ints; rows that might hold a float, an exponent, a long digit run or
 * NaN/Infinity (anywhere, strings included) take the exact parser.
 */
const NEEDS_EXACT = /\d\.\d|\d[eE]|\d{16}|NaN|Infinity/;

function parseRow(row: string, file: string, line: number): unknown {
  if (!NEEDS_EXACT.test(row)) {
    try {
      return JSON.parse(row);
    } catch {
      // fall through: the exact parser reports where the row is malformed
    }
  }
  return parsePyJson(row, { file, line });
}

function asDoc(value: unknown, file: string, line: number): Doc {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new BadInputError('a dataset row must be a JSON object', { file, line });
  return value as Doc;
}

async function duckRows(sql: string): Promise<Doc[]> {
  // Loaded on demand: the native DuckDB module costs start-up time that JSONL tasks never need.
  const { duck } = await import('../util/duckdb.ts');
  const conn = await duck();
  const reader = await conn.runAndReadAll(sql);
  const names = reader.columnNames();
  const types = reader.columnTypes().map((t) => String(t));
  const rows = reader.getRowsJS();
  return rows.map((row) => {
    const doc: Doc = {};
    names.forEach((name, i) => {
      doc[name] = fromDuck(row[i], types[i]!);
    });
    return doc;
  });
}

/** DuckDB JS values → the Python values `datasets` would give (floats kept as floats). */
function fromDuck(value: unknown, type: string): unknown {
  if (value === null || value === undefined) return null;
  if (typeof value === 'bigint') return Number.isSafeInteger(Number(value)) ? Number(value) : value;
  if (typeof value === 'number') return /^(DOUBLE|FLOAT|REAL|DECIMAL)/.test(type) || !Number.isInteger(value) ? new PyFloat(value) : value;
  if (Array.isArray(value)) return value.map((v) => fromDuck(v, ''));
  if (typeof value === 'object') {
    const out: Doc = {};
    for (const [k, v] of Object.entries(value as Doc)) out[k] = fromDuck(v, '');
    return out;
  }
  return value;
}
