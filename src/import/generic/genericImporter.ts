/**
 * Generic answer records: one record per answer with an id, the raw output and
 * the gold answer, optionally a group. JSONL (or a JSON array), CSV and Parquet.
 *
 * Bulk path: DuckDB reads the file and builds the store tables in SQL, so a
 * million records import without passing through JS. When DuckDB rejects the
 * file, or a record lacks a field or has a non-string value, the JS path re-reads
 * it line by line to name the exact file, line and field (or, with --skip-bad,
 * to count what it skips).
 */
import { basename, extname } from 'node:path';
import { stat } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { BadInputError } from '../../errors.ts';
import { sha256File } from '../../util/hash.ts';
import { hashCheckingUtf8 } from '../../util/utf8.ts';
import { parseOrderedLeading } from '../../py/orderedJson.ts';
import { duck, queryRows, sqlIdent, sqlString } from '../../util/duckdb.ts';
import { emptyRunProvenance, emptyTaskProvenance, inferred, recorded, same, type ColumnSpec } from '../../store/schema.ts';
import { TypedRowLines } from '../../store/rowLinesTable.ts';
import type { FileProbe, ImportOptions, ImportedRun, Importer, SkippedRecord } from '../types.ts';
import { readLines } from '../../util/lines.ts';
import { csvRowLine, csvRowLines } from './csvLines.ts';
import { readGenericRecordsJs, type GenericRecord } from './genericJs.ts';
import { FIELD_CANDIDATES, resolveFields, type ResolvedFields } from './genericFields.ts';

type Format = 'jsonl' | 'json' | 'csv' | 'parquet';
const FORMATS: Record<string, Format> = { '.jsonl': 'jsonl', '.ndjson': 'jsonl', '.json': 'json', '.csv': 'csv', '.parquet': 'parquet' };

/**
 * The keys of the first record in a file's head: the first line of JSONL, or the first
 * element of a JSON array (on one line or pretty-printed). Null when the head holds no
 * whole first record.
 */
function firstJsonKeys(head: string): string[] | null {
  const text = head.trimStart();
  try {
    const first = parseOrderedLeading(text.startsWith('[') ? text.slice(1) : text);
    return first.k === 'obj' ? first.entries.map(([key]) => key) : null;
  } catch {
    return null;
  }
}

/** The column names on a CSV file's first line (RFC 4180 quoting). */
function csvHeader(head: string): string[] | null {
  const line = head.split(/\r?\n/, 1)[0] ?? '';
  if (line === '') return null;
  const names: string[] = [];
  for (const m of line.matchAll(/\s*(?:"((?:[^"]|"")*)"|([^,]*))\s*(?:,|$)/g)) {
    if (m.index === line.length) break;
    names.push(m[1] !== undefined ? m[1].replaceAll('""', '"') : m[2]!.trim());
  }
  return names;
}

export const genericImporter: Importer = {
  name: 'generic',
  claims(probe: FileProbe): boolean {
    const format = FORMATS[extname(probe.name).toLowerCase()];
    if (format === undefined) return false;
    // Parquet is binary: its columns are not in the head, so only a file named on the command line is read.
    if (format === 'parquet') return probe.explicit;
    const keys = format === 'csv' ? csvHeader(probe.head) : firstJsonKeys(probe.head);
    if (keys === null) return probe.explicit;
    const has = (names: readonly string[]) => names.some((n) => keys.includes(n));
    return probe.explicit || (has(FIELD_CANDIDATES.output) && has(FIELD_CANDIDATES.gold));
  },
  async importFiles(files, options) {
    const runs: ImportedRun[] = [];
    for (const file of files) runs.push(await importOne(file, options));
    return runs;
  },
};

