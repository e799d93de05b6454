/**
 * Paired statistics per rescoring cell: when A and B are both rescored under
 * the same (extractor × normaliser) cell, their per-item values pair through
 * the item join, and each cell gets the same paired test as a recorded score.
 */
import type { ScopeResult } from '../score/matrix.ts';
import { pairedComparison, type PairedOptions, type PairedResult } from './pairedStats.ts';

export interface CellPair {
  task: string;
  extractor: string;
  normalizer: string;
  result: PairedResult;
}

/** `joined` pairs doc ids of A with doc ids of B (from the item join). */
export function pairMatrixCells(a: ScopeResult, b: ScopeResult, joined: readonly [string, string][], options: Partial<PairedOptions>): CellPair[] {
  if (a.items === undefined || b.items === undefined) return [];
  const itemsA = new Map(a.items.map((i) => [i.doc_id, i.values]));
  const itemsB = new Map(b.items.map((i) => [i.doc_id, i.values]));
  const out: CellPair[] = [];
  a.cellKeys.forEach((key, ia) => {
    const ib = b.cellKeys.findIndex((k) => k.extractor === key.extractor && k.normalizer === key.normalizer);
    if (ib === -1) return;
    const va: number[] = [];
    const vb: number[] = [];
    for (const [docA, docB] of joined) {
      const x = itemsA.get(docA)?.[ia];
      const y = itemsB.get(docB)?.[ib];
      if (typeof x !== 'number' || typeof y !== 'number' || !Number.isFinite(x) || !Number.isFinite(y)) continue;
      va.push(x);
      vb.push(y);
    }
    if (va.length > 0) out.push({ task: a.task, extractor: key.extractor, normalizer: key.normalizer, result: pairedComparison(va, vb, options) });
  });
  return out;
}
