/** Printing for the CLI (the only layer that writes to stdout). */
import { statSync } from 'node:fs';
import { dirname } from 'node:path';
import { BadInputError } from '../errors.ts';
import { writeFileAtomic } from '../util/atomicFile.ts';
import { checkWritableParent, makeFolders } from '../store/outputPath.ts';

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

/** The text table of src/report/textTable.ts (display-width columns, numbers right-aligned). */
export { table as formatTable } from '../report/textTable.ts';

/** A store `lmaudit run` did not finish is read as it stands; the reader is told (on stderr, so --json stays clean). */
export function warnIfUnfinished(location: string, store: { unfinished?: { responses: number; expected: number } }): void {
  if (store.unfinished === undefined) return;
  const { responses, expected } = store.unfinished;
  process.stderr.write(`lmaudit: ${location}: unfinished: ${responses.toLocaleString('en-US')} of ${expected.toLocaleString('en-US')} responses (read as it stands; \`lmaudit run … --resume ${location}\` continues it)\n`);
}

/** `--out`'s kind by its extension, in any case (x.JSON is JSON, x.Parquet Parquet, as report reads audit.HTML). */
export function outIs(out: string | undefined, extension: 'json' | 'parquet'): boolean {
  return out !== undefined && out.toLowerCase().endsWith(`.${extension}`);
}

/**
 * What a folder held that was not read (a console log, a copy of records already read, …), each with why: the import
 * lists them, and so does every command that imports on the fly, rather than leave them out silently.
 */
export function unreadLines(unrecognised: readonly { path: string; reason: string }[], side = ''): string[] {
  return unrecognised.map((u) => `${side}not read: ${u.path} (${u.reason})`);
}

/** What was read without being named: a named results file's samples files, each with why. */
export function companionLines(companions: readonly { path: string; with: string; why: string }[], side = ''): string[] {
  return companions.map((c) => `${side}also read ${c.path} (${c.why})`);
}

/** Written under a temporary name and renamed (util/atomicFile): a reader never sees half a file. */
export async function writeOutFile(path: string, text: string, what: string): Promise<void> {
  // Node's mkdir({ recursive: true }) never returns under /proc (store/outputPath.ts): checked, then made a level at a time.
  await checkWritableParent(path, `the ${what}`);
  // Said before the rename fails on it, whose message named the temporary file ('.x.tmp-… -> x').
  if (statSync(path, { throwIfNoEntry: false })?.isDirectory()) throw new BadInputError(`is a folder: --out names the file to write the ${what} to`, { file: path });
  await makeFolders(dirname(path), 'the folder for --out');
  try {
    await writeFileAtomic(path, text);
  } catch (error) {
    throw new BadInputError(`cannot write the ${what} (${(error as Error).message})`, { file: path });
  }
}

/**
 * A command's output to stdout, or with `--out <file>` into that file (atomically) with one line on
 * stdout saying where: every command that prints a result takes --out as a path.
 */
export async function emit(output: { lines: readonly string[] } | { json: unknown }, out: string | undefined, what: string): Promise<void> {
  const text = 'lines' in output ? `${output.lines.join('\n')}\n` : `${JSON.stringify(output.json, jsonReplacer, 2)}\n`;
  if (out === undefined) {
    process.stdout.write(text);
    return;
  }
  await writeOutFile(out, text, what);
  process.stdout.write(`Wrote the ${what} to ${out}\n`);
}
