/** The readable form of a rescoring matrix (the JSON form is the data itself). */
import type { ScopeResult } from '../score/matrix.ts';
import type { AsRecordedSection } from '../score/asRecorded.ts';
import type { AsRecordedCell } from '../score/lmeval/asRecorded.ts';
import type { InspectRescoreCell } from '../score/inspect/rescore.ts';
import type { AgentAsRecordedCell } from '../score/agents/asRecorded.ts';
import type { EeeAsRecordedCell } from '../score/eee/asRecorded.ts';
import type { RunProvenance } from '../store/schema.ts';
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
          c.ci95 === null ? 'n/a' : `[${c.ci95[0].toFixed(4)}, ${c.ci95[1].toFixed(4)}]`, c.n, c.correct === null ? 'n/a' : Number(c.correct.toFixed(6)),
          ...(c.bootstrap ? [pct(c.bootstrap.stderr), c.bootstrap.ci95 ? `[${c.bootstrap.ci95[0].toFixed(4)}, ${c.bootstrap.ci95[1].toFixed(4)}]` : 'n/a'] : []),
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

type Row = (string | number)[];
const num = (x: unknown) => (typeof x === 'number' ? (Number.isFinite(x) ? String(Number(x.toPrecision(12))) : String(x)) : x === null || x === undefined ? 'n/a' : String(x));

/** A table's header and how one cell becomes its row. */
interface RowShape<Cell> {
  header: readonly string[];
  row: (cell: Cell) => Row;
}

const AGENT_ROWS: RowShape<AgentAsRecordedCell> = {
  header: ['task', 'quantity', 'recorded', 'reproduced', 'matches'],
  row: (c) => [c.task, c.quantity, num(c.recorded), num(c.reproduced), c.matches],
};

const EEE_ROWS: RowShape<EeeAsRecordedCell> = {
  header: ['task', 'result', 'n', 'recorded', 'reproduced', 'matches', 'how'],
  row: (c) => [c.task, c.result, c.n, num(c.recorded), num(c.reproduced), c.matches, c.why],
};

/** One table row per reproduced cell; the row's shape depends on the source harness. */
const LMEVAL_ROWS: RowShape<AsRecordedCell> = {
  header: ['task', 'filter', 'metric', 'n', 'value', 'stderr', 'reported', 'matches', 'items reproduced', 'differing', 'why'],
  row: (c) => [
    c.task, c.filter, c.metric, c.n, num(c.value), num(c.stderr),
    c.reported === null ? 'not reported' : `${named(c.reported.value)} ± ${named(c.reported.stderr)}`,
    c.matches_reported === null ? 'n/a' : c.matches_reported ? 'yes' : notNumeric(c.reported?.value) !== null ? 'n/a' : 'NO',
    `${c.items.reproduced} of ${c.n}${c.items.within_tolerance ? ` (+${c.items.within_tolerance.count} within ${num(c.items.within_tolerance.tolerance)})` : ''}` +
      (c.items.taken_as_recorded ? ` (${c.items.taken_as_recorded.count} as recorded)` : ''),
    c.items.differing.length, lmevalWhy(c),
  ],
};
const INSPECT_ROWS: RowShape<InspectRescoreCell> = {
  header: ['task', 'scorer', 'reducer', 'samples agree', 'metrics reproduced', 'differences'],
  row: (c) => [
      c.task, c.scorer, c.reducer,
      c.samples.rescored > 0
        ? c.samples.compared === 0 ? `no stored scores (${c.samples.rescored} rescored)` : `${c.samples.agree}/${c.samples.compared}`
        : c.samples.stored > 0 ? `not rescored (${c.samples.stored} stored)` : unscoredHeld(c) > 0 ? `none scored (${unscoredHeld(c)} held)` : 'no samples',
      c.metrics.map((m) => inspectMetric(m, c.samples.rescored + c.samples.stored, c.missing_samples !== undefined, unscoredHeld(c))).join('; '),
    [
      ...(c.missing_samples === undefined ? [] : [`the log holds ${c.missing_samples.held} of the ${c.missing_samples.total} sample × epoch results the run had (results.total_samples, errored ones included)`]),
      ...(c.unsupported !== undefined ? [c.unsupported] : c.samples.differences.slice(0, 3).map((d) => `${d.doc_id}: ${d.why}`)),
    ].join('; '),
  ],
};