async function importOne(probe: FileProbe, options: ImportOptions): Promise<ImportedRun> {
  const format = FORMATS[extname(probe.name).toLowerCase()]!;
  const columns = await sourceColumns(probe, format);
  const fields = resolveFields(columns, options.fields, probe.path);
  if (format === 'parquet') await refuseNestedColumns(probe.path, fields);
  const task = basename(probe.name, extname(probe.name));
  // Hashing runs on this thread while DuckDB reads the file on its own threads.
  const [scan, bulk] = await Promise.all([
    format === 'parquet' ? sha256File(probe.path).then((sha256) => ({ sha256, invalidAt: null, line: null })) : hashCheckingUtf8(probe.path),
    format === 'csv' || format === 'parquet' || !options.skipBad ? bulkStage(probe.path, format, fields, columns) : Promise.resolve(null),
  ]);
  const sha = scan.sha256;
  if (scan.invalidAt !== null && (!options.skipBad || typeof bulk === 'string')) {
    // DuckDB's readers replace a bad byte with U+FFFD; Python's json would refuse the file.
    if (typeof bulk === 'string') await (await duck()).run(`DROP TABLE IF EXISTS ${bulk}`);
    if (!options.skipBad || format === 'csv') throw new BadInputError(`not valid UTF-8 (byte ${scan.invalidAt} of the file); Python's open/json would refuse it too`, { file: probe.path, line: scan.line ?? undefined });
  }
  const runId = `generic-${sha.slice(0, 16)}`;
  const provenance = emptyRunProvenance({ run_id: runId, label: probe.name, source_kind: 'generic', source_format: format });
  provenance.harness.name = same(recorded('unknown harness (generic records)'));
  provenance.records.files = same(recorded([{ path: probe.path, sha256: sha, role: 'records' }]));
  const taskBlock = emptyTaskProvenance();
  taskBlock.task.name = same(inferred(task, 'file name without extension'));
  taskBlock.scoring.output_type = same(inferred('generate_until', 'records hold generated text'));
  taskBlock.samples.document_count = same(inferred(null, 'counted at load time'));
  provenance.tasks[task] = taskBlock;

  if (bulk !== null && typeof bulk !== 'string') {
    // CSV and Parquet have no other reader; a JSON file DuckDB cannot read goes to the JS reader for a precise error.
    if (format === 'csv' || format === 'parquet') {
      // DuckDB's CSV errors read "CSV Error on Line: N", the original line (which may span lines), what
      // is wrong, then "Possible fixes:": what is wrong is the last line before the fixes.
      const row = /CSV Error on Line: (\d+)/.exec(bulk.error)?.[1];
      const before = bulk.error.split('Possible fixes:')[0]!.split('\n').map((l) => l.trim()).filter((l) => l !== '');
      const reason = row === undefined ? bulk.error.split('\n')[0]! : before.at(-1)!;
      // DuckDB's "Line" counts rows (blank lines included): the line the row starts on is what an editor shows.
      const line = row === undefined ? null : await csvRowLine(probe.path, Number(row), true);
      throw new BadInputError(`cannot read as ${format} (${reason})`, { file: probe.path, ...(line === null ? {} : { line }) });
    }
  } else if (bulk !== null) {
    // A header with no rows (or a Parquet file of none) is as empty as an empty JSONL file, which is refused: an
    // import of no records would pass for a run whose numbers exist.
    if (format === 'csv' || format === 'parquet') {
      const [rows] = await queryRows<{ n: number }>(`SELECT count(*)::INTEGER AS n FROM ${bulk}`);
      if (rows!.n === 0) {
        await (await duck()).run(`DROP TABLE IF EXISTS ${bulk}`);
        throw new BadInputError(format === 'csv' ? 'the file has a header line and no records' : 'the file holds no rows: no records to read', { file: probe.path });
      }
    }
    // CSV and Parquet have no JS reader: --skip-bad drops their bad rows here, each named as the JS reader names one.
    if (options.skipBad && (format === 'csv' || format === 'parquet')) {
      const { table, skipped } = await withoutBadRows(bulk, fields, probe.path, format);
      return { provenance, ...fromStaged(runId, task, table), skipped };
    }
    const bad = await firstBadRow(bulk, fields);
    if (bad === null) {
      return { provenance, ...fromStaged(runId, task, bulk), skipped: [] };
    }
    await (await duck()).run(`DROP TABLE IF EXISTS ${bulk}`);
    if (format === 'csv' || format === 'parquet') {
      // A CSV record's row (after the header, blank lines skipped) is not its line when a quoted field spans lines.
      const line = format === 'csv' ? await csvRowLine(probe.path, bad.row + 1, false) : bad.row;
      throw new BadInputError(bad.reason, { file: probe.path, line, field: bad.field });
    }
  }
  // JS path: precise errors, or skip-and-count; the records then take the same road into the store.
  const { rows, skipped } = await readGenericRecordsJs(probe.path, format === 'json' || probe.head.trimStart().startsWith('['), fields, options);
  return { provenance, ...fromStaged(runId, task, await stageRecords(rows)), skipped };
}

