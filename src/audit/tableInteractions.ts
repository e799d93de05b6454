/**
 * Interactions in the audit table: for a configuration change (row a → row b) and a pair of
 * reading rules (columns i, j), how the change's effect under i differs from its effect under j.
 * On the items both rows scored (joined on doc_id), each item gives
 *   d = (b_i − a_i) − (b_j − a_j),
 * and the difference of differences is mean(d) with the closed-form paired interval
 * mean ± 1.96 · sd(d, n−1) / √n (the same standard error the matrix's cells use). Each reading's
 * own effect, mean(b − a) on the same items, gets the same paired interval.
 */
import { pairedMeanStderr, signTestCanReject } from './pairedStats.ts';
import type { LabelPart } from './tableLabels.ts';

export interface InteractionRow {
  label: string;
  parts: LabelPart[];
  /** Per item (doc_id), its value under each column (null: not scored there). Null: no per-item records. */
  items: Map<string, (number | null)[]> | null;
}

export interface Interaction {
  from: string;
  to: string;
  /** The settings that change between the two rows. */
  change: string[];
  readings: [string, string];
  n: number;
  /** The change's effect under each reading, on the shared items, with its paired standard error and interval. */
  effects: [number, number];
  effect_stderr: [number | null, number | null];
  effect_ci95: [[number, number] | null, [number, number] | null];
  difference: number;
  stderr: number | null;
  ci95: [number, number] | null;
  /** Items whose difference is not 0: below 5 no two-sided test at 5% can reject, whatever the interval. */
  differing: number;
  /** The interval excludes 0 and enough items differ: the change helps under one reading more than under the other. */
  distinguishable: boolean;
}

/**
 * Pairs of rows that differ in exactly one setting are the changes considered (one axis at a
 * time); when no pair does, every pair is.
 */
function changes(rows: readonly InteractionRow[]): [number, number, string[]][] {
  const all: [number, number, string[]][] = [];
  for (let a = 0; a < rows.length; a++) {
    for (let b = a + 1; b < rows.length; b++) {
      const differ = rows[a]!.parts.filter((p, k) => p.text !== rows[b]!.parts[k]?.text).map((p) => p.field);
      all.push([a, b, differ]);
    }
  }
  const single = all.filter(([, , d]) => d.length === 1);
  return single.length > 0 ? single : all;
}

export function interactionsOf(rows: readonly InteractionRow[], columns: readonly string[]): Interaction[] {
  const out: Interaction[] = [];
  for (const [a, b, change] of changes(rows)) {
    const A = rows[a]!.items;
    const B = rows[b]!.items;
    if (A === null || B === null) continue;
    for (let i = 0; i < columns.length; i++) {
      for (let j = i + 1; j < columns.length; j++) {
        const d: number[] = [];
        const ei: number[] = [];
        const ej: number[] = [];
        for (const [doc, va] of A) {
          const vb = B.get(doc);
          if (vb === undefined) continue;
          const [ai, aj, bi, bj] = [va[i], va[j], vb[i], vb[j]];
          if (ai == null || aj == null || bi == null || bj == null) continue;
          ei.push(bi - ai);
          ej.push(bj - aj);
          d.push(bi - ai - (bj - aj));
        }
        if (d.length === 0) continue;
        const [x, xi, xj] = [pairedMeanStderr(d), pairedMeanStderr(ei), pairedMeanStderr(ej)];
        const differing = d.filter((v) => v !== 0).length;
        out.push({
          from: rows[a]!.label, to: rows[b]!.label, change, readings: [columns[i]!, columns[j]!], n: d.length,
          effects: [xi.mean, xj.mean], effect_stderr: [xi.stderr, xj.stderr], effect_ci95: [xi.ci95, xj.ci95],
          difference: x.mean, stderr: x.stderr, ci95: x.ci95, differing,
          // As the paired comparison: too few differing items for any test at 5% is never distinguishable.
          distinguishable: x.ci95 !== null && (x.ci95[0] > 0 || x.ci95[1] < 0) && signTestCanReject(differing, 0.05),
        });
      }
    }
  }
  return out;
}
