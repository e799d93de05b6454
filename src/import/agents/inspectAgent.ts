/**
 * Agent settings of an Inspect log (sandboxed agent tasks): the sandbox, the error policy, epochs and limits, and
 * the denominator Inspect used (metrics are computed over the samples that carry scores: an errored sample counts only
 * where it carries scores, from 0.3.248 on). Called by the Inspect importer; returns nothing for a log without agent traits.
 */
import { inferred, recorded, same, emptyAgentProvenance, type RecordNote, type Setting } from '../../store/schema.ts';
import { isObject, note } from './agentRun.ts';

const LIMIT_ARGS = /^(max_(messages|turns|steps|tokens|attempts|time|tool_calls)|message_limit|token_limit|time_limit|working_limit|step_limit|cost_limit)$/;

export function inspectAgentSettings(header: Record<string, unknown>, samples: readonly Record<string, unknown>[]): { agent: Record<string, Setting>; notes: RecordNote[] } | undefined {
  const spec = isObject(header.eval) ? header.eval : {};
  const config = isObject(spec.config) ? spec.config : {};
  const taskArgs = isObject(spec.task_args) ? spec.task_args : {};
  const results = isObject(header.results) ? header.results : {};
  const sandbox = spec.sandbox;
  const limitArgs = Object.fromEntries(Object.entries(taskArgs).filter(([k, v]) => LIMIT_ARGS.test(k) && v !== null));
  const configLimits = Object.fromEntries(['message_limit', 'token_limit', 'time_limit', 'working_limit'].filter((k) => config[k] != null).map((k) => [k, config[k]]));
  const firedLimits = samples.map((s) => s.limit).filter(isObject);
  const errored = samples.filter((s) => s.error !== undefined && s.error !== null).length;
  if (!isObject(sandbox) && Object.keys(limitArgs).length === 0 && Object.keys(configLimits).length === 0 && firedLimits.length === 0) return undefined;
  const rec = (v: unknown, from: string): Setting => same(v === undefined || v === null ? { status: 'unknown' } : recorded(v, from));
  const agent: Record<string, Setting> = {
    ...emptyAgentProvenance(),
    sandbox_provider: isObject(sandbox) ? rec(sandbox.type, 'eval.sandbox.type') : same(inferred(null, 'eval.sandbox absent: the sandbox, if any, is set per sample')),
    sandbox_resources: rec(isObject(sandbox) ? sandbox.config : undefined, 'eval.sandbox.config'),
    timeouts: rec(Object.keys(configLimits).length ? configLimits : undefined, 'eval.config limits'),
    attempts: config.epochs !== undefined ? rec({ epochs: config.epochs, reducer: config.epochs_reducer ?? null }, 'eval.config.epochs') : same(inferred({ epochs: 1 }, "Inspect's default")),
    retries: rec(config.fail_on_error !== undefined || config.continue_on_fail !== undefined ? { fail_on_error: config.fail_on_error ?? null, continue_on_fail: config.continue_on_fail ?? null, retry_on_error: config.retry_on_error ?? null } : undefined, 'eval.config'),
    task_selection: rec(config.limit, 'eval.config.limit'),
    model_configured: rec(spec.model, 'eval.model'),
    harness_version: rec(isObject(spec.packages) ? spec.packages.inspect_ai : undefined, 'eval.packages.inspect_ai'),
    denominator_rule: same(recorded('metrics over the samples that carry scores, reduced over epochs (an errored sample counts only where it carries scores, from Inspect 0.3.248 on; before, errored samples were left out)', 'inspect_ai scoring')),
  };
  if (Object.keys(limitArgs).length > 0) agent.agent_limits = rec(limitArgs, 'eval.task_args');
  const notes: RecordNote[] = [];
  const total = results.total_samples;
  const completed = results.completed_samples;
  if (typeof total === 'number' && typeof completed === 'number' && completed < total) {
    const scores = Array.isArray(results.scores) ? results.scores.filter(isObject) : [];
    const scored = scores.map((s) => s.scored_samples).find((n) => typeof n === 'number');
    notes.push(note('scored_subset', scoredSubset(total, completed, scored, config, samples)));
  }
  if (firedLimits.length > 0) notes.push(note('limit_fired', `${firedLimits.length} sample(s) in the log hit a limit (${[...new Set(firedLimits.map((l) => `${l.type}${l.limit !== undefined ? ` ${l.limit}` : ''}`))].join(', ')}) and were still scored`));
  if (errored > 0) notes.push(note('errored_samples', `${errored} sample(s) in the log carry an error`));
  return { agent, notes };
}

/**
 * total_samples counts sample × epoch results and completed_samples those without an error, while scored_samples counts
 * the epoch-reduced per-sample scores the metrics were computed over (reference §2.4, §4); an errored result counts in
 * the metrics only where it carries scores (score_on_error, or a scorer that finished first; from 0.3.248 on).
 */
function scoredSubset(total: number, completed: number, scored: unknown, config: Record<string, unknown>, samples: readonly Record<string, unknown>[]): string {
  const epochs = typeof config.epochs === 'number' && config.epochs > 1 ? config.epochs : 1;
  const errored = samples.filter((s) => s.error !== undefined && s.error !== null);
  const withScores = errored.filter((s) => isObject(s.scores) && Object.keys(s.scores).length > 0).length;
  const results = epochs > 1 ? `sample × epoch results (${epochs} epochs)` : 'samples';
  const metrics = typeof scored === 'number' ? `; the metrics are over ${scored} ${epochs > 1 ? 'epoch-reduced ' : ''}sample score(s)` : '';
  const inLog = errored.length === 0
    ? 'the log holds none of the errored ones'
    : `of the ${errored.length} errored in the log, ${carry(withScores)} scores (Inspect counts those in the metrics from 0.3.248 on) and ${carry(errored.length - withScores)} none (left out of the metrics)`;
  return `${completed} of ${total} ${results} completed without error${metrics}; ${inLog} (fail_on_error ${String(config.fail_on_error ?? 'default')})`;
}

function carry(n: number): string {
  return `${n} ${n === 1 ? 'carries' : 'carry'}`;
}
