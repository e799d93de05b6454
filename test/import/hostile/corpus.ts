/**
 * The hostile-input corpus (issue 15): files built here, each run through the CLI.
 * Every case ends with exit 0 and a result the case checks, or exit 2 and a message that
 * names the file; never a stack trace, a hang or a half-written store.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

export interface HostileCase {
  name: string;
  /** Files to write under the case's folder (relative path → content). */
  files: Record<string, string | Buffer>;
  /** CLI arguments; `{dir}` is the case's folder, `{out}` a store path under it that must not exist before. */
  args: string[];
  status: 0 | 2;
  /** For exit 2: what stderr must say (the file name is checked separately when `names` is set). */
  message?: RegExp;
  /** The file (relative to the case's folder) the message must name; defaults to the first file. */
  names?: string | null;
  /** For exit 0: a check of stdout. */
  check?: (stdout: string) => void;
  /** Prepares the folder beyond writing files (a read-only folder, say). */
  setup?: (dir: string) => void | Promise<void>;
}

export const TS = '2024-05-01T10-00-00.000000';
export const SAMPLES = `samples_hostile_${TS}.jsonl`;
export const RESULTS = `results_${TS}.json`;

/** A 0.4.x generate_until samples record. */
export function sampleRecord(docId: unknown, output: unknown = '8', extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    doc_id: docId,
    doc: { question: `q${String(docId)}`, answer: '8' },
    target: '8',
    arguments: { gen_args_0: { arg_0: `Q: q${String(docId)}\nA:`, arg_1: { until: ['\n'], do_sample: false } } },
    resps: [[output]],
    filtered_resps: [output],
    filter: 'none',
    metrics: ['exact_match'],
    exact_match: output === '8' ? 1.0 : 0.0,
    ...extra,
  };
}

export const jsonl = (records: readonly unknown[]): string => `${records.map((r) => JSON.stringify(r)).join('\n')}\n`;

export function resultsFile(results: unknown, extra: Record<string, unknown> = {}, indent?: number): string {
  return JSON.stringify({ results, configs: { hostile: { task: 'hostile', output_type: 'generate_until' } }, versions: { hostile: 1 }, ...extra }, null, indent);
}

export function writeFiles(dir: string, files: Record<string, string | Buffer>): void {
  for (const [name, content] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, name)), { recursive: true });
    writeFileSync(join(dir, name), content);
  }
}

export const generic = (records: readonly unknown[]): string => jsonl(records);
