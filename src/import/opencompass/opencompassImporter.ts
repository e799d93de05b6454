/**
 * The OpenCompass importer: a work folder `<work_dir>/<timestamp>/` with predictions/<model>/<dataset>.json (or
 * shards <dataset>_0.json … _N.json), results/<model>/<dataset>.json, summary/summary_<ts>.{csv,txt,md} and
 * configs/<ts>.py. One run per (work folder, model), one task per dataset. A file is claimed only where it sits in
 * that layout and holds what OpenCompass writes there (a predictions record with `origin_prompt` and `prediction`,
 * a summary CSV with OpenCompass's header), so another harness's `{"0": {…}}` file is not taken for one.
 */
import { basename, dirname } from 'node:path';
import type { FileProbe, ImportedRun, Importer } from '../types.ts';
import { pushTo } from '../../util/groupBy.ts';
import { importWorkFolder } from './workFolder.ts';

/** The work folder a file belongs to and its role, or null when the path is not in OpenCompass's layout. */
export function workFolderRole(path: string): { work: string; role: 'predictions' | 'results' | 'summary' | 'config'; model?: string } | null {
  const parent = dirname(path);
  const kind = basename(dirname(parent));
  if ((kind === 'predictions' || kind === 'results') && /\.json$/.test(path) && !basename(path).startsWith('tmp_')) {
    return { work: dirname(dirname(parent)), role: kind, model: basename(parent) };
  }
  if (basename(parent) === 'summary' && /^summary_.*\.(csv|txt|md)$/.test(basename(path))) return { work: dirname(parent), role: 'summary' };
  if (basename(parent) === 'configs' && /\.py$/.test(path)) return { work: dirname(parent), role: 'config' };
  return null;
}

/** What each role's file starts with (OpenCompass writes JSON with indent 4, keys first to last as below). */
function headFits(role: string, probe: FileProbe): boolean {
  const head = probe.head.trimStart();
  switch (role) {
    case 'predictions':
      // Generation: {"0": {"origin_prompt": …, "prediction": …}}; perplexity: {"0": {"in-context examples": …, "label: …"}}.
      return /^\{\s*"0"\s*:\s*\{\s*"(origin_prompt|in-context examples|gold)"\s*:/.test(head) || head === '{}';
    case 'results':
      return head.startsWith('{') && !/^\{\s*"0"\s*:/.test(head);
    case 'summary':
      return /(^|\n)dataset,version,metric,mode(,|\n|$)/.test(probe.head) || /^\d{8}_\d{6}\s*\ntabulate format/.test(head) || /^\|\s*dataset\s*\|\s*version\s*\|/.test(head);
    default:
      return /^[A-Za-z_][A-Za-z0-9_]*\s*=/.test(head);
  }
}

/** An OpenCompass predictions file away from its work folder: named as such, not read as something else. */
export function strayOpenCompassFile(probe: FileProbe): string | null {
  if (workFolderRole(probe.path) !== null || !/^\{\s*"0"\s*:\s*\{\s*"(origin_prompt|in-context examples)"\s*:/.test(probe.head.trimStart())) return null;
  return 'OpenCompass predictions outside their work folder: lmaudit reads them at <work_dir>/<timestamp>/predictions/<model>/<dataset>.json, with the results, summary and config beside them';
}

export const opencompassImporter: Importer = {
  name: 'opencompass',
  claims(probe: FileProbe): boolean {
    const place = workFolderRole(probe.path);
    return place !== null && headFits(place.role, probe);
  },
  async importFiles(files) {
    const byWork = new Map<string, FileProbe[]>();
    for (const f of files) pushTo(byWork, workFolderRole(f.path)!.work, f);
    const runs: ImportedRun[] = [];
    for (const [work, own] of byWork) runs.push(...(await importWorkFolder(work, own.map((f) => ({ path: f.path, ...workFolderRole(f.path)! })))));
    return runs;
  },
};