/** The staged records' columns (bulkStage's shape). */
const STAGED_COLUMNS: readonly ColumnSpec[] = [
  { name: 'id', type: 'VARCHAR', nullable: false, doc: 'record id' },
  { name: 'output', type: 'VARCHAR', nullable: false, doc: 'raw model output' },
  { name: 'gold', type: 'VARCHAR', nullable: false, doc: 'gold answer' },
  { name: 'grp', type: 'VARCHAR', nullable: true, doc: 'group' },
];

/** Validated records into a temporary table shaped as bulkStage's (id, output, gold, grp; file order kept), read by DuckDB from lines of text (rowLinesTable.ts). */
async function stageRecords(rows: readonly GenericRecord[]): Promise<string> {
  const table = `generic_${randomBytes(6).toString('hex')}`;
  const lines = new TypedRowLines('generic-records', STAGED_COLUMNS);
  try {
    for (const r of rows) lines.add([r.id, r.output, r.gold, r.group]);
    await (await duck()).run(`CREATE TABLE ${table} AS ${lines.select()}`);
  } finally {
    lines.abort();
  }
  return table;
}

async function sourceColumns(probe: FileProbe, format: Format): Promise<string[]> {
  if (format === 'jsonl' || format === 'json') {
    // The head is the first 64 KiB: blank there and no longer than that means blank throughout.
    if (probe.head.trim() === '' && (await stat(probe.path)).size <= Buffer.byteLength(probe.head)) {
      throw new BadInputError('the file is empty: no records to read', { file: probe.path });
    }
    const keys = firstJsonKeys(probe.head) ?? (await firstRecordKeys(probe));
    if (keys === null) throw new BadInputError(describeNonRecords(probe.head), { file: probe.path, line: 1 });
    return keys;
  }
  if (format === 'csv') {
    const header = csvHeader(probe.head);
    if (header === null || header.every((name) => name === '')) throw new BadInputError('the file is empty: no header line', { file: probe.path, line: 1 });
    const other = header.length === 1 ? [';', '\t', '|'].find((d) => header[0]!.includes(d)) : undefined;
    if (other !== undefined) {
      throw new BadInputError(
        `the header is one column, ${JSON.stringify(header[0])}: CSV is read with commas, as Python's csv module reads it, and this file seems to separate with ${JSON.stringify(other)}`,
        { file: probe.path, line: 1 },
      );
    }
    return header;
  }
  try {
    return (await queryRows<{ column_name: string }>(`DESCRIBE SELECT * FROM read_parquet(${sqlString(probe.path)})`)).map((r) => r.column_name);
  } catch (error) {
    throw new BadInputError(`cannot read as ${format} (${(error as Error).message.split('\n')[0]})`, { file: probe.path });
  }
}

/**
 * Parquet columns that hold lists, structs or maps: DuckDB would print them as text
 * ("[a, b]"), which no Python script reading the file would compare with an answer.
 */
