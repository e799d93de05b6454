/**
 * The lighteval importer: `results/<model>/results_<date_id>.json` and
 * `details/<model>/<date_id>/details_<task>_<date_id>.parquet`. A results file and the details files of the same
 * model folder and date_id are one run; a details file without its results file is a run of its own (no printed
 * aggregate), a results file without details a results-only run. The task name comes from the details file name,
 * split on the known date_id (the task part may hold '_'), as lighteval's own loader does.
 */
import { existsSync, readdirSync } from 'node:fs';
import { basename, dirname, join, sep } from 'node:path';
import type { FileProbe, ImportedRun, Importer } from '../types.ts';
import { pushTo } from '../../util/groupBy.ts';
import { importLightevalRun } from './lightevalRun.ts';

const RESULTS_NAME = /^results_(.+)\.json$/;

/** A results file's head: config_general first, then a lighteval key. */
function isResults(probe: FileProbe): boolean {
  return RESULTS_NAME.test(probe.name) && /^\s*\{\s*"config_general"\s*:/.test(probe.head) && /"(lighteval_sha|summary_tasks|config_tasks)"\s*:/.test(probe.head);
}

/**
 * The date_id and task of a details file (`details_<task>_<date_id>.parquet` inside a folder named date_id). A task's
 * `:` and `|` come percent-encoded (`details_anli%3Ar1%7C0_…`) in a file saved from its Hub URL as it was written:
 * decoded, the items join the task the results file names (`anli:r1|0`), not a task of their own.
 */
export function detailsName(path: string): { dateId: string; task: string } | null {
  const name = basename(path);
  const dateId = basename(dirname(path));
  const suffix = `_${dateId}.parquet`;
  if (!name.startsWith('details_') || !name.endsWith(suffix)) return null;
  const task = name.slice('details_'.length, -suffix.length);
  return { dateId, task: /%[0-9A-Fa-f]{2}/.test(task) ? percentDecoded(task) : task };
}

function percentDecoded(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    // Not an encoding (a '%' of the name's own before two hex digits that decode to no UTF-8): the name as written.
    return text;
  }
}

/** The run a file belongs to: output folder, model path and date_id, as one key. */
function runKey(path: string): string {
  const details = detailsName(path);
  if (details !== null) {
    const modelDir = dirname(dirname(path));
    const parts = modelDir.split(sep);
    const at = parts.lastIndexOf('details');
    return at < 0 ? `${modelDir}\u0000${details.dateId}` : `${parts.slice(0, at).join(sep)}\u0000${parts.slice(at + 1).join('/')}\u0000${details.dateId}`;
  }
  const dateId = RESULTS_NAME.exec(basename(path))![1]!;
  const parts = dirname(path).split(sep);
  const at = parts.lastIndexOf('results');
  return at < 0 ? `${dirname(path)}\u0000${dateId}` : `${parts.slice(0, at).join(sep)}\u0000${parts.slice(at + 1).join('/')}\u0000${dateId}`;
}

/**
 * Where a results file's details are: `<output>/details/<model>/<date_id>/` as lighteval writes them locally, or
 * `<date_id>/` beside the results file in a Hub details dataset (the Open LLM Leaderboard's `details_<model>`).
 */
function detailsFolder(resultsPath: string): string | null {
  const dateId = RESULTS_NAME.exec(basename(resultsPath))?.[1];
  if (dateId === undefined) return null;
  const parts = dirname(resultsPath).split(sep);
  const at = parts.lastIndexOf('results');
  return at < 0 ? join(dirname(resultsPath), dateId) : join(parts.slice(0, at).join(sep) || sep, 'details', ...parts.slice(at + 1), dateId);
}

export const lightevalImporter: Importer = {
  name: 'lighteval',
  claims(probe: FileProbe): boolean {
    if (/\.parquet$/i.test(probe.name)) return detailsName(probe.path) !== null;
    return isResults(probe);
  },
  async companions(probe) {
    if (!isResults(probe)) return [];
    const folder = detailsFolder(probe.path);
    if (folder === null || !existsSync(folder)) return [];
    return readdirSync(folder)
      .filter((f) => detailsName(join(folder, f)) !== null)
      .sort()
      .map((f) => ({ path: join(folder, f), with: probe.path, why: 'the details of the same model and date_id (lighteval writes them under details/<model>/<date_id>/)' }));
  },
  async importFiles(files) {
    const byRun = new Map<string, FileProbe[]>();
    for (const f of files) pushTo(byRun, runKey(f.path), f);
    const runs: ImportedRun[] = [];
    for (const own of byRun.values()) {
      const results = own.filter((f) => !/\.parquet$/i.test(f.name));
      const details = own.filter((f) => /\.parquet$/i.test(f.name)).map((f) => ({ path: f.path, ...detailsName(f.path)! }));
      // Two results files of one date_id cannot happen in one output folder; each is its own run if they do.
      if (results.length <= 1) runs.push(await importLightevalRun(results[0]?.path ?? null, details));
      else for (const r of results) runs.push(await importLightevalRun(r.path, []));
    }
    return runs;
  },
};
