/**
 * Import dispatch: probe every file named (walking folders), let each importer
 * claim what it reads, and list every file nobody claimed, with the reason —
 * never skip silently. Importers are tried in this order; the first claim wins.
 */
import { open, readdir, stat } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { constants as zlibConstants, gunzipSync } from 'node:zlib';
import { BadInputError } from '../errors.ts';
import type { Companion, FileProbe, ImportOptions, ImportedRun, Importer } from './types.ts';
import { agentsImporter } from './agents/agentsImporter.ts';
import { inEvaluationFolder } from './agents/swebench.ts';
import { eeeForeignReason, eeeImporter } from './eee/eeeImporter.ts';
import { genericImporter } from './generic/genericImporter.ts';
import { inspectImporter } from './inspect/inspectImporter.ts';
import { helmImporter } from './helm/helmImporter.ts';
import { opencompassImporter, strayOpenCompassFile } from './opencompass/opencompassImporter.ts';
import { lightevalImporter } from './lighteval/lightevalImporter.ts';
import { lmevalImporter } from './lmeval/lmevalImporter.ts';
import { isStoreFolder } from '../store/readStore.ts';
import { pushTo } from '../util/groupBy.ts';
import { isPlainObject } from '../util/json.ts';
import { foreignEncoding, UTF16_ADVICE } from '../util/utf8.ts';

/** The one list of importers (more specific formats first; generic records last). */
const IMPORTERS: readonly Importer[] = [inspectImporter, eeeImporter, helmImporter, opencompassImporter, lightevalImporter, agentsImporter, lmevalImporter, genericImporter];

export interface Unrecognised {
  path: string;
  reason: string;
}

export interface ImportResult {
  runs: ImportedRun[];
  unrecognised: Unrecognised[];
  /** Files read although not named, because they belong with a named file (a results file's samples). */
  companions: Companion[];
}

const HEAD_BYTES = 64 * 1024;

/**
 * The store a named file belongs to (its manifest, a table, a rescores/ part), or null. Read as records, a store's
 * provenance.json was "not complete, well-formed JSON" and its instances.parquet "no output field", both untrue.
 */
async function storeHolding(path: string): Promise<string | null> {
  const folder = dirname(path);
  const store = (await isStoreFolder(folder)) ? folder : basename(folder) === 'rescores' && (await isStoreFolder(dirname(folder))) ? dirname(folder) : null;
  // Named from inside the store, its folder is '.', which says nothing.
  return store === '.' ? resolve(store) : store;
}

