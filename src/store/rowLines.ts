/**
 * Store rows as lines of text, the scratch form rowLinesTable.ts writes and DuckDB reads back
 * to the same values. A row is one line (the instances table's lines hold a run of a document's
 * requests: instanceLines.ts); its fields (every column but run_id, in the table's order) are
 * separated by U+0001. A field is empty for null, else:
 *
 * - a JSON-text column (doc_json, gen_kwargs_json, value_json…): the JSON text itself;
 * - any other text column: the text itself (a lone surrogate as U+FFFD, as DuckDB's appender
 *   stored it), between two U+0003 when it is empty, holds a character below U+0020 or begins
 *   with U+FEFF (a U+0003 inside written twice), which DuckDB's CSV reader takes as quotes;
 * - a double: the text String() gives (the shortest that reads back to the same double;
 *   NaN, ±Infinity and -0 included); an integer or a boolean: its JSON.
 *
 * JSON text never holds a character below U+0020 (a string's are escaped), so it never needs
 * quotes: a JSON text (a samples record's document, say, sliced from its line) goes out as it is.
 * A text column's text goes out decoded rather than as a JSON string: DuckDB decoding every
 * prompt's JSON took a quarter of the instances table's write.
 *
 * A record's score rows are one line (task, document and filter once; each varying column
 * its values separated by U+0002, a metric's name as nameItem writes it), split back into rows by
 * DuckDB. A score whose recorded value is a JSON number is `=`: DuckDB reads the double from
 * the number's text, as Number() does (both round to nearest), instead of JavaScript writing
 * it a second time. No DuckDB here: worker threads make these lines.
 */
import { StoreError } from '../errors.ts';
import { numberOf } from '../py/orderedJson.ts';
import { checkedValue, TABLES, type ColumnSpec } from './schema.ts';

/** Tables whose rows an importer streams. */
export type StreamedTable = 'instances' | 'responses' | 'scores' | 'filtered';

/** Between the fields of a row. */
export const FIELD = '\u0001';
/** Between the values of one column in a packed score line. */
export const ITEM = '\u0002';
/** Around a text field that needs it (DuckDB's CSV quote; inside, written twice). */
export const QUOTE = '\u0003';

/** Text columns that hold JSON text, written as it is. */
const JSON_TEXT_COLUMNS = new Set(['gen_kwargs_json', 'doc_json', 'choices_json', 'fewshot_doc_ids', 'value_json', 'filtered_json', 'metrics_json']);

export type FieldForm = 'json text' | 'string' | 'scalar';

/** How a column's values are written. */
export function fieldForm(column: ColumnSpec): FieldForm {
  if (column.type !== 'VARCHAR') return 'scalar';
  return JSON_TEXT_COLUMNS.has(column.name) ? 'json text' : 'string';
}

/** The streamed columns of a table (all but run_id), in the table's order. */
export function streamedColumns(table: StreamedTable): readonly ColumnSpec[] {
  return (TABLES[table] as readonly ColumnSpec[]).filter((c) => c.name !== 'run_id');
}

/** The text with each lone surrogate (which UTF-8 cannot hold) as U+FFFD, as DuckDB's appender stored it. */
function wellFormed(s: string): string {
  const str = s as unknown as { isWellFormed(): boolean; toWellFormed(): string };
  return str.isWellFormed() ? s : str.toWellFormed();
}

// eslint-disable-next-line no-control-regex
const NAME_NEEDS_JSON = /[\u0000-\u001f]|^"/;

/**
 * A metric's name as an item of a packed score line: the name itself (a lone surrogate as U+FFFD) when it is not
 * empty, holds no control character (the separators are) and does not begin with a double quote; else its JSON
 * string, which does. DuckDB decodes only the items that begin with one: decoding every name as JSON was a third of
 * the scores table's write.
 */
export function nameItem(s: string): string {
  const text = wellFormed(s);
  return text !== '' && !NAME_NEEDS_JSON.test(text) ? text : JSON.stringify(text);
}

// A CSV reader takes a byte order mark at the start of its file for the file's, not the field's.
// eslint-disable-next-line no-control-regex
const NEEDS_QUOTES = /[\u0000-\u001f]|^\ufeff/;

/** A text column's field: the text, quoted when it is empty, holds a control character or begins with U+FEFF. */
export function textField(s: string): string {
  const text = wellFormed(s);
  if (text !== '' && !NEEDS_QUOTES.test(text)) return text;
  return `${QUOTE}${text.includes(QUOTE) ? text.replaceAll(QUOTE, QUOTE + QUOTE) : text}${QUOTE}`;
}

/** A double's field. */
export function doubleField(value: number): string {
  return Object.is(value, -0) ? '-0' : String(value);
}

// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f]/;

/** A JSON text's field: as it is (a JSON text holding a control character is not JSON, and would break the line). */
export function jsonTextField(text: string, where: string): string {
  if (text === '' || CONTROL.test(text)) throw new StoreError(`${where}: not JSON text: ${JSON.stringify(text.slice(0, 60))}`);
  return wellFormed(text);
}

