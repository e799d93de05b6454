/**
 * The HELM importer: a run folder (`runs/<suite>/<run_spec.name>/`) is one run with one task. helm-run writes
 * run_spec.json, scenario.json, scenario_state.json, per_instance_stats.json and stats.json; helm-summarize adds
 * instances.json and the display files. A file is claimed only beside a run_spec.json that holds an adapter_spec,
 * so a suite folder of many runs imports as many runs.
 */
import { existsSync, readFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { BadInputError } from '../../errors.ts';
import type { FileProbe, ImportedRun, Importer } from '../types.ts';
import { pushTo } from '../../util/groupBy.ts';
import { importHelmRun } from './helmRun.ts';

/** Every file a HELM run folder holds (helm-run's five, helm-summarize's three). */
export const HELM_RUN_FILES = [
  'run_spec.json',
  'scenario.json',
  'scenario_state.json',
  'per_instance_stats.json',
  'stats.json',
  'instances.json',
  'display_requests.json',
  'display_predictions.json',
] as const;

/** A run_spec.json as HELM writes it: the RunSpec dataclass, `name` then `scenario_spec` then `adapter_spec`. */
function isRunSpec(head: string): boolean {
  return /^\s*\{\s*"name"\s*:/.test(head) && /"scenario_spec"\s*:/.test(head) && /"adapter_spec"\s*:/.test(head);
}

const runSpecBeside = new Map<string, boolean>();

/** Whether the folder's run_spec.json is HELM's (read once per folder: claims stay cheap over a suite). */
function inRunFolder(path: string): boolean {
  const folder = dirname(path);
  let known = runSpecBeside.get(folder);
  if (known === undefined) {
    const spec = join(folder, 'run_spec.json');
    known = existsSync(spec) && isRunSpec(readFileSync(spec, 'utf8').slice(0, 64 * 1024));
    runSpecBeside.set(folder, known);
  }
  return known;
}

export const helmImporter: Importer = {
  name: 'helm',
  claims(probe: FileProbe): boolean {
    if (!(HELM_RUN_FILES as readonly string[]).includes(probe.name)) return false;
    if (probe.name === 'run_spec.json') return isRunSpec(probe.head);
    return inRunFolder(probe.path);
  },
  async companions(probe) {
    // A file named alone brings its run folder: the run is the folder, not one of its files.
    const folder = dirname(probe.path);
    return HELM_RUN_FILES.filter((f) => f !== probe.name && existsSync(join(folder, f))).map((f) => ({
      path: join(folder, f),
      with: probe.path,
      why: 'a HELM run folder is read whole (run_spec.json, scenario_state.json, per_instance_stats.json, stats.json …)',
    }));
  },
  async importFiles(files) {
    const byFolder = new Map<string, FileProbe[]>();
    for (const f of files) pushTo(byFolder, dirname(f.path), f);
    const runs: ImportedRun[] = [];
    for (const [folder, own] of byFolder) {
      if (!own.some((f) => f.name === 'run_spec.json')) {
        throw new BadInputError(`a HELM run folder without run_spec.json (read: ${own.map((f) => basename(f.path)).join(', ')})`, { file: folder });
      }
      runs.push(await importHelmRun(folder, new Set(own.map((f) => f.name))));
    }
    return runs;
  },
};
