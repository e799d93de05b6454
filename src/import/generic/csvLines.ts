/**
 * Where CSV rows start in their file. DuckDB's reader numbers rows, not lines: a quoted field that holds line
 * breaks is one row over several lines, so its row number (and every later one) is not the line an editor shows.
 * Only errors and skipped rows need this, so the file is read again once, up to the last row asked for, never held whole.
 */
import { createReadStream } from 'node:fs';

/**
 * The 1-based line on which each of `rows` starts (the header is row 1), keyed by row; a row past the end of the
 * file is absent. `blankRows`: whether blank lines are rows, as in DuckDB's error messages ("CSV Error on Line: N");
 * the rows of a table it read skip them. Quotes are RFC 4180's (a doubled quote inside a quoted field toggles twice).
 */
export async function csvRowLines(path: string, rows: readonly number[], blankRows: boolean): Promise<Map<number, number>> {
  const wanted = new Set(rows);
  const last = Math.max(0, ...rows);
  const found = new Map<number, number>();
  let line = 1;
  let inQuotes = false;
  let atRowStart = true;
  let row = 0;
  for await (const chunk of createReadStream(path, { encoding: 'utf8' }) as AsyncIterable<string>) {
    for (let i = 0; i < chunk.length; i++) {
      const c = chunk[i]!;
      if (atRowStart) {
        atRowStart = false;
        if (blankRows || (c !== '\n' && c !== '\r')) {
          row++;
          if (wanted.has(row)) found.set(row, line);
          if (row >= last) return found;
        }
      }
      if (c === '"') inQuotes = !inQuotes;
      else if (c === '\n') {
        line++;
        if (!inQuotes) atRowStart = true;
      }
    }
  }
  return found;
}

/** The line on which one row starts (see csvRowLines), or the row number itself when the file ends before it. */
export async function csvRowLine(path: string, row: number, blankRows: boolean): Promise<number> {
  return (await csvRowLines(path, [row], blankRows)).get(row) ?? row;
}