async function refuseNestedColumns(path: string, fields: ResolvedFields): Promise<void> {
  const types = await queryRows<{ column_name: string; column_type: string }>(`DESCRIBE SELECT * FROM read_parquet(${sqlString(path)})`);
  for (const role of ['id', 'output', 'gold', 'group'] as const) {
    const name = fields[role];
    const type = types.find((t) => t.column_name === name)?.column_type;
    if (name === null || type === undefined) continue;
    const nested = /\[\d*\]$/.test(type) ? 'a list' : /^STRUCT/.test(type) ? 'a struct' : /^MAP/.test(type) ? 'a map' : /^UNION/.test(type) ? 'a union' : null;
    if (nested !== null) {
      throw new BadInputError(`the ${role} column holds ${nested} (Parquet type ${type}) in every record; expected text or a number`, { file: path, field: name });
    }
  }
}

/** The first record's keys when it is longer than the probe's head (a 5 MB output on line 1). */
async function firstRecordKeys(probe: FileProbe): Promise<string[] | null> {
  if (Buffer.byteLength(probe.head) < 60_000) return null;
  if (probe.head.trimStart().startsWith('[')) return null;
  for await (const { text } of readLines(probe.path)) {
    if (text.trim() === '') continue;
    return firstJsonKeys(text);
  }
  return null;
}

const KIND_NAMES: Record<string, [string, string]> = {
  obj: ['a JSON object', 'objects'], arr: ['a JSON array', 'arrays'], str: ['a JSON string', 'strings'],
  num: ['a JSON number', 'numbers'], bool: ['a JSON boolean', 'booleans'], null: ['a JSON null', 'nulls'],
};

