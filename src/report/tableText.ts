/** The audit table as plain text (the terminal form; Markdown and LaTeX reuse its sentences). */
import type { AuditTable, CellPlace, TableCell } from '../audit/table.ts';
import type { Interaction } from '../audit/tableInteractions.ts';
import { formatP } from '../audit/pairedStats.ts';
import { clip, table } from './textTable.ts';

/** The most HTML small multiples drawn per table. */
export const SMALL_MULTIPLES_LIMIT = 24;

const f4 = (x: number) => x.toFixed(4);

export function cellText(c: TableCell | null): string {
  if (c === null) return '—';
  if (c.score === null) return 'n/a';
  return `${f4(c.score)} ±${c.stderr === null ? '?' : f4(c.stderr)}${c.n === null ? '' : ` (${c.n})`}`;
}

export function placeText(p: CellPlace): string {
  return `${p.label} read by ${p.reading}: ${f4(p.score)}${p.ci95 === null ? '' : ` [${f4(p.ci95[0])}, ${f4(p.ci95[1])}]`}`;
}

export function interactionText(x: Interaction): string {
  const ci = x.ci95 === null ? 'no interval (one item)' : `95% CI [${f4(x.ci95[0])}, ${f4(x.ci95[1])}]`;
  return (
    `${x.from} → ${x.to}: ${f4(x.effects[0])} under ${x.readings[0]}, ${f4(x.effects[1])} under ${x.readings[1]}; ` +
    `difference ${f4(x.difference)}, ${ci}, n = ${x.n}${x.distinguishable ? ' (distinguishable from 0)' : tooFewDiffer(x)}`
  );
}

/**
 * An interval that excludes 0 on too few differing items for any two-sided test at 5% is not counted distinguishable
 * (pairedStats' signTestCanReject); without the reason, "0 distinguishable from 0" stood above "95% CI [0.0201,
 * 0.3799]" (gpt2-tiny arc_easy, 0-shot → 2-shot, 4 items differing) and read as a contradiction.
 */
function tooFewDiffer(x: Interaction): string {
  if (x.ci95 === null || !(x.ci95[0] > 0 || x.ci95[1] < 0)) return '';
  return ` (the interval excludes 0, but only ${x.differing} item(s) differ: too few for any two-sided test at 0.05, the exact sign test's smallest p on them is ${formatP(2 * 0.5 ** x.differing)})`;
}

/** Interactions worth reading first: distinguishable ones, then by size. */
export function leadingInteractions(t: AuditTable, limit: number): Interaction[] {
  return [...t.interactions]
    .sort((a, b) => Number(b.distinguishable) - Number(a.distinguishable) || Math.abs(b.difference) - Math.abs(a.difference))
    .slice(0, limit);
}

/** The sentences under the table, one per line (shared by every format). */
export function tableFindings(t: AuditTable, interactionLimit = 10): string[] {
  const lines: string[] = [];
  if (t.extremes !== null) {
    const by = t.extremes.separated_by;
    const what = by.length === 0 ? '' : ` (${by.join(', ')} ${by.length === 1 ? 'separates' : 'separate'} them)`;
    lines.push(`span: ${t.extremes.sentence}${t.extremes.difference === 0 ? '' : what}`);
  }
  t.column_spreads.forEach((s, k) => {
    if (s === null || t.rows.length < 2) return;
    // Equal rows have no lowest and highest to name ("… 0.0 points (X 1.0000 to X 1.0000)").
    const known = t.rows.filter((r) => r.cells[k]?.score != null).length;
    const where = s.difference === 0 ? `${known === 1 ? 'one row' : `all ${known} rows`} ${f4(s.lowest.score)}` : `${s.lowest.at} ${f4(s.lowest.score)} to ${s.highest.at} ${f4(s.highest.score)}`;
    lines.push(`down ${t.columns[k]!.key}: ${(s.difference * 100).toFixed(1)} points (${where})`);
  });
  if (t.gap !== null) lines.push(`gap: ${t.gap.sentence}`);
  if (t.reach !== null) {
    const tol = t.reach.tolerance > 0 ? ` ± ${t.reach.tolerance}` : '';
    lines.push(`reach ${t.reach.target}${tol}: ${t.reach.cells.length} cell(s) whose 95% interval contains it${t.reach.cells.length > 0 ? ':' : ''}`);
    for (const p of t.reach.cells) lines.push(`  ${placeText(p)}`);
  }
  if (t.interactions.length > 0) {
    const shown = leadingInteractions(t, interactionLimit);
    const distinguishable = t.interactions.filter((x) => x.distinguishable).length;
    lines.push(`interactions (a change's effect under one reading minus under another, paired on shared items): ${t.interactions.length}, ${distinguishable} distinguishable from 0${shown.length < t.interactions.length ? `; the first ${shown.length}:` : ':'}`);
    for (const x of shown) lines.push(`  ${interactionText(x)}`);
  }
  for (const c of t.costs) lines.push(`${c.model_calls ? 'costs model calls' : 'no model call'}: ${c.axis} — ${c.detail}`);
  for (const n of t.notes) lines.push(`note: ${n}`);
  return lines;
}

/** The sentence over the HTML small multiples (one per interaction, the first SMALL_MULTIPLES_LIMIT of them); null when there are none. */
export function multiplesNote(t: AuditTable, limit = SMALL_MULTIPLES_LIMIT): string | null {
  const n = t.interactions.length;
  if (n === 0) return null;
  const which = n <= limit ? `all ${n}` : `the first ${limit} of ${n} (distinguishable from 0 first, then by size; the JSON report has every one)`;
  return `One chart per interaction, ${which}: the change's effect under each reading with its paired 95% interval, and their difference (red where its interval excludes 0), all on one scale. Hover a mark for its numbers.`;
}

export function tableLines(t: AuditTable): string[] {
  const header = ['configuration', ...t.columns.map((c) => c.key), 'row spread'];
  const rows = t.rows.map((r) => [clip(r.label, 60), ...r.cells.map(cellText), r.spread === null ? '—' : `${(r.spread.difference * 100).toFixed(1)} pts`]);
  // A cell without a stderr (a reported score the source gave none for, one item) prints ±?: the caption says what it means.
  const unknown = t.rows.some((r) => r.cells.some((c) => c !== null && c.score !== null && c.stderr === null)) ? '; ±? where no stderr is known' : '';
  return [`${t.task}  (${t.rows.length} run(s) × ${t.columns.length} reading(s), ${t.aggregation}; cells: score ±stderr (n)${unknown})`, ...table(header, rows).map((l) => `  ${l}`), ...tableFindings(t).map((l) => `  ${l}`)];
}
