/**
 * The instances table's scratch lines (rowLines.ts says how a field is written): one line holds
 * a run of a document's requests, `count` of them from `first_request`, whose document columns
 * are written once. A multiple-choice document's four requests share their prompt (2-3 KB with
 * its shots) and its document: written once rather than four times, the 25,000-document
 * log-likelihood benchmark's scratch text went from 297 MB to 75 MB, and DuckDB's reading of it
 * into Parquet from 0.45 to 0.27 CPU s (bench/import.mjs --shape ll).
 *
 * A line of one request holds its values as fields. A line of several holds requests that are not
 * generations and share one prompt: the prompt is written once, and each value that varies by
 * request is an item of a packed field (items separated by U+0002, as a score line's): an empty
 * item is null, a text item is the text itself when it is not empty, holds no control character
 * and does not begin with a double quote, else its JSON string (nameItem); a JSON-text item is the
 * JSON text (which never holds a control character or is empty). Any other document's requests
 * (a generation's, winogrande's with a prompt each) are a line each.
 */
import { checkedValue, TABLES, type ColumnSpec } from './schema.ts';
import { fieldForm, ITEM, jsonTextField, nameItem, RowTemplate, textField } from './rowLines.ts';
import { sqlIdent, sqlString } from '../util/sqlText.ts';

/** The document's columns, the same for every request of a line, in the table's order. */
export const DOCUMENT_COLUMNS = ['task', 'doc_id', 'group', 'request_type', 'doc_json', 'doc_hash', 'prompt_hash', 'target', 'choices_json', 'fewshot_doc_ids'] as const;
/** The columns that vary by request, packed on a line of several. */
export const REQUEST_COLUMNS = ['arg_continuation', 'gen_kwargs_json', 'response_text'] as const;
/** A line's fields, in order. */
export const INSTANCE_LINE_FIELDS = [...DOCUMENT_COLUMNS, 'first_request', 'count', 'arg_context', ...REQUEST_COLUMNS] as const;

/**
 * Whether a document's requests, of `requestType`, with these prompts (null: none) are written as one line: more than
 * one, not generations, one prompt for all. The one rule for both readings of a samples record.
 */
export function sharesOneLine(requestType: unknown, contexts: readonly (string | null)[]): boolean {
  const first = contexts[0] ?? null;
  return contexts.length > 1 && requestType !== 'generate_until' && first !== null && contexts.every((c) => c === first);
}

const COLUMN = new Map((TABLES.instances as readonly ColumnSpec[]).map((c) => [c.name, c]));

/** A text value as an item of a packed field ('' for null). */
export function textItem(s: string | null): string {
  return s === null ? '' : nameItem(s);
}

/** An instances line's fixed text (rowLines.ts RowTemplate): a task's name, its request type and the columns always null are the same on every line of an import. */
export function instanceLineTemplate(constants: Readonly<Record<string, string>> = {}): RowTemplate {
  return new RowTemplate(INSTANCE_LINE_FIELDS, constants);
}

const EVERY_FIELD = instanceLineTemplate();

/** A checked value's field as the table writes it (rowLines.ts). */
function fieldOf(name: string, value: unknown, where: string): string {
  if (value === null) return '';
  const column = COLUMN.get(name)!;
  if (column.type !== 'VARCHAR') return String(value);
  return fieldForm(column) === 'json text' ? jsonTextField(value as string, where) : textField(value as string);
}

/** An item of a packed field for a checked value of column `name`. */
function itemOf(name: string, value: unknown, where: string): string {
  if (value === null) return '';
  return fieldForm(COLUMN.get(name)!) === 'json text' ? jsonTextField(value as string, where) : nameItem(value as string);
}

/**
 * A document's instance rows (in request order) as lines, each value checked against its column: one line for all
 * when they may share one (above), else a line each.
 */
export function encodeInstanceRows(rows: readonly Record<string, unknown>[], index: number): string {
  if (rows.length === 0) return '';
  const checked = rows.map((row) => {
    const values = new Map<string, unknown>();
    for (const column of TABLES.instances as readonly ColumnSpec[]) if (column.name !== 'run_id') values.set(column.name, checkedValue('instances', index, column, row[column.name]));
    return values;
  });
  const where = (name: string) => `instances row ${index}: column '${name}'`;
  const first = checked[0]!;
  const shared = sharesOneLine(first.get('request_type'), checked.map((v) => v.get('arg_context') as string | null)) &&
    checked.every((v, i) => v.get('request_idx') === (first.get('request_idx') as number) + i && DOCUMENT_COLUMNS.every((c) => v.get(c) === first.get(c)));
  const out: string[] = [];
  for (const run of shared ? [checked] : checked.map((v) => [v])) {
    const head = run[0]!;
    EVERY_FIELD.pieces([
      ...DOCUMENT_COLUMNS.map((c) => fieldOf(c, head.get(c) ?? null, where(c))),
      String(head.get('request_idx')),
      String(run.length),
      fieldOf('arg_context', head.get('arg_context') ?? null, where('arg_context')),
      ...REQUEST_COLUMNS.map((c) => (run.length === 1 ? fieldOf(c, head.get(c) ?? null, where(c)) : run.map((v) => itemOf(c, v.get(c) ?? null, where(c))).join(ITEM))),
    ], out);
  }
  return out.join('');
}

/**
 * SQL of the instances table's rows from a read of its lines (every field as VARCHAR, named as INSTANCE_LINE_FIELDS),
 * `typed` giving a column's value from its field; run_id is `runId`.
 */
export function instancesFromLines(read: string, runId: string, typed: (column: ColumnSpec, field: string) => string): string {
  const split = (f: string) => `string_split(${sqlIdent(f)}, '${ITEM}') AS ${sqlIdent(`${f}_items`)}`;
  const item = (list: string) => `${list}[k + 1]`;
  const text = (x: string) => `CASE WHEN ${x} = '' THEN NULL WHEN starts_with(${x}, '"') THEN json_extract_string(${x}, '$') ELSE ${x} END`;
  const packed = (c: string) => {
    const x = item(sqlIdent(`${c}_items`));
    return fieldForm(COLUMN.get(c)!) === 'json text' ? `nullif(${x}, '')` : text(x);
  };
  const value = (c: ColumnSpec): string => {
    if (c.name === 'run_id') return sqlString(runId);
    if (c.name === 'request_idx') return 'first_request + k';
    if ((REQUEST_COLUMNS as readonly string[]).includes(c.name)) return `CASE WHEN "count" = 1 THEN ${sqlIdent(c.name)} ELSE ${packed(c.name)} END`;
    return sqlIdent(c.name);
  };
  const lines = `SELECT ${DOCUMENT_COLUMNS.map((c) => `${typed(COLUMN.get(c)!, sqlIdent(c))} AS ${sqlIdent(c)}`).join(', ')}, CAST(first_request AS BIGINT) AS first_request, CAST("count" AS BIGINT) AS "count", arg_context, ${REQUEST_COLUMNS.map(sqlIdent).join(', ')}, ${REQUEST_COLUMNS.map(split).join(', ')} FROM ${read}`;
  const rows = `SELECT *, unnest(range("count")) AS k FROM (${lines})`;
  return `SELECT ${(TABLES.instances as readonly ColumnSpec[]).map((c) => `${value(c)} AS ${sqlIdent(c.name)}`).join(', ')} FROM (${rows})`;
}
