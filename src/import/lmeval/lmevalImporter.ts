/**
 * The lm-evaluation-harness importer: every output format lm-eval has written
 * (results, samples as JSONL or a JSON array, v0.3 write_out, the BigScience fork),
 * paired into runs by folder and timestamp (pairing.ts).
 */
import { isPlainObject } from '../../util/json.ts';
import type { FileProbe, ImportedRun, Importer } from '../types.ts';
import { sniffLmeval, type LmevalFileKind } from './formats.ts';
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
      const json = await readResultsJson(probe);
      checkResultsShape(json, probe.path);
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
};
