/**
 * When two runs score the same on every document they share and their reported numbers differ
 * only because one covered documents the other did not (a full run against `--limit 20`), the
 * summaries say so in words: the difference is the subset, not the model or the settings.
 */
import type { TaskComparison } from '../audit/diff.ts';
import { cell, fmt } from './textTable.ts';

/** The sentence for one task comparison, or null when the difference is not (only) a subset's. */
export function subsetSentence(t: TaskComparison, options: { namingScores: boolean } = { namingScores: true }): string | null {
  const i = t.items;
  if (i === null || i.shared === 0 || (i.onlyA === 0 && i.onlyB === 0)) return null;
  const recorded = t.paired.filter((p) => !p.score.startsWith('rescored:'));
  const zero = (p: TaskComparison['paired'][number]) => p.result.difference === 0 && p.result.ci[0] === 0 && p.result.ci[1] === 0;
  // An item left out of a score (no numeric value on a side) is not known to agree.
  if (recorded.length === 0 || !recorded.every((p) => zero(p) && p.dropped === 0)) return null;
  const reported = t.reported.filter((s) => typeof s.a === 'number' && typeof s.b === 'number' && s.a !== s.b && !s.score.includes('_stderr'));
  // A reported score with no paired row (a corpus-level f1) is not known to agree on the shared documents.
  if (reported.length === 0 || reported.some((s) => t.notPaired?.includes(s.score))) return null;
  // 0/1 scores with no discordant item agree document for document; otherwise only the mean difference is known to be 0.
  const itemForItem = recorded.every((p) => p.result.mcnemar !== null && p.result.mcnemar.aOnly + p.result.mcnemar.bOnly === 0);
  const where = i.onlyB === 0 ? `the ${i.onlyA} document(s) only A scored` : i.onlyA === 0 ? `the ${i.onlyB} document(s) only B scored` : `the ${i.onlyA} document(s) only A scored and the ${i.onlyB} only B scored`;
  const limit = t.settings.items.flatMap((x) => x.fields).find((f) => f.item === 'samples' && f.field === 'limit' && f.verdict === 'differs');
  const limits = limit === undefined ? '' : ` (limit ${limit.a.status === 'unknown' ? 'unknown' : cell(limit.a.value)} in A, ${limit.b.status === 'unknown' ? 'unknown' : cell(limit.b.value)} in B)`;
  const scores = options.namingScores ? `the reported ${reported.map((s) => `${s.score} (A ${fmt(s.a as number)}, B ${fmt(s.b as number)})`).join(', ')} differ, but ` : '';
  return (
    `${scores}on the ${i.shared} shared documents ` +
    `${itemForItem ? 'the two runs score the same document for document' : 'the paired difference of every score is 0'}: ` +
    `the difference comes entirely from ${where}${limits}`
  );
}