/**
 * Rows of one table whose columns are partly the same for many rows (a task's name, its
 * request type, columns always null): the fixed text between the varying fields is joined
 * once, so each row is a few pieces pushed onto a list, joined once a record (rowBytes.ts).
 */
export class RowTemplate {
  /** The varying fields, in the line's order: `pieces` takes them in this order. */
  readonly varying: readonly string[];
  private readonly fixed: readonly string[];

  /** A table's rows (every column but run_id); `constants`: the field of each column that is the same in every row. */
  static of(table: Exclude<StreamedTable, 'scores'>, constants: Readonly<Record<string, string>> = {}): RowTemplate {
    return new RowTemplate(streamedColumns(table).map((c) => c.name), constants);
  }

  /** Lines of the fields `names`, in order; `constants`: the field of each that is the same on every line. */
  constructor(names: readonly string[], constants: Readonly<Record<string, string>> = {}) {
    const varying: string[] = [];
    const fixed: string[] = [];
    let text = '';
    names.forEach((name, i) => {
      if (i > 0) text += FIELD;
      const constant = constants[name];
      if (constant !== undefined) text += constant;
      else {
        fixed.push(text);
        varying.push(name);
        text = '';
      }
    });
    fixed.push(`${text}\n`);
    this.varying = varying;
    this.fixed = fixed;
  }

  pieces(fields: readonly string[], out: string[]): void {
    const { fixed } = this;
    if (fields.length !== fixed.length - 1) throw new StoreError(`a line needs ${fixed.length - 1} fields, got ${fields.length}`);
    for (let i = 0; i < fields.length; i++) out.push(fixed[i]!, fields[i]!);
    out.push(fixed[fields.length]!);
  }
}

const FULL_ROWS: Partial<Record<StreamedTable, RowTemplate>> = {};

/** One row's line from its values, each checked against its column's spec. */
export function encodeRow(table: Exclude<StreamedTable, 'scores'>, row: Record<string, unknown>, index: number): string {
  const fields: string[] = [];
  for (const column of streamedColumns(table)) {
    const value = checkedValue(table, index, column, row[column.name]);
    if (value === null) fields.push('');
    else if (column.type === 'VARCHAR') {
      fields.push(fieldForm(column) === 'json text' ? jsonTextField(value as string, `${table} row ${index}: column '${column.name}'`) : textField(value as string));
    } else if (column.type === 'DOUBLE') fields.push(doubleField(value as number));
    else fields.push(String(value));
  }
  const out: string[] = [];
  (FULL_ROWS[table] ??= RowTemplate.of(table)).pieces(fields, out);
  return out.join('');
}

/** A run of score rows sharing their run, task, document and filter (one samples record's). */
export interface ScoreRun {
  shared: readonly [run_id: string, task: string, doc_id: string, filter: string];
  metrics: readonly string[];
  values: readonly (number | null)[];
  valueJsons: readonly string[];
}

/** A score value's field in a packed line: a double's field, or `null` (an empty item would read back as no list at all). */
export function scoreValueField(value: number | null): string {
  return value === null ? 'null' : doubleField(value);
}

/** The score value field that says "the double of the recorded number" (a value equal to the double its JSON text, a number, reads as). */
export const VALUE_OF_NUMBER = '=';

// A JSON number token as the exact reader reads one (with Python's bare NaN and ±Infinity).
const NUMBER_TOKEN = /^(?:-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?|NaN|-?Infinity)$/;

/** Whether a value's JSON text is a number (its score value is then read from the text). */
export function isNumberText(text: string): boolean {
  return NUMBER_TOKEN.test(text);
}

/** A record's score rows as one line from fields (task, document and filter as text fields, metric names as nameItem writes them, scoreValueField values, value texts): none when it has none. */
export function scoreRunPieces(task: string, docId: string, filter: string, metrics: readonly string[], values: readonly string[], valueJsons: readonly string[]): string[] {
  if (values.length !== metrics.length || valueJsons.length !== metrics.length) throw new StoreError('scores: a run needs lists of one length');
  if (metrics.length === 0) return [];
  return [task, FIELD, docId, FIELD, filter, FIELD, metrics.join(ITEM), FIELD, values.join(ITEM), FIELD, valueJsons.join(ITEM), '\n'];
}

/** A record's score rows as one line (or '' when it has none), each value checked. */
export function encodeScoreRun(run: ScoreRun): string {
  const { shared, metrics, values, valueJsons } = run;
  const [, task, docId, filter] = shared;
  const where = `scores of doc_id ${docId}`;
  return scoreRunPieces(
    textField(task), textField(docId), textField(filter), metrics.map(nameItem),
    values.map((v, i) => (v !== null && v !== undefined && isNumberText(valueJsons[i]!) && Object.is(v, numberOf(valueJsons[i]!)) ? VALUE_OF_NUMBER : scoreValueField(v ?? null))),
    valueJsons.map((v) => jsonTextField(v, where)),
  ).join('');
}
