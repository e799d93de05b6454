/** The readable form of a rescoring matrix (the JSON form is the data itself). */
import type { ScopeResult } from '../score/matrix.ts';
import type { AsRecordedSection } from '../score/asRecorded.ts';
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
    lines.push(
      ...formatTable(
        ['extractor', 'normalizer', 'aggregation', 'score', 'stderr', '95% CI', 'n', 'correct', ...(s.cells[0]?.bootstrap ? ['bootstrap se', 'bootstrap 95%'] : [])],
        s.cells.map((c) => [
          c.extractor, c.normalizer, c.aggregation, pct(c.score), pct(c.stderr),
          c.ci95 === null ? 'n/a' : `[${c.ci95[0].toFixed(4)}, ${c.ci95[1].toFixed(4)}]`, c.n, Number(c.correct.toFixed(6)),
          ...(c.bootstrap ? [pct(c.bootstrap.stderr), c.bootstrap.ci95 ? `[${c.bootstrap.ci95[0].toFixed(4)}, ${c.bootstrap.ci95[1].toFixed(4)}]` : 'n/a'] : []),
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
    lines.push(denominator);
    for (const note of s.notes) lines.push(`  note: ${note}`);
    lines.push('');
  }
  return lines;
}

type Row = (string | number)[];
const num = (x: unknown) => (typeof x === 'number' ? (Number.isFinite(x) ? String(Number(x.toPrecision(12))) : String(x)) : x === null || x === undefined ? 'n/a' : String(x));

/** One table row per reproduced cell; the row's shape depends on the source harness. */
const LMEVAL_ROWS = {
  header: ['task', 'filter', 'metric', 'n', 'value', 'stderr', 'reported', 'matches', 'items reproduced', 'differing', 'why'],
  row: (c: AsRecordedCellView) => [
    c.task, c.filter, c.metric, c.n, num(c.value), num(c.stderr),
    c.reported === null ? 'n/a' : `${num(c.reported.value)} ± ${num(c.reported.stderr)}`,
    c.matches_reported === null ? 'n/a' : c.matches_reported ? 'yes' : 'NO',
    `${c.items.reproduced} of ${c.n}${c.items.within_tolerance ? ` (+${c.items.within_tolerance.count} within ${num(c.items.within_tolerance.tolerance)})` : ''}`,
    c.items.differing.length, c.why ?? '',
  ],
};
const AS_RECORDED_ROWS: Record<AsRecordedSection['source_kind'], { header: string[]; row: (cell: never) => Row }> = {
  'lm-eval': LMEVAL_ROWS,
  // lmaudit run records lm-eval's rules; its cells have lm-eval's shape.
  lmaudit: LMEVAL_ROWS,
  inspect: {
    header: ['task', 'scorer', 'reducer', 'samples agree', 'metrics reproduced', 'differences'],
    row: (c: InspectCellView) => [
      c.task, c.scorer, c.reducer, `${c.samples.agree}/${c.samples.compared}`,
      c.metrics.map((m) => `${m.metric} ${num(m.stored)}${m.reproduced ? '' : ` (ours ${num(m.rescored)})`}`).join('; '),
      c.unsupported ?? c.samples.differences.slice(0, 3).map((d) => `${d.doc_id}: ${d.why}`).join('; '),
    ],
  },
  generic: { header: [], row: () => [] },
};

interface AsRecordedCellView {
  task: string; filter: string; metric: string; n: number; value: unknown; stderr: unknown;
  reported: { value: unknown; stderr: unknown } | null; matches_reported: boolean | null;
  items: { reproduced: number; within_tolerance?: { count: number; tolerance: number } | null; differing: { doc_id: string; why: string }[] }; why: string | null;
}
interface InspectCellView {
  task: string; scorer: string; reducer: string; unsupported?: string;
  samples: { agree: number; compared: number; differences: { doc_id: string; why: string }[] };
  metrics: { metric: string; stored: unknown; rescored: unknown; reproduced: boolean }[];
}

export function formatAsRecorded(sections: readonly AsRecordedSection[]): string[] {
  if (sections.length === 0) return [];
  const lines = ["As recorded (the source's own scoring rules, re-applied to the stored outputs):"];
  for (const s of sections) {
    lines.push(`run ${s.run_id} (${s.source_kind})${s.note ? `: ${s.note}` : ''}`);
    const shape = AS_RECORDED_ROWS[s.source_kind];
    if (s.cells.length > 0) lines.push(...formatTable(shape.header, s.cells.map((c) => shape.row(c as never))).map((l) => `  ${l}`));
    type CellDetail = {
      task?: string;
      metric?: string;
      items?: {
        within_tolerance?: { count: number; tolerance: number; max_difference: number; doc_ids: string[]; why: string } | null;
        differing?: { doc_id: string; recorded: unknown; recomputed: unknown; why: string }[] };
      warnings?: { kind: string; message: string; evidence: string[] }[];
    };
    for (const cell of s.cells as CellDetail[]) {
      const close = cell.items?.within_tolerance;
      if (close) {
        const docs = `${close.doc_ids.slice(0, 10).join(', ')}${close.doc_ids.length > 10 ? ', …' : ''}`;
        lines.push(`  ${cell.task} ${cell.metric}: ${close.count} item(s) within ${num(close.tolerance)} but not bit-identical (largest difference ${num(close.max_difference)}; docs ${docs}) — ${close.why}`);
      }
      for (const d of cell.items?.differing?.slice(0, 5) ?? []) {
        lines.push(`  item ${d.doc_id}: recorded ${JSON.stringify(d.recorded)}, recomputed ${JSON.stringify(d.recomputed)} — ${d.why}`);
      }
      for (const w of cell.warnings ?? []) {
        lines.push(`  warning (${cell.task}, ${w.kind}): ${w.message}`);
        if (w.evidence.length > 0) lines.push(`    e.g. ${w.evidence.slice(0, 3).join('; ')}`);
      }
    }
  }
  return lines;
}
