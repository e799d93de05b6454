/**
 * Pieces every lm-eval run shares: source-file records with sha256, the stable run
 * id, the results JSON read tolerantly, and verbatim `reported` numbers.
 */
import { BadInputError } from '../../errors.ts';
import type { SourceFile } from '../../store/schema.ts';
import { sha256File, sha256Hex } from '../../util/hash.ts';
import { readUtf8File } from '../../util/utf8.ts';
import { isPlainObject } from '../../util/json.ts';
import type { FileProbe, ImportedRun } from '../types.ts';
import type { TaskRows } from './sampleRows.ts';
import { parseOrdered, toValue } from '../../py/orderedJson.ts';
import { checkingFieldLines } from '../../util/jsonFieldLine.ts';

export async function sourceFile(probe: FileProbe, role: string): Promise<SourceFile> {
  // Streamed: a samples file may be larger than a Buffer can hold (2 GiB).
  const sha256 = await sha256File(probe.path).catch((e: Error) => {
    throw new BadInputError(`cannot read (${e.message})`, { file: probe.path });
  });
  return { path: probe.path, sha256, role };
}

/** Stable over re-imports of the same bytes, whatever the folder they sit in. */
export function runIdOf(files: readonly SourceFile[]): string {
  return `lmeval-${sha256Hex(files.map((f) => `${f.role}:${f.sha256}`).sort().join('\n')).slice(0, 16)}`;
}

/** A results file's object, with `check` (its shape) run while the text is at hand to name a refused field's line. */
export async function readResultsJson(probe: FileProbe, check?: (json: Record<string, unknown>, file: string) => void): Promise<Record<string, unknown>> {
  const text = await readUtf8File(probe.path);
  const value = toValue(parseOrdered(text, { file: probe.path }));
  if (!isPlainObject(value)) throw new BadInputError('expected a JSON object', { file: probe.path, line: 1 });
  if (check !== undefined) checkingFieldLines(text, { file: probe.path }, () => check(value, probe.path));
  return value;
}

/**
 * The source's numbers verbatim. provenance.json is written by JSON.stringify, which
 * would turn Python's NaN/Infinity into null; they are kept as the tokens Python wrote.
 */
export function verbatim(value: unknown): unknown {
  if (typeof value === 'number' && !Number.isFinite(value)) return Number.isNaN(value) ? 'NaN' : value > 0 ? 'Infinity' : '-Infinity';
  if (Array.isArray(value)) return value.map(verbatim);
  if (isPlainObject(value)) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, verbatim(v)]));
  return value;
}

export function emptyRows(): TaskRows {
  return { instances: [], responses: [], scores: [], filtered: [] };
}

export function appendRows(into: TaskRows, from: TaskRows): void {
  for (const key of ['instances', 'responses', 'scores', 'filtered'] as const) {
    for (const row of from[key]) (into[key] as unknown[]).push(row);
  }
}

export function tablesOf(rows: TaskRows): ImportedRun['tables'] {
  return {
    instances: { rows: rows.instances },
    responses: { rows: rows.responses },
    scores: { rows: rows.scores },
    filtered: { rows: rows.filtered },
  };
}
