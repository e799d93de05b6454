/** Printing for the CLI (the only layer that writes to stdout). */

// A reader that stops early (`lmaudit … | head`) closes the pipe: that is not an error of ours.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(0);
  throw error;
});

export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, jsonReplacer, 2)}\n`);
}

export function printLines(lines: readonly string[]): void {
  process.stdout.write(`${lines.join('\n')}\n`);
}

/** Non-finite numbers have no JSON form; they are printed as the strings Python would write. */
export function jsonReplacer(_key: string, value: unknown): unknown {
  if (typeof value === 'number' && !Number.isFinite(value)) return Number.isNaN(value) ? 'NaN' : value > 0 ? 'Infinity' : '-Infinity';
  if (typeof value === 'bigint') return Number(value);
  return value;
}

/** A plain fixed-width table: a header row, a rule, then rows. Numbers are right-aligned. */
export function formatTable(header: readonly string[], rows: readonly (readonly (string | number)[])[]): string[] {
  const cells = rows.map((r) => r.map((c) => String(c)));
  const widths = header.map((h, i) => Math.max(h.length, ...cells.map((r) => r[i]?.length ?? 0)));
  const line = (r: readonly string[], raw?: readonly (string | number)[]) =>
    r.map((c, i) => (typeof raw?.[i] === 'number' ? c.padStart(widths[i]!) : c.padEnd(widths[i]!))).join('  ').trimEnd();
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...cells.map((r, i) => line(r, rows[i]))];
}

/** A store `lmaudit run` did not finish is read as it stands; the reader is told (on stderr, so --json stays clean). */
export function warnIfUnfinished(location: string, store: { unfinished?: { responses: number; expected: number } }): void {
  if (store.unfinished === undefined) return;
  const { responses, expected } = store.unfinished;
  process.stderr.write(`lmaudit: ${location}: unfinished: ${responses.toLocaleString('en-US')} of ${expected.toLocaleString('en-US')} responses (read as it stands; \`lmaudit run … --resume ${location}\` continues it)\n`);
}

/** What was read without being named: a named results file's samples files, each with why. */
export function companionLines(companions: readonly { path: string; with: string; why: string }[], side = ''): string[] {
  return companions.map((c) => `${side}also read ${c.path} (${c.why})`);
}
