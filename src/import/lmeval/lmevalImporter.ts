/**
 * The lm-evaluation-harness importer: every output format lm-eval has written
 * (results, samples as JSONL or a JSON array, v0.3 write_out, the BigScience fork),
 * paired into runs by folder and timestamp (pairing.ts).
 */
import { readdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { isPlainObject } from '../../util/json.ts';
import type { Companion, FileProbe, ImportedRun, Importer } from '../types.ts';
import { legacySamplesNames, samplesTaskOf, sniffLmeval, timestampOf, type LmevalFileKind } from './formats.ts';
import { importBigscienceRun, importWriteOutRun } from './legacyRuns.ts';
import { importLmevalRun } from './lmevalRun.ts';
import { groupFiles, type ResultsSummary } from './pairing.ts';
import { readResultsJson } from './runCommon.ts';
import { checkResultsShape } from './resultsShape.ts';

export const lmevalImporter: Importer = {
  name: 'lm-eval',
  claims(probe: FileProbe): boolean {
    return sniffLmeval(probe) !== null;
  },
  async importFiles(files, options): Promise<ImportedRun[]> {
    const kinds = files.map((probe) => ({ probe, kind: sniffLmeval(probe) as LmevalFileKind }));
    const results = new Map<FileProbe, Record<string, unknown>>();
    const summaries = new Map<FileProbe, ResultsSummary>();
    for (const { probe, kind } of kinds) {
      if (kind !== 'results') continue;
      const json = await readResultsJson(probe, checkResultsShape);
      results.set(probe, json);
      const config = isPlainObject(json.config) ? json.config : {};
      summaries.set(probe, {
        tasks: [...new Set([...Object.keys(isPlainObject(json.configs) ? json.configs : {}), ...Object.keys(json.results as Record<string, unknown>)])],
        modelArgs: typeof config.model_args === 'string' ? config.model_args : null,
      });
    }
    const runs: ImportedRun[] = [];
    for (const group of groupFiles(kinds, summaries)) {
      if (group.kind === 'lmeval') runs.push(await importLmevalRun(group, group.results ? results.get(group.results)! : null, options));
      else if (group.kind === 'write-out') runs.push(await importWriteOutRun(group, options));
      else runs.push(await importBigscienceRun(group, options));
    }
    return runs;
  },
  companions: samplesBeside,
};

/**
 * The samples files a results file named on its own pairs with, by the rules a folder
 * import uses (pairing.ts): the same timestamp (0.4.3+), or ≤0.4.2's `<model_args>_<task>.jsonl`.
 */
async function samplesBeside(probe: FileProbe): Promise<Companion[]> {
  if (sniffLmeval(probe) !== 'results') return [];
  const dir = dirname(probe.path);
  const names = (await readdir(dir, { withFileTypes: true }).catch(() => [])).filter((e) => e.isFile()).map((e) => e.name).sort();
  const ts = timestampOf(probe.name);
  if (ts !== null) {
    return names
      .filter((n) => samplesTaskOf(n) !== null && timestampOf(n) === ts)
      .map((n) => ({ path: join(dir, n), with: probe.path, why: `the samples file beside ${probe.name} with its timestamp` }));
  }
  const json = await readResultsJson(probe);
  const config = isPlainObject(json.config) ? json.config : {};
  if (typeof config.model_args !== 'string' || !isPlainObject(json.results)) return [];
  const modelArgs = config.model_args;
  const tasks = [...new Set([...Object.keys(isPlainObject(json.configs) ? json.configs : {}), ...Object.keys(json.results)])];
  const wanted = new Set(tasks.flatMap((t) => legacySamplesNames(modelArgs, t)));
  return names
    .filter((n) => wanted.has(n))
    .map((n) => ({ path: join(dir, n), with: probe.path, why: `the samples file beside ${probe.name} named after its model_args and a task, as lm-eval ≤0.4.2 names them` }));
}
