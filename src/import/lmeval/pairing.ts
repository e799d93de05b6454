/**
 * Which files make one run. lm-eval writes a results file and one samples file per
 * task beside it: 0.4.3+ match by the shared timestamp (`results_<ts>.json`,
 * `samples_<task>_<ts>.jsonl`); ≤0.4.2 name samples `<model_args>_<task>.jsonl` next
 * to a results file without a timestamp. A samples file nobody claims is a run of its own;
 * so is each v0.3 write_out file; a BigScience agg/slim/examples triple shares a suffix.
 */
import { basename, dirname } from 'node:path';
import type { FileProbe } from '../types.ts';
import { legacySamplesNames, samplesTaskOf, timestampOf, type LmevalFileKind } from './formats.ts';

export interface SamplesFile {
  probe: FileProbe;
  /** The task the samples belong to, and how we know. */
  task: string;
  taskFrom: 'file name' | 'results file';
}

export type RunGroup =
  | { kind: 'lmeval'; results: FileProbe | null; samples: SamplesFile[] }
  | { kind: 'write-out'; file: FileProbe }
  | { kind: 'bigscience'; results: FileProbe[]; examples: FileProbe[] };

export interface ResultsSummary {
  tasks: string[];
  modelArgs: string | null;
}

export function groupFiles(
  files: readonly { probe: FileProbe; kind: LmevalFileKind }[],
  summaries: ReadonlyMap<FileProbe, ResultsSummary>,
): RunGroup[] {
  const groups: RunGroup[] = [];
  const samples = files.filter((f) => f.kind === 'samples').map((f) => f.probe);
  const claimed = new Set<FileProbe>();

  for (const { probe, kind } of files) {
    if (kind !== 'results') continue;
    const summary = summaries.get(probe) ?? { tasks: [], modelArgs: null };
    const dir = dirname(probe.path);
    const ts = timestampOf(probe.name);
    const mine: SamplesFile[] = [];
    for (const s of samples) {
      if (claimed.has(s) || dirname(s.path) !== dir) continue;
      if (ts !== null) {
        const task = samplesTaskOf(s.name);
        if (task !== null && timestampOf(s.name) === ts) mine.push({ probe: s, task, taskFrom: 'file name' });
      } else if (summary.modelArgs !== null) {
        const task = summary.tasks.find((t) => legacySamplesNames(summary.modelArgs!, t).includes(s.name));
        if (task !== undefined) mine.push({ probe: s, task, taskFrom: 'results file' });
      }
    }
    for (const m of mine) claimed.add(m.probe);
    groups.push({ kind: 'lmeval', results: probe, samples: mine });
  }
  for (const s of samples) {
    if (claimed.has(s)) continue;
    groups.push({ kind: 'lmeval', results: null, samples: [{ probe: s, task: taskFromSamplesName(s.name), taskFrom: 'file name' }] });
  }
  for (const { probe, kind } of files) if (kind === 'write-out') groups.push({ kind: 'write-out', file: probe });

  const bigscience = new Map<string, { results: FileProbe[]; examples: FileProbe[] }>();
  for (const { probe, kind } of files) {
    if (kind !== 'bigscience-results' && kind !== 'bigscience-examples') continue;
    const key = `${dirname(probe.path)}\u0000${basename(probe.name).replace(/^[a-z]+-/, '').replace(/\.jsonl?$/, '')}`;
    const g = bigscience.get(key) ?? { results: [], examples: [] };
    (kind === 'bigscience-results' ? g.results : g.examples).push(probe);
    bigscience.set(key, g);
  }
  for (const g of bigscience.values()) groups.push({ kind: 'bigscience', ...g });
  return groups;
}

/**
 * The task named by a samples file: `samples_<task>_<ts>.jsonl`, or ≤0.4.2's
 * `<model_args>_<task>.jsonl`, where model_args keeps `__` for `/` (and sometimes `=`),
 * so the task starts after the first single underscore.
 */
export function taskFromSamplesName(name: string): string {
  const modern = samplesTaskOf(name);
  if (modern !== null && timestampOf(name) !== null) return modern;
  const legacy = /^((?:[^_]|__)*)_(.+)\.jsonl?$/.exec(name);
  return legacy !== null ? legacy[2]! : name.replace(/\.jsonl?$/, '');
}

/**
 * The model_args a ≤0.4.2 samples file is named after (`pretrained=EleutherAI__pythia-2.8b_winogrande.jsonl`
 * → `pretrained=EleutherAI/pythia-2.8b`), when the name kept its `=` (otherwise `__` is ambiguous).
 */
export function modelArgsFromSamplesName(name: string): string | null {
  if (samplesTaskOf(name) !== null && timestampOf(name) !== null) return null;
  const legacy = /^((?:[^_]|__)*)_(.+)\.jsonl?$/.exec(name);
  if (legacy === null || !legacy[1]!.includes('=')) return null;
  return legacy[1]!.replaceAll('__', '/');
}
