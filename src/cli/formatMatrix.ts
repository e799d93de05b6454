/** The readable form of a rescoring matrix (the JSON form is the data itself). */
import type { ScopeResult } from '../score/matrix.ts';
import { formatTable } from './output.ts';

const pct = (x: number | null) => (x === null ? 'n/a' : x.toFixed(4));

export function formatMatrix(scopes: readonly ScopeResult[], skippedOnImport: number): string[] {
  const lines: string[] = [];
  for (const s of scopes) {
    lines.push(`${s.task}  (run ${s.run_id}; answer type: ${s.answer_type} — ${s.answer_type_why}; engine: ${s.engine})`);
    const d = s.denominator;
    const denominator = `  denominator: ${d.items_scored} scored of ${d.items_read} read; ${d.no_response} without a response (scored as empty); ${d.no_gold} without gold (excluded)${skippedOnImport ? `; ${skippedOnImport} records skipped on import` : ''}`;
    if (d.items_scored === 0 || s.cells.length === 0) {
      // Every cell would read n/a over 0 items, or no cell is left: the denominator and notes say why, once.
      const nothing = s.cells.length === 0 ? '  no cell to compute (the notes say why)' : `  nothing to score: ${s.cells.length} cell(s) over 0 items`;
      lines.push(nothing, denominator, ...s.notes.map((note) => `  note: ${note}`), '');
      continue;
    }
    // A cell the records cannot compute has no bootstrap: its columns say n/a rather than stand empty.
    const bootstrapped = s.cells.some((c) => c.bootstrap);
    lines.push(
      ...formatTable(
        ['extractor', 'normalizer', 'aggregation', 'score', 'stderr', '95% CI', 'n', 'correct', ...(bootstrapped ? ['bootstrap se', 'bootstrap 95%'] : [])],
        s.cells.map((c) => [
          c.extractor, c.normalizer, c.aggregation, pct(c.score), pct(c.stderr),
          c.ci95 === null ? 'n/a' : `[${c.ci95[0].toFixed(4)}, ${c.ci95[1].toFixed(4)}]`, c.n, c.correct === null ? 'n/a' : Number(c.correct.toFixed(6)),
          ...(c.bootstrap ? [pct(c.bootstrap.stderr), c.bootstrap.ci95 ? `[${c.bootstrap.ci95[0].toFixed(4)}, ${c.bootstrap.ci95[1].toFixed(4)}]` : 'n/a'] : bootstrapped ? ['n/a', 'n/a'] : []),
        ]),
      ).map((l) => `  ${l}`),
    );
    if (s.spread.difference !== null && s.spread.lowest && s.spread.highest) {
      const l = s.spread.lowest;
      const h = s.spread.highest;
      // Equal extremes name no lowest and highest cell ("0.3800 (exact/strip/micro) to 0.3800 (exact/strip/micro)").
      const range = s.spread.difference === 0 ? `every scored cell ${pct(l.score)}` : `${pct(l.score)} (${l.extractor}/${l.normalizer}/${l.aggregation}) to ${pct(h.score)} (${h.extractor}/${h.normalizer}/${h.aggregation})`;
      lines.push(`  spread: ${range}: ${(s.spread.difference * 100).toFixed(2)} points${s.spread.caution === null ? '' : ` — ${s.spread.caution}`}`);
    }
    const worst = [...s.disagreement].filter((d) => d.between === 'extractors').sort((a, b) => b.rate - a.rate).slice(0, 3);
    for (const d of worst) lines.push(`  disagreement ${d.a} vs ${d.b}: ${(d.rate * 100).toFixed(2)}% (${d.count} of ${d.n})`);
    // The ids are already cut to --flips: all of them are listed, 'first' only when some are left out.
    const flipIds = s.flips.ids.length === 0 ? '' : ` (${s.flips.ids.length < s.flips.count ? 'first: ' : ''}${s.flips.ids.join(', ')})`;
    lines.push(`  items that flip between cells: ${s.flips.count}${flipIds}`);
    lines.push(denominator);
    for (const note of s.notes) lines.push(`  note: ${note}`);
    lines.push('');
  }
  return lines;
}

export { formatAsRecorded, reportedWithoutRows } from '../report/asRecordedView.ts';
