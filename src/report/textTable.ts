/** Plain-text cells and tables shared by the terminal and Markdown forms. */
import { eastAsianWidth } from 'get-east-asian-width';
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

/**
 * A number to four significant digits, integers whole, and never fewer digits than its whole part has: lambada's
 * perplexity 312507.8157 printed as 312500 (and 2.07e10 as 20720000000), zeros that read as digits it does not have.
 */
export function fmt(x: number | null | undefined): string {
  if (x === null || x === undefined) return '—';
  if (!Number.isFinite(x)) return String(x);
  if (Number.isInteger(x)) return String(x);
  if (Math.abs(x) >= 1000) return Number(x.toFixed(0)).toString();
  return Number(x.toPrecision(4)).toString();
}

/**
 * A fixed-width table: header, rule, rows; numbers right-aligned. Columns are measured in display width,
 * so a cell of CJK text or emoji lines up with the rest.
 */
export function table(header: readonly string[], rows: readonly (readonly (string | number)[])[]): string[] {
  const cells = rows.map((r) => r.map((c) => String(c)));
  const widths = header.map((h, i) => Math.max(displayWidth(h), ...cells.map((r) => displayWidth(r[i] ?? ''))));
  const line = (r: readonly string[], raw?: readonly (string | number)[]) =>
    r
      .map((c, i) => {
        const gap = ' '.repeat(Math.max(0, widths[i]! - displayWidth(c)));
        return typeof raw?.[i] === 'number' ? gap + c : c + gap;
      })
      .join('  ')
      .trimEnd();
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...cells.map((r, i) => line(r, rows[i]))];
}

const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;
const ZERO_WIDTH = /^[\p{Mn}\p{Me}\p{Cf}]$/u;
const EMOJI_PRESENTATION = /\p{Emoji_Presentation}/u;
const EMOJI = /\p{Emoji}/u;
let graphemes: Intl.Segmenter | undefined;

/**
 * The columns `text` takes in a terminal, per grapheme cluster: 2 for an emoji shown as emoji (Emoji_Presentation,
 * or an emoji with VS16, so a ZWJ family or a flag is one 2-column glyph), else the East Asian Width of its first
 * visible code point (Wide and Fullwidth 2, the rest 1, Ambiguous narrow); 0 for combining marks and format
 * characters alone. Written here rather than taken from string-width, whose start-up (its RGI_Emoji set, ANSI
 * stripping) every command would pay; get-east-asian-width supplies the Unicode property.
 */
export function displayWidth(text: string): number {
  if (PRINTABLE_ASCII.test(text)) return text.length;
  graphemes ??= new Intl.Segmenter('en', { granularity: 'grapheme' });
  let width = 0;
  for (const { segment } of graphemes.segment(text)) width += clusterWidth(segment);
  return width;
}

function clusterWidth(cluster: string): number {
  if (EMOJI_PRESENTATION.test(cluster) || (cluster.includes('\uFE0F') && EMOJI.test(cluster))) return 2;
  for (const char of cluster) {
    if (!ZERO_WIDTH.test(char)) return eastAsianWidth(char.codePointAt(0)!);
  }
  return 0;
}

/** Text cut to one line of at most `max` characters (no quoting). */
export function clip(text: string, max = 48): string {
  const one = text.replace(/\s+/g, ' ');
  return one.length > max ? `${one.slice(0, max - 1)}…` : one;
}
