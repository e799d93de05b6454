/**
 * A store table whose rows come in runs that share their leading columns: a samples
 * record's scores are one row per metric, each with the record's run, task, doc_id and
 * filter. Appended row by row that is one native call per value (a 100,000-document
 * truthfulqa file has 1.3 M score rows and 9 M calls, the largest share of its import);
 * here a run is one appended row, each varying column joined into one text, and DuckDB
 * splits the texts back into rows (unnest, in order) as it writes each part (partedTable.ts).
 */
import { StoreError } from '../errors.ts';
import { sqlIdent } from '../util/duckdb.ts';
import { PartedTable, ROW_POSITION } from './partedTable.ts';
import { TABLES, type ColumnSpec, type TableName } from './schema.ts';

export interface RowRunStager {
  /**
   * One run of rows: `shared` the values of the shared columns (in the order given at
   * open), `varying` one list per remaining column (in the table's column order), all of
   * one length, the run's rows in order.
   */
  add(shared: readonly unknown[], varying: readonly (readonly unknown[])[]): void;
  /** Where the packed rows go: parts written as they fill, each part's rows split back when it is written. */
  readonly parted: PartedTable;
}

// Separators tried in turn: control characters, which JSON text never holds raw, so a value_json
// never contains one; a name (a metric is any JSON key) may, and then the next is tried.
const POSITION = '"packed_first_row"';
const COUNT = '"packed_rows"';
const SEPARATOR = '"packed_sep"';
const SEPARATORS = Array.from({ length: 31 }, (_, i) => String.fromCharCode(0x1f - i));

export async function openRowRunStager(table: TableName, sharedNames: readonly string[]): Promise<RowRunStager> {
  const spec: readonly ColumnSpec[] = TABLES[table];
  const shared = sharedNames.map((name) => {
    const column = spec.find((c) => c.name === name);
    if (column === undefined) throw new Error(`${table} has no column '${name}'`);
    return column;
  });
  const varying = spec.filter((c) => !sharedNames.includes(c.name));
  for (const c of varying) {
    // The packed text of a DOUBLE is '' for null; a VARCHAR has no spelling left for null.
    if (!(c.type === 'DOUBLE' || (c.type === 'VARCHAR' && !c.nullable))) throw new Error(`${table}.${c.name}: a ${c.type}${c.nullable ? ' NULL' : ''} column cannot vary within a run`);
  }
  const ddl = [
    ...shared.map((c) => `${sqlIdent(c.name)} ${c.type}${c.nullable ? '' : ' NOT NULL'}`),
    // The position of the run's first row in the table, and its row count: each row's position.
    `${POSITION} BIGINT NOT NULL`, `${COUNT} BIGINT NOT NULL`, `${SEPARATOR} VARCHAR NOT NULL`,
    ...varying.map((c) => `${sqlIdent(c.name)} VARCHAR NOT NULL`),
  ];
  const split = varying.map((c) => `unnest(string_split(${sqlIdent(c.name)}, ${SEPARATOR})) AS ${sqlIdent(c.name)}`);
  const columns = spec.map((c) => (c.type === 'DOUBLE' && !sharedNames.includes(c.name) ? `CAST(NULLIF(${sqlIdent(c.name)}, '') AS DOUBLE) AS ${sqlIdent(c.name)}` : sqlIdent(c.name)));
  const inner = [...shared.map((c) => sqlIdent(c.name)), `unnest(range(${POSITION}, ${POSITION} + ${COUNT})) AS ${ROW_POSITION}`, ...split];
  const parted = await PartedTable.open({
    table,
    ddl: ddl.join(', '),
    select: (part) => `SELECT ${columns.join(', ')}, ${ROW_POSITION} FROM (SELECT ${inner.join(', ')} FROM ${part})`,
  });
  let rowIndex = 0;
  const appendRun = (values: readonly unknown[], texts: readonly string[][], sep: string, first: number) => {
    const appender = parted.appender;
    shared.forEach((column, k) => {
      const value = values[k];
      if (value === null || value === undefined) {
        if (!column.nullable) throw new StoreError(`${table} row ${rowIndex}: column '${column.name}' must not be null`);
        appender.appendNull();
      } else if (column.type === 'VARCHAR' && typeof value === 'string') appender.appendVarchar(value);
      else if (column.type === 'DOUBLE' && typeof value === 'number') appender.appendDouble(value);
      else if (column.type === 'BIGINT' && typeof value === 'number' && Number.isInteger(value)) appender.appendBigInt(BigInt(value));
      else if (column.type === 'BOOLEAN' && typeof value === 'boolean') appender.appendBoolean(value);
      else throw typeError(table, rowIndex, column, value);
    });
    appender.appendBigInt(BigInt(first));
    appender.appendBigInt(BigInt(texts[0]!.length));
    appender.appendVarchar(sep);
    for (const list of texts) appender.appendVarchar(list.join(sep));
    appender.endRow();
    parted.rowEnded();
  };

  return {
    add(values, lists) {
      const length = lists[0]?.length ?? 0;
      if (lists.length !== varying.length || lists.some((l) => l.length !== length)) throw new Error(`${table}: a run needs ${varying.length} lists of one length`);
      if (length === 0) return;
      const texts: string[][] = [];
      let strings = '';
      varying.forEach((column, k) => {
        const list = lists[k]!.map((value, i) => packedText(table, rowIndex + i, column, value));
        if (column.type === 'VARCHAR') strings += list.join('');
        texts.push(list);
      });
      // A separator no value holds (the values run together: a character inside none of them is inside none of those).
      const sep = SEPARATORS.find((s) => !strings.includes(s));
      if (sep !== undefined) appendRun(values, texts, sep, rowIndex);
      else {
        // Every separator occurs in some value: one row per run, split by a text longer than any of its values.
        for (let i = 0; i < length; i++) {
          const one = texts.map((t) => [t[i]!]);
          appendRun(values, one, '\u001f'.repeat(Math.max(...one.map(([t]) => t!.length)) + 1), rowIndex + i);
        }
      }
      rowIndex += length;
    },
    parted,
  };
}

/** A value as its packed text: strings as they are; a double in the spelling DuckDB reads back to the same bits. */
function packedText(table: string, index: number, column: ColumnSpec, value: unknown): string {
  if (column.type === 'VARCHAR') {
    if (typeof value !== 'string') throw value === null || value === undefined ? new StoreError(`${table} row ${index}: column '${column.name}' must not be null`) : typeError(table, index, column, value);
    return value;
  }
  if (value === null || value === undefined) {
    if (!column.nullable) throw new StoreError(`${table} row ${index}: column '${column.name}' must not be null`);
    return '';
  }
  if (typeof value !== 'number') throw typeError(table, index, column, value);
  // String() is the shortest text that reads back to the same double (NaN, Infinity as DuckDB spells them), save -0.
  return Object.is(value, -0) ? '-0' : String(value);
}

function typeError(table: string, index: number, column: ColumnSpec, value: unknown): StoreError {
  return new StoreError(
    `${table} row ${index}: column '${column.name}' expects ${column.type}, got ${typeof value} ${JSON.stringify(value)?.slice(0, 60)}`,
  );
}
