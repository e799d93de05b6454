/**
 * Which reported number is the standard error of which. lm-eval writes it beside the metric as
 * `<metric>_stderr,<filter>`; Inspect's scorers list `stderr` as a metric of their own, `stderr,<scorer view>`, the
 * standard error of the mean of that scorer's values, which its `accuracy` and `mean` metrics are. Read as a score of
 * its own, Inspect's stderr was printed as one ("accuracy,match 0.6667; stderr,match 0.3333") and the accuracy had
 * none, so `diff` could not set two results-only logs side by side with lm-eval's unpaired z.
 */
import { LMEVAL_BOOKKEEPING_KEYS } from '../formats/lmevalResultKeys.ts';

const INSPECT_MEANS = new Set(['accuracy', 'mean']);

/** A key that holds a reported score: neither a standard error nor bookkeeping. */
export function isScoreKey(key: string, reported: Record<string, unknown>): boolean {
  return !LMEVAL_BOOKKEEPING_KEYS.has(key) && !isStderrKey(key, reported);
}

/** A key that holds a standard error, not a score. */
export function isStderrKey(key: string, reported: Record<string, unknown>): boolean {
  if (/_stderr(,|$)/.test(key)) return true;
  const [metric, ...view] = key.split(',');
  return metric === 'stderr' && view.length > 0 && [...INSPECT_MEANS].some((m) => [m, ...view].join(',') in reported);
}

/** The key of `score`'s standard error, if the source reported one. */
export function stderrKeyOf(score: string, reported: Record<string, unknown>): string | undefined {
  const lmeval = score.includes(',') ? score.replace(',', '_stderr,') : `${score}_stderr`;
  if (lmeval in reported) return lmeval;
  const [metric, ...view] = score.split(',');
  if (INSPECT_MEANS.has(metric!) && view.length > 0) {
    // Inspect's stderr() or, for a mean reported with bootstrap_stderr(), that one.
    for (const name of ['stderr', 'bootstrap_stderr']) {
      const inspect = [name, ...view].join(',');
      if (inspect in reported) return inspect;
    }
  }
  return undefined;
}
