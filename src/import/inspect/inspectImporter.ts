/**
 * The Inspect importer: `.eval` archives and `.json` EvalLogs. One log is one
 * run with one task (an Inspect log holds exactly one task).
 */
import { extname } from 'node:path';
import { inferred, same, type RecordNote } from '../../store/schema.ts';
import type { FileProbe, ImportedRun, Importer } from '../types.ts';
import { mapTables } from './mapping.ts';
import type { InspectLog } from './readLog.ts';
import { obj } from './migrate.ts';
import { runProvenance, taskProvenance } from './provenance.ts';
import { sha256File } from '../../util/hash.ts';

/**
 * A JSON head that starts like an EvalLog: pydantic writes `version` first, then
 * `status` and `eval`. Requiring `version` as the first key keeps Inspect's log
 * folder index (`logs.json`, keyed by file name) and other JSON out.
 */
export function looksLikeEvalLog(head: string): boolean {
  const text = head.replace(/^\uFEFF/, '').trimStart();
  return (/^\{\s*"version"\s*:\s*\d+\s*,/.test(text) && /"eval"\s*:\s*\{/.test(text) && /"(task|run_id|task_id)"\s*:/.test(text)) || looksLikeUnversionedLog(text);
}

/**
 * An EvalLog header written without its `version` key (a log trimmed to `status`, `eval`, `plan`, `results`,
 * `stats`): claimed only when it starts with `status` and its `eval` names the task, run and model an EvalSpec
 * requires, and it has `plan` or `results` too.
 */
function looksLikeUnversionedLog(text: string): boolean {
  return /^\{\s*"status"\s*:\s*"[a-z]+"\s*,\s*"eval"\s*:\s*\{/.test(text) &&
    ['task', 'run_id', 'model', 'created'].every((k) => new RegExp(`"${k}"\\s*:`).test(text)) &&
    /"(plan|results)"\s*:/.test(text);
}

export const inspectImporter: Importer = {
  name: 'inspect',
  claims(probe: FileProbe): boolean {
    const ext = extname(probe.name).toLowerCase();
    if (ext === '.eval') return true;
    return ext === '.json' && looksLikeEvalLog(probe.head);
  },
  async importFiles(files) {
    const runs: ImportedRun[] = [];
    for (const file of files) runs.push(await importLog(file.path));
    return runs;
  },
};

export async function importLog(path: string): Promise<ImportedRun> {
  // Loaded when a log is read: its zip and zstd readers (packages outside the bundle) cost every import's start-up 10 ms.
  const { readInspectLog, withMemberFieldLine } = await import('./readLog.ts');
  const log = await readInspectLog(path);
  try {
    return await mapLog(log, path);
  } catch (error) {
    throw await withMemberFieldLine(error, path);
  }
}

async function mapLog(log: InspectLog, path: string): Promise<ImportedRun> {
  const sha = await sha256File(path);
  const runId = `inspect-${sha.slice(0, 16)}`;
  const provenance = runProvenance(log, runId, sha);
  const spec = obj(log.header.eval)!;
  const task = String(spec.task ?? 'unknown');
  const taskBlock = taskProvenance(log);
  const tables = mapTables(log, runId, task);
  taskBlock.failures.empty_answers = same(inferred(tables.emptyAnswers, 'sample × epoch completions that are empty'));
  provenance.tasks[task] = taskBlock;

  const notes: RecordNote[] = [];
  if (log.rebuiltFromJournal) {
    notes.push({
      task,
      kind: 'inspect_rebuilt_from_journal',
      message: 'no header.json: the eval was still running or crashed; header rebuilt from _journal/start.json (status "started", no results)',
      evidence: [path],
    });
  }
  if (log.migrations.length > 0) {
    notes.push({ task, kind: 'inspect_legacy_log', message: 'legacy log shapes migrated on read', evidence: log.migrations });
  }
  if (log.header.version === undefined) {
    const what = log.samples.length === 0 ? 'no samples either: imported as results only (the scores the header reports, no per-item rows)' : 'read as the newest log schema this reader knows';
    notes.push({ task, kind: 'inspect_no_version', message: `the log has no 'version' key (the log schema version is unknown); ${what}`, evidence: [path] });
  }
  if (tables.summaryOnly.length > 0) {
    notes.push({ task, kind: 'inspect_summary_only', message: 'samples known only from (thinned) summaries: scores imported, no output', evidence: tables.summaryOnly });
  }
  if (log.header.status !== 'success' && !log.rebuiltFromJournal) {
    notes.push({ task, kind: 'inspect_status', message: `log status is '${String(log.header.status)}'`, evidence: [path] });
  }
  provenance.notes.push(...notes);
  return {
    provenance,
    tables: {
      instances: { rows: tables.instances },
      responses: { rows: tables.responses },
      scores: { rows: tables.scores },
      filtered: { rows: tables.filtered },
    },
    skipped: [],
  };
}