/** What the file holds instead of records (objects), said plainly. */
export function describeNonRecords(head: string): string {
  const text = head.trimStart();
  let first;
  try {
    first = parseOrderedLeading(text);
  } catch {
    return /^[[{]/.test(text) ? 'the first record is not complete, well-formed JSON' : 'the file does not start with JSON (records are JSON objects, one per line, or a JSON array of them)';
  }
  if (first.k === 'arr') {
    if (first.items.length === 0) return 'the file is an empty JSON array: no records';
    const kinds = [...new Set(first.items.map((i) => i.k))];
    if (kinds.length === 1 && kinds[0] === 'obj') return 'the first record is not a JSON object';
    const what = kinds.length === 1 ? KIND_NAMES[kinds[0]!]![1] : `mixed values (${kinds.map((k) => KIND_NAMES[k]![1]).join(', ')})`;
    return `the file is a JSON array of ${what}, not of records (objects with an id, an output and a gold answer)`;
  }
  return `the file is ${KIND_NAMES[first.k]![0]}, not records (objects with an id, an output and a gold answer)`;
}

/**
 * Reads the file once into a temporary table (id, output, gold, grp; all text)
 * or returns null when DuckDB cannot read it. JSON values that are not strings become
 * NULL here, which sends the file to the JS path for a precise error.
 */
async function bulkStage(path: string, format: Format, fields: ResolvedFields, columns: readonly string[]): Promise<string | { error: string }> {
  const wanted = [fields.id, fields.output, fields.gold, fields.group].filter((f): f is string => f !== null);
  let reader: string;
  if (format === 'csv') reader = csvReader(path, columns);
  else if (format === 'parquet') reader = `read_parquet(${sqlString(path)})`;
  else {
    const struct = wanted.map((f) => `${sqlString(f)}: 'JSON'`).join(', ');
    reader = `read_json(${sqlString(path)}, format = ${format === 'jsonl' ? "'newline_delimited'" : "'auto'"}, columns = {${struct}})`;
  }
  const json = format === 'jsonl' || format === 'json';
  const text = (field: string | null) => {
    if (field === null) return 'NULL';
    const f = sqlIdent(field);
    // A JSON string's text starts with a quote; anything else (number, list, object, null) is NULL here.
    if (json) return `CASE WHEN starts_with(CAST(${f} AS VARCHAR), '"') THEN json_extract_string(${f}, '$') END`;
    // CSV columns are read as text already; Parquet's typed values become Python's str() of them.
    return format === 'csv' ? f : pythonText(f);
  };
  const idText =
    fields.id === null
      ? 'NULL'
      : json
        ? `CASE WHEN starts_with(CAST(${sqlIdent(fields.id)} AS VARCHAR), '"') THEN json_extract_string(${sqlIdent(fields.id)}, '$')
                WHEN json_type(${sqlIdent(fields.id)}) IN ('UBIGINT', 'BIGINT') THEN CAST(${sqlIdent(fields.id)} AS VARCHAR) END`
        : format === 'csv' ? sqlIdent(fields.id) : pythonText(sqlIdent(fields.id));
  const table = `generic_${randomBytes(6).toString('hex')}`;
  try {
    // The table keeps the file's order (insertion order is preserved), so rowid + 1 is the record's
    // number; without an id field that number is the id. No window function: it would serialise the read.
    await (await duck()).run(`CREATE TABLE ${table} AS
      SELECT ${idText} AS id, ${text(fields.output)} AS output, ${text(fields.gold)} AS gold, ${text(fields.group)} AS grp
      FROM ${reader}`);
    if (fields.id === null) await (await duck()).run(`UPDATE ${table} SET id = CAST(rowid + 1 AS VARCHAR)`);
    return table;
  } catch (error) {
    return { error: (error as Error).message };
  }
}

/**
 * A Parquet value as the text a Python script gets from str(value): DuckDB writes doubles
 * as Python does (1.0, 1e+16, 1e-05) except negative zero, and booleans in lower case.
 */
function pythonText(f: string): string {
  return `CASE typeof(${f})
    WHEN 'BOOLEAN' THEN CASE CAST(${f} AS VARCHAR) WHEN 'true' THEN 'True' ELSE 'False' END
    WHEN 'DOUBLE' THEN CASE WHEN TRY_CAST(${f} AS DOUBLE) = 0 AND signbit(TRY_CAST(${f} AS DOUBLE)) THEN '-0.0' ELSE CAST(${f} AS VARCHAR) END
    ELSE CAST(${f} AS VARCHAR) END`;
}

/**
 * CSV as Python's csv module and pandas read it by default (comma, double quotes doubled
 * inside a field), not as a sniffer guesses: an unterminated quote is an error that names
 * its line instead of a field read some other way.
 */
function csvReader(path: string, columns: readonly string[]): string {
  const types = columns.map((c) => `${sqlString(c)}: 'VARCHAR'`).join(', ');
  return `read_csv(${sqlString(path)}, header = true, auto_detect = false, delim = ',', quote = '"', escape = '"', columns = {${types}})`;
}

async function firstBadRow(table: string, fields: ResolvedFields): Promise<{ row: number; field: string; reason: string } | null> {
  const rows = await queryRows<{ _row: number; id: string | null; output: string | null; gold: string | null }>(
    `SELECT rowid + 1 AS _row, id, output, gold FROM ${table} WHERE id IS NULL OR output IS NULL OR gold IS NULL ORDER BY rowid LIMIT 1`,
  );
  const bad = rows[0];
  if (bad !== undefined) {
    const field = bad.output === null ? fields.output : bad.gold === null ? fields.gold : (fields.id ?? 'id');
    return { row: Number(bad._row), field, reason: `${field} is missing, empty or not text` };
  }
  const duplicate = await queryRows<{ id: string; row: number }>(
    `SELECT id, max(rowid) + 1 AS row FROM ${table} GROUP BY id HAVING count(*) > 1 ORDER BY row LIMIT 1`,
  );
  if (duplicate[0] !== undefined) {
    return { row: Number(duplicate[0].row), field: fields.id ?? 'id', reason: `duplicate id '${duplicate[0].id}'` };
  }
  return null;
}

/**
 * The staged rows without those the JS reader would skip (a missing field; an id seen before), in file order, and
 * each skipped row with its line (CSV: where the record starts; Parquet: its row number).
 */
async function withoutBadRows(table: string, fields: ResolvedFields, path: string, format: 'csv' | 'parquet'): Promise<{ table: string; skipped: SkippedRecord[] }> {
  const rows = await queryRows<{ _row: bigint | number; id: string | null; output: string | null; gold: string | null; seen: bigint | number }>(
    // seen: how many rows with every field, up to this one, hold its id (a row dropped for a missing field takes no id).
    `SELECT * FROM (SELECT rowid + 1 AS _row, id, output, gold,
       sum(CASE WHEN id IS NULL OR output IS NULL OR gold IS NULL THEN 0 ELSE 1 END) OVER (PARTITION BY id ORDER BY rowid) AS seen FROM ${table})
     WHERE id IS NULL OR output IS NULL OR gold IS NULL OR seen > 1 ORDER BY _row`,
  );
  const lines = format === 'csv' ? await csvRowLines(path, rows.map((r) => Number(r._row) + 1), false) : null;
  const skipped: SkippedRecord[] = [];
  for (const bad of rows) {
    const row = Number(bad._row);
    const line = lines === null ? row : (lines.get(row + 1) ?? row + 1);
    const field = bad.output === null ? fields.output : bad.gold === null ? fields.gold : (fields.id ?? 'id');
    const reason = bad.id !== null && bad.output !== null && bad.gold !== null ? `duplicate id '${bad.id}'` : `${field} is missing, empty or not text`;
    skipped.push({ file: path, line, field, reason });
  }
  if (skipped.length === 0) return { table, skipped };
  const kept = `generic_${randomBytes(6).toString('hex')}`;
  const dropped = rows.map((r) => Number(r._row) - 1).join(', ');
  await (await duck()).run(`CREATE TABLE ${kept} AS SELECT * FROM ${table} WHERE rowid NOT IN (${dropped}) ORDER BY rowid`);
  await (await duck()).run(`DROP TABLE ${table}`);
  return { table: kept, skipped };
}

/**
 * Store tables over the staged records; lazy, so on-the-fly rescoring computes only the
 * columns it reads. A record is one document with its output, so the items need no join.
 */
function fromStaged(runId: string, task: string, table: string): Pick<ImportedRun, 'tables' | 'items'> {
  const run = sqlString(runId);
  const t = sqlString(task);
  // Typed as the store's columns are (a file without a group field stages grp as an untyped NULL).
  const items = `SELECT rowid AS file_row_number, ${run} AS run_id, ${t} AS task, CAST(id AS VARCHAR) AS doc_id, CAST(grp AS VARCHAR) AS "group",
    CAST(gold AS VARCHAR) AS target, NULL::VARCHAR AS choices_json, CAST(output AS VARCHAR) AS text FROM ${table}`;
  const tables: ImportedRun['tables'] = {
    instances: {
      lazy: true,
      rowNumber: '_position',
      sql: `SELECT rowid AS _position, ${run} AS run_id, ${t} AS task, id AS doc_id, grp AS "group", 0 AS request_idx, 'generate_until' AS request_type,
        NULL AS arg_context, NULL AS arg_continuation, NULL AS gen_kwargs_json, NULL AS doc_json,
        sha256(${t} || chr(31) || id) AS doc_hash, NULL AS prompt_hash, gold AS target, NULL AS choices_json, NULL AS fewshot_doc_ids,
        output AS response_text
        FROM ${table}`,
    },
    responses: {
      lazy: true,
      rowNumber: '_position',
      sql: `SELECT rowid AS _position, ${run} AS run_id, ${t} AS task, id AS doc_id, 0 AS request_idx, 0 AS repeat, output AS text,
        NULL AS logprob, NULL AS is_greedy, NULL AS finish_reason, NULL AS tokens_in, NULL AS tokens_out, NULL AS latency_ms,
        NULL AS attempt, NULL AS from_cache, NULL AS error FROM ${table}`,
    },
  };
  return { tables, items };
}