/** A section's table: the row shape follows its source kind, as its cells do. */
function sectionTable(s: AsRecordedSection): { header: readonly string[]; rows: Row[] } {
  switch (s.source_kind) {
    case 'lm-eval':
    case 'lmaudit':
      return { header: LMEVAL_ROWS.header, rows: s.cells.map(LMEVAL_ROWS.row) };
    case 'inspect':
      return { header: INSPECT_ROWS.header, rows: s.cells.map(INSPECT_ROWS.row) };
    case 'generic':
      return { header: [], rows: [] };
    case 'eee':
      return { header: EEE_ROWS.header, rows: s.cells.map(EEE_ROWS.row) };
    default:
      return { header: AGENT_ROWS.header, rows: s.cells.map(AGENT_ROWS.row) };
  }
}

/** What a reported value is when it is not a number: NaN, a string, nothing (null when it is a number). */
function notNumeric(v: unknown): string | null {
  if (typeof v === 'number') return Number.isNaN(v) ? 'NaN (not a number)' : null;
  if (v === 'Infinity' || v === '-Infinity') return null;
  if (v === 'NaN') return 'NaN (not a number)';
  if (v === null || v === undefined) return 'missing (null)';
  if (typeof v === 'string') return `the string ${JSON.stringify(v)}, not a number`;
  return `${JSON.stringify(v)}, not a number`;
}

/** A reported value named as what it is. */
const named = (v: unknown) => (typeof v === 'number' && !Number.isNaN(v) ? num(v) : v === 'Infinity' || v === '-Infinity' ? String(v) : notNumeric(v) === 'missing (null)' ? 'none' : typeof v === 'string' && v !== 'NaN' ? JSON.stringify(v) : 'NaN');

/**
 * The why column says what happened. A match over items taken as recorded is an aggregate of
 * the recorded per-sample values (not recomputed themselves); a reported value that is not a
 * number is named, not blamed on other values.
 */
function lmevalWhy(c: AsRecordedCell): string {
  const reportedIs = c.reported === null ? null : notNumeric(c.reported.value);
  if (c.reported !== null && reportedIs !== null && !(reportedIs.startsWith('NaN') && typeof c.value === 'number' && Number.isNaN(c.value))) {
    return `the results file reports ${reportedIs}${c.value === null ? '' : `; the recorded per-sample values aggregate to ${num(c.value)}`}`;
  }
  const taken = c.items.taken_as_recorded;
  if (taken !== null && c.matches_reported === true) {
    const all = taken.count === c.n;
    return `${all ? 'the aggregate was recomputed from the recorded per-sample values, which were not themselves recomputed' : `${taken.count} of ${c.n} per-sample values were taken as recorded, not recomputed`} (${taken.why.join('; ')})${c.why === null ? '' : `; ${c.why}`}`;
  }
  return c.why ?? '';
}

/**
 * Sample × epoch results the log holds without a score to read or recompute (cvebench's one errored sample, trimmed
 * from 80): "no samples" was said of a log that holds one.
 */
function unscoredHeld(c: InspectRescoreCell): number {
  return c.samples.stored === 0 && c.samples.rescored === 0 ? (c.missing_samples?.held ?? 0) : 0;
}

/**
 * `scores`: the per-sample scores there are to compute it from (rescored or stored); `unscored`: results held without
 * one (see unscoredHeld); `missing`: the cell says once
 * that the log lacks samples, so a metric's own note would repeat it.
 */