export async function importSources(paths: readonly string[], options: ImportOptions): Promise<ImportResult> {
  const probes: FileProbe[] = [];
  const storesFound: Unrecognised[] = [];
  for (const path of paths) {
    let info;
    try {
      info = await stat(path);
    } catch {
      throw new BadInputError('no such file or folder', { file: path });
    }
    if (info.isDirectory() && (await isStoreFolder(path))) {
      throw new BadInputError(
        paths.length === 1
          ? 'an lmaudit run store, not outputs to import: rescore, diff, report, ls, view and export read it as it is (to copy it, copy the folder)'
          : 'an lmaudit run store is read alone, not together with other sources: name it by itself',
        { file: path },
      );
    }
    if (info.isDirectory()) {
      const found = await walk(path);
      for (const file of found.files) probes.push(await probe(file, false));
      for (const store of found.stores) storesFound.push({ path: store, reason: 'an lmaudit run store, not an output file (rescore, diff and report read it as it is)' });
    } else {
      const store = await storeHolding(path);
      if (store !== null) {
        throw new BadInputError(`a file of the lmaudit run store ${store}, not outputs to import: name the store folder itself (rescore, diff, report, ls, view and export read it as it is)`, { file: path });
      }
      probes.push(await probe(path, true));
    }
  }
  // A results file named alone brings the samples files beside it that a folder import would pair with it.
  const companions: Companion[] = [];
  const named = new Set(probes.map((p) => resolve(p.path)));
  for (const p of probes.filter((q) => q.explicit)) {
    const importer = IMPORTERS.find((i) => i.claims(p));
    for (const c of (await importer?.companions?.(p)) ?? []) {
      if (named.has(resolve(c.path))) continue;
      named.add(resolve(c.path));
      companions.push(c);
      probes.push(await probe(c.path, false));
    }
  }
  // A file named twice (or found again by walking a folder) is read once.
  const seen = new Set<string>();
  const unique = probes.filter((p) => {
    const key = resolve(p.path);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
  const claimed = new Map<Importer, FileProbe[]>();
  const unrecognised: Unrecognised[] = [...storesFound];
  for (const p of unique) {
    const foreign = p.refused ?? foreignFormat(p);
    if (foreign !== null) {
      if (p.explicit) throw new BadInputError(`not a file lmaudit can import: ${foreign}`, { file: p.path });
      unrecognised.push({ path: p.path, reason: foreign });
      continue;
    }
    const importer = IMPORTERS.find((i) => i.claims(p));
    if (p.gzipped && importer !== lmevalImporter) {
      // Only lm-eval's samples reader decompresses as it reads; any other reader would see gzip bytes.
      if (p.explicit) throw new BadInputError(`not a file lmaudit can import: ${unreadCompressed(p.path)}`, { file: p.path });
      unrecognised.push({ path: p.path, reason: unreadCompressed(p.path) });
      continue;
    }
    if (importer === undefined) {
      if (p.explicit) {
        throw new BadInputError(
          // Every format import reads, as its --help names them: the list named only three of them.
          `not a file lmaudit can import (${describeUnknown(p)}); expected the output of lm-eval, Inspect, HELM, lighteval, OpenCompass, Every Eval Ever or an agent harness (SWE-bench, Terminal-Bench, Harbor, mini-swe-agent), or JSONL/CSV/Parquet records`,
          { file: p.path },
        );
      }
      unrecognised.push({ path: p.path, reason: describeUnknown(p) });
      continue;
    }
    pushTo(claimed, importer, p);
  }
  const runs: ImportedRun[] = [];
  for (const [importer, files] of claimed) {
    for (const run of await importer.importFiles(files, options)) {
      // run ids hash the source bytes: the same id twice is the same records twice (a copied file).
      const twin = runs.find((r) => r.provenance.run_id === run.provenance.run_id);
      if (twin === undefined) runs.push(run);
      else unrecognised.push({ path: recordsPath(run), reason: `the same records as ${recordsPath(twin)} (run ${twin.provenance.run_id}); imported once` });
    }
  }
  if (runs.length === 0) {
    const listed = unrecognised.map((u) => `\n  ${u.path}: ${u.reason}`).join('');
    throw new BadInputError(`nothing importable found (${unrecognised.length} file(s), none recognised)${listed}`, {
      file: paths.join(', '),
    });
  }
  return { runs, unrecognised, companions };
}

/**
 * Where a run's records were read, for a message: its first recorded file, else its label. Two copies of one Inspect
 * log (EEE's test data holds them in two folders) were listed by their label, the file's name, which is the same for
 * both: "data_x.json (the same records as data_x.json …)".
 */
function recordsPath(run: ImportedRun): string {
  const files = run.provenance.records.files?.used;
  const first = files !== undefined && files.status !== 'unknown' && Array.isArray(files.value) ? files.value.find((f) => isPlainObject(f) && typeof f.path === 'string') : undefined;
  return isPlainObject(first) ? String(first.path) : run.provenance.label;
}

/** A folder's files, depth first in name order; a run store inside it is listed whole, not file by file. */
async function walk(dir: string): Promise<{ files: string[]; stores: string[] }> {
  const entries = (await readdir(dir, { withFileTypes: true })).sort((a, b) => a.name.localeCompare(b.name));
  const found: { files: string[]; stores: string[] } = { files: [], stores: [] };
  for (const entry of entries) {
    // Only version-control folders are skipped; a real output folder may start with a dot
    // (lm-eval names a PEFT model at '../x' as '..__x').
    if (entry.name === '.git') continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (await isStoreFolder(path)) {
        found.stores.push(path);
        continue;
      }
      const inner = await walk(path);
      found.files.push(...inner.files);
      found.stores.push(...inner.stores);
    } else if (entry.isFile()) found.files.push(path);
  }
  return found;
}

async function probe(path: string, explicit: boolean): Promise<FileProbe> {
  const handle = await open(path, 'r').catch((error: Error) => {
    throw new BadInputError(`cannot open (${error.message})`, { file: path });
  });
  try {
    const buffer = Buffer.alloc(HEAD_BYTES);
    const { bytesRead } = await handle.read(buffer, 0, HEAD_BYTES, 0);
    const foreign = foreignEncoding(buffer.subarray(0, bytesRead));
    if (foreign !== null) return { path, name: basename(path), head: '', explicit, refused: `the file is ${foreign}; ${UTF16_ADVICE}` };
    const packed = compression(buffer.subarray(0, bytesRead));
    if (packed?.name === 'gzip' && /\.jsonl\.gz$/i.test(path)) {
      const text = (await gunzippedHead(path, HEAD_BYTES)).toString('utf8');
      if (text.trimStart().startsWith('{')) return { path, name: basename(path).slice(0, -3), head: text, explicit, gzipped: true };
    }
    if (packed !== null) return { path, name: basename(path), head: '', explicit, refused: unreadCompressed(path, packed) };
    // A UTF-8 byte order mark says how the file is encoded, not what it holds.
    const head = buffer.subarray(0, bytesRead).toString('utf8').replace(/^\uFEFF/, '');
    return { path, name: basename(path), head, explicit };
  } finally {
    await handle.close();
  }
}

const GZIP = { name: 'gzip', command: 'gunzip' };

function unreadCompressed(path: string, packed: { name: string; command: string } = GZIP): string {
  return `${packed.name}-compressed, which lmaudit does not read; decompress it first: ${packed.command} ${shellWord(path)}`;
}

/** A path as a POSIX shell word: the command runs as printed from where lmaudit was run (a bare name did not, for a file in a folder). */
function shellWord(path: string): string {
  const word = path.startsWith('-') ? `./${path}` : path;
  return /^[\w./:=@%+-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}

/**
 * The start of a gzipped file's content, from its first 16 KiB decompressed with a sync flush (so a cut stream
 * still gives what it holds; the reader reports the cut). Empty when the bytes are not gzip after all.
 */
async function gunzippedHead(path: string, bytes: number): Promise<Buffer> {
  const handle = await open(path, 'r');
  try {
    const compressed = Buffer.alloc(16 * 1024);
    const { bytesRead } = await handle.read(compressed, 0, compressed.length, 0);
    return gunzipSync(compressed.subarray(0, bytesRead), { finishFlush: zlibConstants.Z_SYNC_FLUSH, maxOutputLength: 64 * bytes }).subarray(0, bytes);
  } catch {
    return Buffer.alloc(0);
  } finally {
    await handle.close();
  }
}

/** A compressed file by its magic number (a samples file gzipped to save space is still a samples file, unread). */
function compression(head: Buffer): { name: string; command: string } | null {
  if (head.length >= 2 && head[0] === 0x1f && head[1] === 0x8b) return GZIP;
  if (head.length >= 4 && head.readUInt32LE(0) === 0xfd2fb528) return { name: 'zstd', command: 'unzstd' };
  if (head.length >= 3 && head[0] === 0x42 && head[1] === 0x5a && head[2] === 0x68) return { name: 'bzip2', command: 'bunzip2' };
  if (head.length >= 6 && head.subarray(0, 6).equals(Buffer.from([0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00]))) return { name: 'xz', command: 'unxz' };
  return null;
}

/**
 * Outputs of other harnesses lmaudit does not read (yet), named so the user knows what they
 * hold instead of being told the keys match nothing.
 */
function foreignFormat(p: FileProbe): string | null {
  const head = p.head.trimStart();
  if (!head.startsWith('{')) return null;
  const eee = eeeForeignReason(p);
  if (eee !== null) return eee;
  const stray = strayOpenCompassFile(p);
  if (stray !== null) return stray;
  // SWE-bench run summaries and Terminal-Bench results are read by the agents importer; a report.json is read only
  // in the folder the harness writes it to, where its run summary and predictions can be joined with it.
  if (/"(patch_is_None|patch_successfully_applied)"\s*:/.test(head) && /"tests_status"\s*:/.test(head) && !inEvaluationFolder(p)) {
    return 'a SWE-bench evaluation report (report.json) outside its folder logs/run_evaluation/<run_id>/<model>/<instance_id>/, where lmaudit reads it with the run summary and predictions';
  }
  return null;
}

function describeUnknown(p: FileProbe): string {
  const text = p.head.trimStart();
  if (/\.parquet$/i.test(p.name)) return 'Parquet records are read only when the file is named on the command line';
  if (text.length === 0) return 'empty file';
  if (p.head.includes('\u0000')) return 'binary file of an unknown kind';
  if (/\.(md|rst)$/i.test(p.name)) return 'documentation, not an output file';
  if (/\.csv$/i.test(p.name)) return 'CSV whose header names no output and gold columns (name the file on the command line, with --output-field and --gold-field)';
  if (!text.startsWith('{') && !text.startsWith('[')) return 'plain text, not JSON (e.g. a console log)';
  return 'JSON whose keys match no known output format';
}
