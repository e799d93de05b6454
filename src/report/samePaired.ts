/**
 * A rescoring cell that reads a score exactly as the source did (`rescored:acc/none` beside
 * `acc,none`) gives the same paired statistics: the report and the diff print the row once
 * and say which rows gave the same numbers, rather than print every number twice.
 */
import type { PairedScore, TaskComparison } from '../audit/diff.ts';

/** Same n, means, difference, interval and McNemar counts: the rows say the same thing. */
function sameNumbers(x: PairedScore, y: PairedScore): boolean {
  const a = x.result;
  const b = y.result;
  return a.n === b.n && a.meanA === b.meanA && a.meanB === b.meanB && a.difference === b.difference && a.ci[0] === b.ci[0] && a.ci[1] === b.ci[1] && x.dropped === y.dropped &&
    (a.mcnemar === null) === (b.mcnemar === null) && (a.mcnemar === null || (a.mcnemar.aOnly === b.mcnemar!.aOnly && a.mcnemar.bOnly === b.mcnemar!.bOnly && a.mcnemar.p === b.mcnemar!.p));
}

type Flips = TaskComparison['flips'][number];
const sameFlips = (f: Flips, twin: Flips | undefined) => twin !== undefined && f.flips === twin.flips && f.lost === twin.lost && f.gained === twin.gained && JSON.stringify(f.byCause) === JSON.stringify(twin.byCause);

/**
 * The task's comparison with each `rescored:` paired row (and its flips) left out where a recorded
 * score gives the same numbers, and one sentence per row left out naming the row it equals.
 */
export function withoutSamePaired(t: TaskComparison): { task: TaskComparison; same: string[] } {
  const recorded = t.paired.filter((p) => !p.score.startsWith('rescored:'));
  const twins = new Map<string, string>();
  for (const p of t.paired) {
    if (!p.score.startsWith('rescored:')) continue;
    // rescored:<metric>/<filter> reads the recorded <metric>,<filter>; another metric that happens to agree is a different reading.
    const twin = recorded.find((r) => r.score === p.score.slice('rescored:'.length).replace('/', ',') && sameNumbers(r, p));
    if (twin !== undefined) twins.set(p.score, twin.score);
  }
  if (twins.size === 0) return { task: t, same: [] };
  return {
    task: { ...t, paired: t.paired.filter((p) => !twins.has(p.score)), flips: t.flips.filter((f) => !twins.has(f.score) || !sameFlips(f, t.flips.find((x) => x.score === twins.get(f.score)))) },
    same: [...twins].map(([score, twin]) => `${score} (a rescoring cell) gives the same paired numbers as ${twin}, so its row is not printed again.`),
  };
}
