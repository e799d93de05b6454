/** Plain-text cells and tables shared by the terminal and Markdown forms. */
import { describeFunctionSource } from '../util/pyFunctionSource.ts';

/** A value as one short line: strings JSON-quoted (so whitespace shows), long values cut. */
export function cell(value: unknown, max = 48): string {
  if (value === undefined) return '—';
  const fn = describeFunctionSource(value);
  // A function source is named, never shown (nor cut mid-name): the line stays short whatever `max` says.
  if (fn !== null) return fn;
  // Recorded numbers keep every digit (a clock reading or an id rounded to 4 digits would mislead).
  const text = typeof value === 'number' ? String(value) : (JSON.stringify(value) ?? String(value));
  const one = text.replace(/\s+/g, ' ');
  return one.length > max ? `${one.slice(0, max - 1)}…` : one;
}

/** A number to four significant digits (integers whole). */
export function fmt(x: number | null | undefined): string {
  if (x === null || x === undefined) return '—';
  if (!Number.isFinite(x)) return String(x);
  if (Number.isInteger(x)) return String(x);
  return Number(x.toPrecision(4)).toString();
}

/** A fixed-width table: header, rule, rows. */
export function table(header: readonly string[], rows: readonly (readonly string[])[]): string[] {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (r: readonly string[]) => r.map((c, i) => c.padEnd(widths[i]!)).join('  ').trimEnd();
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)];
}

/** Text cut to one line of at most `max` characters (no quoting). */
export function clip(text: string, max = 48): string {
  const one = text.replace(/\s+/g, ' ');
  return one.length > max ? `${one.slice(0, max - 1)}…` : one;
}
