/**
 * The line-by-line reader for generic JSON records: slower than the DuckDB bulk
 * path, but it names the exact line and field of a bad record, and with
 * --skip-bad it counts and reports what it skipped instead of failing.
 */
import { BadInputError } from '../../errors.ts';
import { isPlainObject } from '../../util/json.ts';
import { parsePyJson } from '../../py/json.ts';
import { PyFloat } from '../../py/values.ts';
import { pyFloatRepr } from '../../py/float.ts';
import { readUtf8File } from '../../util/utf8.ts';
import { arrayElements, fieldLine } from '../../util/jsonFieldLine.ts';
import { readLines } from '../../util/lines.ts';
import type { ImportOptions, SkippedRecord } from '../types.ts';
import type { ResolvedFields } from './genericFields.ts';

export interface GenericRecord {
  line: number;
  id: string;
  output: string;
  gold: string;
  group: string | null;
}

/**
 * A record's value as the text a Python script gets from str(json.loads(line)[field]): an int
 * as its digits, a float as Python writes it (1.0 stays '1.0', 1e3 is '1000.0'), True/False.
 */
function asText(value: unknown): string | null {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'bigint') return String(value);
  if (value instanceof PyFloat) return Number.isFinite(value.value) ? pyFloatRepr(value.value) : null;
  if (typeof value === 'boolean') return value ? 'True' : 'False';
  return null;
}

function describe(value: unknown): string {
  if (value === undefined) return 'missing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'number') return `the number ${String(value)}`;
  if (value instanceof PyFloat) return `the number ${Number.isNaN(value.value) ? 'NaN' : String(value.value)}`;
  if (isPlainObject(value)) return 'an object';
  return `of type ${typeof value}`;
}

/**
 * `array`: the file is one JSON array of records (a .json file, or a .jsonl that is really
 * one array); otherwise it is read line by line, never whole. A leading UTF-8 byte order
 * mark (Windows tools write one) is skipped, as Python's utf-8-sig codec would.
 */
export async function readGenericRecordsJs(
  file: string,
  array: boolean,
  fields: ResolvedFields,
  options: ImportOptions,
): Promise<{ rows: GenericRecord[]; skipped: SkippedRecord[] }> {
  const rows: GenericRecord[] = [];
  const skipped: SkippedRecord[] = [];
  const seen = new Set<string>();
  const fail = (line: number, field: string | undefined, reason: string) => {
    if (!options.skipBad) throw new BadInputError(reason, { file, line, field });
    skipped.push({ file, line, field, reason });
  };
  /** `line`: the record's number (its id when the file has no id field); `at`: the line a message about a field (or the record) names. */
  const take = (line: number, record: unknown, at: (field?: string) => number = () => line) => {
    if (!isPlainObject(record)) return fail(at(), undefined, `expected a JSON object, got ${describe(record)}`);
    const output = asText(record[fields.output]);
    if (output === null) return fail(at(fields.output), fields.output, `output is ${describe(record[fields.output])}; expected text`);
    const gold = asText(record[fields.gold]);
    if (gold === null) return fail(at(fields.gold), fields.gold, `gold answer is ${describe(record[fields.gold])}; expected text or a number`);
    const id = fields.id === null ? String(line) : asText(record[fields.id]);
    if (id === null) return fail(at(fields.id ?? 'id'), fields.id ?? 'id', `id is ${describe(record[fields.id ?? 'id'])}`);
    if (seen.has(id)) return fail(at(fields.id ?? 'id'), fields.id ?? 'id', `duplicate id '${id}'`);
    seen.add(id);
    const group = fields.group === null ? null : asText(record[fields.group]);
    rows.push({ line, id, output, gold, group });
  };

  if (array) {
    // Element i is record i+1, named by the line its field (else its element) starts on: a pretty-printed array
    // spreads one over several lines. Found only once one is bad.
    const text = withoutBom(await readUtf8File(file));
    const parsed = parsePyJson(text, { file });
    if (!Array.isArray(parsed)) throw new BadInputError('expected a JSON array of records', { file, line: 1 });
    let elements: { at: number; line: number }[] | null = null;
    const lineOf = (i: number, field: string | undefined): number => {
      elements ??= arrayElements(text);
      const element = elements[i];
      if (element === undefined) return i + 1;
      const own = text.slice(element.at, elements[i + 1]?.at ?? text.length);
      return (field === undefined ? undefined : fieldLine(own, field, element.line)) ?? element.line;
    };
    parsed.forEach((record, i) => take(i + 1, record, (field) => lineOf(i, field)));
    return { rows, skipped };
  }
  for await (const { line, text } of readLines(file, options.skipBad ? (line, reason) => skipped.push({ file, line, reason }) : undefined)) {
    if (text.trim() === '') continue;
    let record: unknown;
    try {
      record = parsePyJson(text, { file, line });
    } catch (error) {
      if (!options.skipBad) throw error;
      skipped.push({ file, line, reason: 'malformed JSON' });
      continue;
    }
    take(line, record);
  }
  return { rows, skipped };
}

const withoutBom = (text: string): string => (text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);

