/**
 * Tasks that score by their own code (lm-eval's `process_results`): the rescoring matrix reads
 * answers against the gold with extractors and normalisers, which is not what such a task
 * computes. Its cells then say nothing about the reported metrics; this says so, names the
 * function and where its source is recorded, and sorts the task's metrics into those a cell
 * can read and those only the function makes. Function sources never go into a table cell.
 */
import type { RunProvenance } from '../store/schema.ts';
import { valueOf } from './provenanceView.ts';
import { rawResults, taskConfig } from './recordFiles.ts';
import { functionName } from '../util/pyFunctionSource.ts';

/**
 * Metrics a matrix cell reads the same way lm-eval's registry computes them (a match, or the log-prob argmax).
 * SQuAD's `exact` (lm-eval's squadv2, the BigScience fork's xquad) is the exact/squad cell: SQuAD's normalised answer
 * equal to one of the golds, reported × 100; a note that called it "not a match of an answer against the gold" was false.
 */
const MATRIX_READABLE = new Set(['exact_match', 'acc', 'acc_norm', 'acc_bytes', 'exact']);

export interface TaskCode {
  /** The function's name, or null when the record holds no readable source. */
  function: string | null;
  /** Where its source is recorded. */
  where: string;
  readable: string[];
  unreadable: string[];
  sentence: string;
}

/** For a task lm-eval scores with `process_results`, what the rescoring matrix can and cannot say. */
export async function taskCode(run: RunProvenance, task: string): Promise<TaskCode | null> {
  const metrics = valueOf(run, task, 'scoring.metrics');
  const names = Array.isArray(metrics) ? metrics.map((m) => (m !== null && typeof m === 'object' ? String((m as { metric?: unknown }).metric ?? '') : String(m))).filter((m) => m !== '') : [];
  const readable = names.filter((m) => MATRIX_READABLE.has(m));
  const unreadable = names.filter((m) => !MATRIX_READABLE.has(m));
  if (!run.tasks[task]?.scored_by_process_results) {
    // No task code, but no metric a cell reads either (a custom metric such as mae): the cells measure something else.
    if (run.source_kind !== 'lm-eval' || names.length === 0 || readable.length > 0) return null;
    return {
      function: null,
      where: `configs.${task}.metric_list of the results file`,
      readable,
      unreadable,
      sentence:
        `${task} reports ${unreadable.join(', ')}, ${unreadable.length === 1 ? 'which is not' : 'none of them'} a match of an answer against the gold, which is what a matrix cell reads: its cells and spread say nothing about the reported numbers ` +
        '(rescore --extractors as-recorded re-reads the per-sample values the task recorded)',
    };
  }
  const cfg = taskConfig(await rawResults(run), task);
  const name = functionName(cfg?.process_results);
  const where = `configs.${task}.process_results of the results file`;
  const fn = name !== null ? `its process_results function ${name} (source recorded in ${where})` : `its process_results code (recorded in ${where})`;
  const sentence =
    `${task} scores by its own code, ${fn}: the matrix reads answers against the gold with extractors and normalisers, not what that function computes, so its cells and spread say nothing about the reported numbers` +
    (names.length === 0
      ? '; the record lists no metric names'
      : `; of its metrics, ${readable.length > 0 ? `${readable.join(', ')} ${readable.length === 1 ? 'is' : 'are'} read the way a matrix cell reads (if the function computes ${readable.length === 1 ? 'it' : 'them'} as lm-eval's registry does)` : 'none is one a matrix cell reads'}` +
        `${unreadable.length > 0 ? `, and ${unreadable.join(', ')} ${unreadable.length === 1 ? 'comes' : 'come'} only from the function (rescore --extractors as-recorded re-reads the per-sample values it recorded)` : ''}`);
  return { function: name, where, readable, unreadable, sentence };
}
