/**
 * Legacy Inspect log shapes (reference §2.12) brought to the current model, in
 * place, so the mapping reads one shape. Each migration that fires is reported
 * by name: an auditor should see that a log was old enough to need it.
 */
import { isPlainObject } from '../../util/json.ts';

export type Json = Record<string, unknown>;

export function obj(value: unknown): Json | undefined {
  return isPlainObject(value) ? value : undefined;
}

export function arr(value: unknown): unknown[] | undefined {
  return Array.isArray(value) ? value : undefined;
}

/** Migrates header-level legacy shapes; returns the names of the migrations applied. */
export function migrateHeader(header: Json): { applied: string[]; legacyReductions: unknown[] | undefined } {
  const applied: string[] = [];
  const spec = obj(header.eval);
  let legacyReductions: unknown[] | undefined;
  if (spec !== undefined) {
    if (Array.isArray(spec.sandbox)) {
      spec.sandbox = { type: spec.sandbox[0], config: spec.sandbox[1] };
      applied.push('eval.sandbox [type, config] -> {type, config}');
    }
    if (spec.task_args_passed === undefined && spec.task_args !== undefined) {
      spec.task_args_passed = spec.task_args;
      applied.push('eval.task_args_passed missing -> copy of task_args');
    }
    if (spec.solver_args_passed === undefined && spec.solver_args !== undefined) {
      spec.solver_args_passed = spec.solver_args;
      applied.push('eval.solver_args_passed missing -> copy of solver_args');
    }
    const config = obj(spec.config);
    if (config !== undefined && config.max_messages !== undefined && config.message_limit === undefined) {
      config.message_limit = config.max_messages;
      delete config.max_messages;
      applied.push('config.max_messages -> message_limit');
    }
  }
  const plan = obj(header.plan);
  for (const step of arr(plan?.steps) ?? []) {
    const s = obj(step);
    if (s !== undefined && s.params_passed === undefined && s.params !== undefined) s.params_passed = s.params;
  }
  const results = obj(header.results);
  if (results !== undefined) {
    if (results.scores === undefined && obj(results.scorer) !== undefined) {
      const scorer = obj(results.scorer)!;
      results.scores = [{ ...scorer, scorer: scorer.name, metrics: results.metrics ?? {} }];
      delete results.scorer;
      delete results.metrics;
      applied.push('results.scorer -> results.scores');
    }
    if (results.sample_reductions !== undefined) {
      legacyReductions = arr(results.sample_reductions);
      delete results.sample_reductions;
      applied.push('results.sample_reductions -> reductions');
    }
    for (const score of arr(results.scores) ?? []) {
      for (const metric of Object.values(obj(obj(score)?.metrics) ?? {})) {
        const m = obj(metric);
        if (m !== undefined && m.params === undefined && m.options !== undefined) {
          m.params = m.options;
          delete m.options;
          if (!applied.includes('metric options -> params')) applied.push('metric options -> params');
        }
      }
    }
  }
  return { applied, legacyReductions };
}

/** Migrates one sample; `firstScorer` names the key a legacy single `score` is filed under. */
export function migrateSample(sample: Json, firstScorer: string | undefined, applied: Set<string>): void {
  if (sample.scores === undefined && obj(sample.score) !== undefined) {
    sample.scores = { [firstScorer ?? 'score']: sample.score };
    delete sample.score;
    applied.add('sample.score -> sample.scores');
  }
  const transcript = obj(sample.transcript);
  if (transcript !== undefined) {
    sample.events ??= transcript.events;
    sample.attachments ??= transcript.content;
    delete sample.transcript;
    applied.add('sample.transcript -> events + attachments');
  }
  for (const choice of arr(obj(sample.output)?.choices) ?? []) {
    const c = obj(choice);
    if (c?.stop_reason === 'length') {
      c.stop_reason = 'max_tokens';
      applied.add("stop_reason 'length' -> 'max_tokens'");
    }
  }
  const attachments = obj(sample.attachments) ?? {};
  for (const field of ['input', 'messages', 'output', 'target', 'choices'] as const) {
    if (sample[field] !== undefined) sample[field] = resolveAttachments(sample[field], attachments);
  }
}

/** Replaces `attachment://<hash>` (and the very old `tc://<hash>`) strings with the stored text. */
export function resolveAttachments(value: unknown, attachments: Json): unknown {
  if (typeof value === 'string') {
    const m = /^(?:attachment|tc):\/\/([0-9a-f]+)$/.exec(value);
    if (m !== null && typeof attachments[m[1]!] === 'string') return attachments[m[1]!];
    return value;
  }
  if (Array.isArray(value)) return value.map((v) => resolveAttachments(v, attachments));
  if (isPlainObject(value)) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, resolveAttachments(v, attachments)]));
  return value;
}
