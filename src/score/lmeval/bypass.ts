/**
 * lm-eval's --predict_only: the metric that stands for no metric. Apart from taskScoring.ts so that
 * the audit's checks, which only ask whether a run was bypassed, do not load lm-eval's metric code
 * at every command's start-up (rescoring a store is timed from the process start).
 */
import type { RunProvenance } from '../../store/schema.ts';
import { isPlainObject } from '../../util/json.ts';

/** lm-eval's --predict_only metric (api/metrics.py): it stands for no metric; its aggregate 999 (a generate_until task's only) is a placeholder. */
export const BYPASS = 'bypass';

/** The task's metrics were replaced by lm-eval's bypass (--predict_only): its metric list, configured or used, is bypass alone. */
export function metricsBypassed(run: RunProvenance, task: string): boolean {
  const metrics = run.tasks[task]?.scoring.metrics;
  const onlyBypass = (v: unknown) => Array.isArray(v) && v.length > 0 && v.every((m) => m === BYPASS || (isPlainObject(m) && m.metric === BYPASS));
  return [metrics?.configured, metrics?.used].some((f) => f !== undefined && f.status !== 'unknown' && onlyBypass(f.value));
}