function inspectMetric(m: InspectRescoreCell['metrics'][number], scores: number, missing: boolean, unscored: number): string {
  if (scores === 0) return `${m.metric} ${num(m.stored)} (no ${unscored > 0 ? 'scored ' : ''}samples to recompute it from)`;
  if (m.stored === null || m.stored === undefined) return `${m.metric} not in the log (ours from the responses: ${num(m.rescored)})`;
  if (m.reproduced === null && m.note !== undefined && !missing) return `${m.metric} ${num(m.stored)} (not recomputed: ${m.note})`;
  if (m.reproduced === null) return `${m.metric} ${num(m.stored)} (not recomputed)`;
  // A scorer lmaudit does not re-implement has no rescored value: ours is then the log's own scores reduced and aggregated.
  return `${m.metric} ${num(m.stored)}${m.reproduced ? '' : ` (ours ${num(m.rescored ?? m.from_stored_scores)}${m.note ? `: ${m.note}` : ''})`}`;
}

/**
 * The scores a results file reports for a task whose samples hold no rows under that filter and
 * metric (a filter pipeline whose per-sample rows are missing): listed, not dropped.
 */
export function reportedWithoutRows(section: AsRecordedSection, run: RunProvenance | undefined): { task: string; score: string }[] {
  if (run === undefined || section.source_kind !== 'lm-eval') return [];
  const cells = section.cells;
  const out: { task: string; score: string }[] = [];
  for (const task of new Set(cells.map((c) => c.task))) {
    for (const key of Object.keys(run.reported[task] ?? {})) {
      const comma = key.indexOf(',');
      if (comma < 0 || /_stderr$/.test(key.slice(0, comma))) continue;
      const [metric, filter] = [key.slice(0, comma), key.slice(comma + 1)];
      if (!cells.some((c) => c.task === task && c.metric === metric && c.filter === filter)) out.push({ task, score: key });
    }
  }
  return out;
}

export function formatAsRecorded(sections: readonly AsRecordedSection[], runs: readonly RunProvenance[] = []): string[] {
  if (sections.length === 0) return [];
  const lines = ["As recorded (the source's own scoring rules, re-applied to the stored outputs):"];
  for (const s of sections) {
    lines.push(`run ${s.run_id} (${s.source_kind})${s.note ? `: ${s.note}` : ''}`);
    const { header, rows } = sectionTable(s);
    if (rows.length > 0) lines.push(...formatTable(header, rows).map((l) => `  ${l}`));
    for (const m of reportedWithoutRows(s, runs.find((r) => r.run_id === s.run_id))) {
      lines.push(`  reported ${m.score} (${m.task}): the samples hold no per-sample rows for this metric and filter, so it cannot be reproduced`);
    }
    // Only lm-eval's cells carry per-item details and warnings.
    if (s.source_kind !== 'lm-eval' && s.source_kind !== 'lmaudit') continue;
    for (const cell of s.cells) {
      const close = cell.items.within_tolerance;
      if (close) {
        const docs = `${close.doc_ids.slice(0, 10).join(', ')}${close.doc_ids.length > 10 ? ', …' : ''}`;
        lines.push(`  ${cell.task} ${cell.metric}: ${close.count} item(s) within ${num(close.tolerance)} but not bit-identical (largest difference ${num(close.max_difference)}; docs ${docs}) — ${close.why}`);
      }
      for (const d of cell.items.differing.slice(0, 5)) {
        lines.push(`  item ${d.doc_id}: recorded ${JSON.stringify(d.recorded)}, recomputed ${JSON.stringify(d.recomputed)} — ${d.why}`);
      }
      for (const w of cell.warnings) {
        lines.push(`  warning (${cell.task}, ${w.kind}): ${w.message}`);
        if (w.evidence.length > 0) lines.push(`    e.g. ${w.evidence.slice(0, 3).join('; ')}`);
      }
    }
  }
  return lines;
}
