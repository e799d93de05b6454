/**
 * Which lm-eval release's rules a run was scored by, where they changed between releases (median sorting from
 * 0.4.12, multi_choice_regex trying the longest choice first and a task's group weight the largest of its metrics'
 * counts from 0.4.13). An lm-eval run is scored by its own version; `lmaudit run` scores as lm-eval 0.4.13 does
 * (its harness version is lmaudit's own, 0.1.0, which is no lm-eval release); a run whose version is not recorded
 * (nor inferred) is taken to be of the newest rules.
 */
import type { RunProvenance } from '../../store/schema.ts';

/** The lm-eval release `lmaudit run` reproduces. */
const LMAUDIT_RUN_RULES: readonly [number, number, number] = [0, 4, 13];

/** Whether `run` was scored by lm-eval `major.minor.patch` or later. */
export function scoredByLmevalAtLeast(run: RunProvenance, major: number, minor: number, patch: number): boolean {
  const rules = rulesVersion(run);
  if (rules === null) return true;
  const [a, b, c] = rules;
  return a !== major ? a > major : b !== minor ? b > minor : c >= patch;
}

/**
 * The lm-eval version whose rules `run` follows, as recorded or inferred ("0.4.13", "0.4.3–0.4.6", "≥0.4.10"); a
 * store `lmaudit run` wrote reads as the release it reproduces. Null where nothing is known.
 */
export function lmevalRulesText(run: RunProvenance): string | null {
  const name = run.harness.name?.used;
  if (name !== undefined && name.status !== 'unknown' && name.value === 'lmaudit') return LMAUDIT_RUN_RULES.join('.');
  const fact = run.harness.version?.used;
  return fact && fact.status !== 'unknown' ? String(fact.value) : null;
}

function rulesVersion(run: RunProvenance): readonly [number, number, number] | null {
  // 'v0.3.x' (a write_out layout's inferred version) reads as 0.3.0; a range as its lowest release.
  const text = lmevalRulesText(run);
  const m = text === null ? null : /(\d+)\.(\d+)(?:\.(\d+))?/.exec(text);
  return m === null ? null : [Number(m[1]), Number(m[2]), Number(m[3] ?? 0)];
}
