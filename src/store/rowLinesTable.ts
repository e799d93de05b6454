/**
 * A store table written as lines of text (rowLines.ts makes them) while an importer reads its
 * source, and read back by DuckDB once, when the store's Parquet file is written. Rows leave
 * JavaScript as text, most of it text the importer already holds (a samples record's own
 * JSON), instead of one native call per value through an appender; and no Parquet is written
 * until the end, when the provenance that goes into its metadata is known, so a large import
 * encodes its Parquet once. The SELECT reads each field back with the schema's type.
 */
import { closeSync, openSync, rmSync, writeSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { StoreError } from '../errors.ts';
import { scratchFolder, sqlIdent, sqlString } from '../util/duckdb.ts';
import { doubleField, FIELD, fieldForm, ITEM, QUOTE, streamedColumns, textField, VALUE_OF_NUMBER, type StreamedTable } from './rowLines.ts';
import { TABLES, type ColumnSpec } from './schema.ts';
import { INSTANCE_LINE_FIELDS, instancesFromLines } from './instanceLines.ts';
import type { TableSource } from './tableSource.ts';

/** DuckDB's CSV reader refuses a line longer than its bound (2 MB by default); the longest line written raises it. */
const DEFAULT_MAX_LINE = 2 << 20;
/** Text gathered before a write (one write per this much keeps the calls few and the memory small). */
const WRITE_EVERY = 1 << 20;

/**
 * Lines appended to a file in this process's scratch folder and read back once by DuckDB's CSV
 * reader: a table's rows made in JavaScript in bulk, without one native call per value.
 */
class ScratchLines {
  private readonly path: string;
  private fd: number | null;
  private pending: Uint8Array[] = [];
  private pendingLength = 0;
  private longestLine = 0;
  /** Bytes appended so far. */
  bytes = 0;
  /** Rows appended so far (a caller appending runs of several rows' lines may count them itself). */
  count = 0;

  constructor(private readonly what: string) {
    this.path = join(scratchFolder('rows'), `${what}-${randomBytes(6).toString('hex')}.txt`);
    this.fd = openSync(this.path, 'w');
  }

  /**
   * Lines rowLines.ts made (each ending in a newline; text, or its UTF-8), `count` rows;
   * `longest` bounds the longest line, in UTF-16 units. Bytes are kept as given until written.
   */
  append(lines: string | Uint8Array, longest: number, count: number): void {
    if (lines.length === 0) return;
    const bytes = typeof lines === 'string' ? Buffer.from(lines) : lines;
    this.pending.push(bytes);
    this.pendingLength += bytes.length;
    this.bytes += bytes.length;
    this.count += count;
    if (longest > this.longestLine) this.longestLine = longest;
    if (this.pendingLength >= WRITE_EVERY) this.flush();
  }

  /** Every line written and the file closed, the CSV read of its lines as VARCHAR fields named `fields`, in the order appended. */
  protected read(fields: readonly string[]): string {
    this.flush();
    if (this.fd !== null) closeSync(this.fd);
    this.fd = null;
    // UTF-16 units → bytes: at most three bytes each.
    const maxLine = Math.max(DEFAULT_MAX_LINE, 3 * this.longestLine + 1);
    // A quoted empty field is the empty text; an empty field, null.
    return `read_csv(${sqlString(this.path)}, delim = '${FIELD}', quote = '${QUOTE}', escape = '${QUOTE}', allow_quoted_nulls = false, header = false, auto_detect = false, new_line = '\\n', max_line_size = ${maxLine}, columns = {${fields.map((name) => `${sqlString(name)}: 'VARCHAR'`).join(', ')}})`;
  }

  /** Removes the file (rows not yet read are lost). */
  abort(): void {
    this.pending = [];
    if (this.fd !== null) closeSync(this.fd);
    this.fd = null;
    rmSync(this.path, { force: true });
  }

  /** Writes the lines appended so far: the memory they were given in is free after it. */
  flush(): void {
    if (this.pending.length === 0 || this.fd === null) return;
    const pending = this.pending;
    this.pending = [];
    this.pendingLength = 0;
    try {
      for (const bytes of pending) for (let written = 0; written < bytes.length; ) written += writeSync(this.fd, bytes, written);
    } catch (error) {
      throw new StoreError(`cannot write the ${this.what} rows to ${this.path} (${(error as Error).message})`, { cause: error });
    }
  }
}

/** One run's rows of one table an importer streams (rowLines.ts makes the lines). */
export class RowLinesTable extends ScratchLines {
  constructor(readonly table: StreamedTable) {
    super(table);
  }

  /** The table's rows for the store writer: read from the file, typed as the schema says, in the order appended, all of run `runId`. */
  finish(runId: string): TableSource {
    const columns = streamedColumns(this.table);
    // An instances line holds a run of a document's requests (instanceLines.ts), with fields of its own.
    const read = this.read(this.table === 'instances' ? INSTANCE_LINE_FIELDS : columns.map((c) => c.name));
    if (this.table === 'instances') return { sql: instancesFromLines(read, runId, typed), lazy: true, reread: 'parse', textBytes: this.bytes };
    if (this.table === 'scores') {
      // A packed line's shared columns are read once (below the unnest, which would repeat them per row), its
      // lists split into rows; a name that begins with a double quote is JSON (rowLines.ts nameItem); a value `=` is
      // the double of its recorded number, `null` null.
      const packed = ['metric', 'value', 'value_json'];
      const shared = `SELECT ${columns.map((c) => (packed.includes(c.name) ? sqlIdent(c.name) : `${typed(c, sqlIdent(c.name))} AS ${sqlIdent(c.name)}`)).join(', ')} FROM ${read}`;
      const split = (c: string) => `unnest(string_split(${sqlIdent(c)}, '${ITEM}')) AS ${sqlIdent(c)}`;
      const rows = `SELECT ${columns.filter((c) => !packed.includes(c.name)).map((c) => sqlIdent(c.name)).join(', ')}, ${packed.map(split).join(', ')} FROM (${shared})`;
      const select = (TABLES.scores as readonly ColumnSpec[]).map((c) =>
        c.name === 'run_id' ? `${sqlString(runId)} AS run_id`
        : c.name === 'metric' ? `CASE WHEN starts_with(metric, '"') THEN json_extract_string(metric, '$') ELSE metric END AS metric`
        : c.name === 'value' ? `CAST(CASE value WHEN '${VALUE_OF_NUMBER}' THEN value_json WHEN 'null' THEN NULL ELSE value END AS DOUBLE) AS value`
        : sqlIdent(c.name));
      return { sql: `SELECT ${select.join(', ')} FROM (${rows})`, lazy: true, reread: 'parse', textBytes: this.bytes };
    }
    const select = (TABLES[this.table] as readonly ColumnSpec[]).map((c) =>
      c.name === 'run_id' ? `${sqlString(runId)} AS run_id` : `${typed(c, sqlIdent(c.name))} AS ${sqlIdent(c.name)}`);
    return { sql: `SELECT ${select.join(', ')} FROM ${read}`, lazy: true, reread: 'parse', textBytes: this.bytes };
  }
}

/**
 * Rows of any columns (the types a store's columns have) as lines, each row a list of values in the columns'
 * order: the rescores of `rescore --out` and the viewer's readings, millions of rows that went through DuckDB's
 * appender one value at a time (2 µs a row of seven values; 8 of the 15 s of a million items' four readings).
 */
export class TypedRowLines extends ScratchLines {
  // Each line goes into bytes as it is made, so that no line outlives the young generation: lines kept as strings
  // until a megabyte of them was joined were promoted, and collecting them took a third of a million items' rescore.
  private chunk = Buffer.allocUnsafe(WRITE_EVERY);
  private used = 0;
  private rows = 0;
  private longest = 0;

  constructor(what: string, readonly columns: readonly ColumnSpec[]) {
    super(what);
  }

  /** One row: a value per column (null for null), already checked against the column's type. */
  add(values: readonly (string | number | boolean | null)[]): void {
    let line = '';
    for (let i = 0; i < values.length; i++) {
      const v = values[i];
      if (i > 0) line += FIELD;
      if (v === null) continue;
      line += typeof v === 'string' ? textField(v) : typeof v === 'number' && this.columns[i]!.type === 'DOUBLE' ? doubleField(v) : String(v);
    }
    line += '\n';
    // At most three bytes a UTF-16 unit.
    if (this.used + 3 * line.length > this.chunk.length) {
      this.push();
      if (3 * line.length > this.chunk.length) this.chunk = Buffer.allocUnsafe(3 * line.length);
    }
    this.used += this.chunk.write(line, this.used, 'utf8');
    this.rows++;
    if (line.length > this.longest) this.longest = line.length;
  }

  /** The rows, typed as the columns say, in the order added (the file is read when the SELECT runs; abort() removes it). */
  select(): string {
    this.push();
    return `SELECT ${this.columns.map((c) => `${typed(c, sqlIdent(c.name))} AS ${sqlIdent(c.name)}`).join(', ')} FROM ${this.read(this.columns.map((c) => c.name))}`;
  }

  private push(): void {
    if (this.rows === 0) return;
    this.append(this.chunk.subarray(0, this.used), this.longest, this.rows);
    // The bytes handed over are kept until written: the next rows go into memory of their own.
    this.chunk = Buffer.allocUnsafe(WRITE_EVERY);
    this.used = 0;
    this.rows = 0;
  }
}

/** A field's value with its column's type (rowLines.ts says how each is written). */
function typed(c: ColumnSpec, field: string): string {
  switch (fieldForm(c)) {
    case 'json text':
    case 'string':
      return field;
    case 'scalar':
      return `CAST(${field} AS ${c.type})`;
  }
}
