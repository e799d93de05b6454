/** The readable form of a rescoring matrix (the JSON form is the data itself). */
import type { ScopeResult } from '../score/matrix.ts';
import type { AsRecordedSection } from '../score/asRecorded.ts';
import { formatTable } from './output.ts';

const pct = (x: number | null) => (x === null ? 'n/a' : x.toFixed(4));

export function formatMatrix(scopes: readonly ScopeResult[], skippedOnImport: number): string[] {
  const lines: string[] = [];
  for (const s of scopes) {
    lines.push(`${s.task}  (run ${s.run_id}; answer type: ${s.answer_type} — ${s.answer_type_why}; engine: ${s.engine})`);
    lines.push(
      ...formatTable(
        ['extractor', 'normalizer', 'aggregation', 'score', 'stderr', '95% CI', 'n', 'correct'],
        s.cells.map((c) => [
          c.extractor, c.normalizer, c.aggregation, pct(c.score), pct(c.stderr),
          c.ci95 === null ? 'n/a' : `[${c.ci95[0].toFixed(4)}, ${c.ci95[1].toFixed(4)}]`, c.n, Number(c.correct.toFixed(6)),
        ]),
      ).map((l) => `  ${l}`),
    );
    if (s.spread.difference !== null && s.spread.lowest && s.spread.highest) {
      const l = s.spread.lowest;
      const h = s.spread.highest;
      lines.push(
        `  spread: ${pct(l.score)} (${l.extractor}/${l.normalizer}/${l.aggregation}) to ${pct(h.score)} (${h.extractor}/${h.normalizer}/${h.aggregation}): ${(s.spread.difference * 100).toFixed(2)} points`,
      );
    }
    const worst = [...s.disagreement].filter((d) => d.between === 'extractors').sort((a, b) => b.rate - a.rate).slice(0, 3);
    for (const d of worst) lines.push(`  disagreement ${d.a} vs ${d.b}: ${(d.rate * 100).toFixed(2)}% (${d.count} of ${d.n})`);
    lines.push(`  items that flip between cells: ${s.flips.count}${s.flips.ids.length ? ` (first: ${s.flips.ids.slice(0, 8).join(', ')})` : ''}`);
    const d = s.denominator;
    lines.push(
      `  denominator: ${d.items_scored} scored of ${d.items_read} read; ${d.no_response} without a response (scored as empty); ${d.no_gold} without gold (excluded)${skippedOnImport ? `; ${skippedOnImport} records skipped on import` : ''}`,
    );
    for (const note of s.notes) lines.push(`  note: ${note}`);
    lines.push('');
  }
  return lines;
}

export function formatAsRecorded(sections: readonly AsRecordedSection[]): string[] {
  if (sections.length === 0) return [];
  const lines = ['As recorded (the source\'s own scoring, re-applied):'];
  for (const s of sections) {
    lines.push(`  run ${s.run_id} (${s.source_kind}): ${s.cells.length} cell(s)${s.note ? ` — ${s.note}` : ''}`);
    for (const cell of s.cells) lines.push(`    ${JSON.stringify(cell)}`);
  }
  return lines;
}
