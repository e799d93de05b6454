/**
 * Inspect's scoring rules changed between releases (reference §11), so a log's
 * stored score reflects the version that wrote it. When a rescore under the
 * 0.3.260 rules disagrees, this names the rule change that can explain it, or
 * says that none does.
 */
import { choiceRuleChangesThatApply } from './choice.ts';
import type { InspectScore } from './scorers.ts';

/** Built-in scorers whose score's explanation is the completion they scored (reference §6.1, §6.2, §6.4, §6.9). */
const EXPLAINED_BY_COMPLETION = new Set(['match', 'includes', 'answer', 'choice']);

/** "0.3.154.dev44+g32a84c8fe" → [0, 3, 154]; null when unparseable. */
export function parseVersion(version: string | null): [number, number, number] | null {
  const m = version === null ? null : /^(\d+)\.(\d+)\.(\d+)/.exec(version);
  return m === null ? null : [Number(m[1]), Number(m[2]), Number(m[3])];
}

function before(version: [number, number, number] | null, patch: number): boolean {
  return version !== null && version[0] === 0 && version[1] === 3 && version[2] < patch;
}

export function explainDifference(scorer: string, version: string | null, stored: InspectScore, ours: InspectScore, completion: string, params: Record<string, unknown> = {}): string {
  const v = parseVersion(version);
  const name = scorer.replace(/^inspect_ai\//, '');
  // The explanation is the completion the score was computed on: another text there means the output was changed after
  // scoring, which no rule change explains. (A shuffled choice() lists the options around it, so containment, not equality.)
  if (EXPLAINED_BY_COMPLETION.has(name) && typeof stored.explanation === 'string' && !stored.explanation.includes(completion)) {
    return "the sample's output is not the completion its stored score was computed on (the score's explanation holds another text): the output was changed after scoring, so the stored score does not describe it";
  }
  const reasons: string[] = [];
  if ((name === 'pattern' || name === 'answer') && (stored.value === 'I' || ours.value === 'I') && (stored.value === 'N' || ours.value === 'N')) {
    reasons.push("no-match value: 'I' before 0.3.206, 'N' from 0.3.206 (and 'I' again after 0.3.260)");
  }
  // Each change below alters a score only where its condition holds: two ANSWER:s to choose between, numeric=True.
  if (name === 'answer' && before(v, 221) && (completion.match(/answer\s*:/gi) ?? []).length > 1) reasons.push('before 0.3.221 answer(letter|word) bound to the first ANSWER:, now the last');
  if (name === 'answer' && before(v, 160)) reasons.push('before 0.3.160 answer(line) was not anchored to the end of the text');
  if (name === 'match' && before(v, 221) && params.numeric === true) reasons.push('before 0.3.221 match(numeric=True) accepted substring false positives');
  if (name === 'choice' && before(v, 260)) reasons.push(...choiceRuleChangesThatApply(completion).map((r) => `multiple_choice parse: ${r}`));
  if (completion === '' && before(v, 123)) reasons.push('before 0.3.123 output.completion was not stored; the completion was re-derived from choices[0]');
  if (reasons.length === 0) {
    return `not explained by a known rule change between ${version ?? 'an unknown version'} and 0.3.260: a scorer argument not recorded in the log, a custom scorer under a built-in name, or a divergence in this port`;
  }
  return `log written by inspect_ai ${version ?? '?'}; ${reasons.join('; ')}`;
}
