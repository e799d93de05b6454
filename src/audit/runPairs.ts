/**
 * Which runs and tasks of A to compare with which of B. A source may hold
 * several runs (an lm-eval folder with two results files gives two); a
 * selector narrows a side to the runs whose id, label or record file names
 * contain it. Runs pair greedily by the number of tasks they share, and tasks
 * pair by name — or, when each side has exactly one, with each other.
 */
import { basename } from 'node:path';
import { BadInputError } from '../errors.ts';
import type { RunProvenance } from '../store/schema.ts';
import { valueOf } from './provenanceView.ts';

function fileNames(run: RunProvenance): string[] {
  const files = valueOf(run, null, 'records.files');
  return Array.isArray(files) ? files.map((f) => String((f as { path?: unknown }).path ?? '')) : [];
}

export function describeRun(run: RunProvenance): string {
  return `${run.run_id} (${run.label}; tasks: ${Object.keys(run.tasks).join(', ') || 'none'})`;
}

/** The runs of one side that match `selector` (all of them without one). */
export function selectRuns(runs: readonly RunProvenance[], selector: string | undefined, side: 'A' | 'B'): RunProvenance[] {
  if (selector === undefined) return [...runs];
  const exact = runs.filter((r) => r.run_id === selector);
  if (exact.length > 0) return exact;
  const chosen = runs.filter(
    (r) => r.label.includes(selector) || fileNames(r).some((p) => basename(p).includes(selector)) || Object.keys(r.tasks).includes(selector),
  );
  if (chosen.length === 0) {
    throw new BadInputError(`no run of ${side} matches '${selector}'; runs: ${runs.map(describeRun).join('; ')}`, { field: `--run-${side.toLowerCase()}` });
  }
  return chosen;
}

export interface RunPair {
  a: RunProvenance;
  b: RunProvenance;
  tasks: { a: string; b: string }[];
  onlyInA: string[];
  onlyInB: string[];
}

export function pairTasks(a: RunProvenance, b: RunProvenance): Pick<RunPair, 'tasks' | 'onlyInA' | 'onlyInB'> {
  const ta = Object.keys(a.tasks);
  const tb = Object.keys(b.tasks);
  const shared = ta.filter((t) => tb.includes(t));
  if (shared.length === 0 && ta.length === 1 && tb.length === 1) return { tasks: [{ a: ta[0]!, b: tb[0]! }], onlyInA: [], onlyInB: [] };
  return {
    tasks: shared.map((t) => ({ a: t, b: t })),
    onlyInA: ta.filter((t) => !shared.includes(t)),
    onlyInB: tb.filter((t) => !shared.includes(t)),
  };
}

export interface RunPairing {
  pairs: RunPair[];
  unpairedA: RunProvenance[];
  unpairedB: RunProvenance[];
}

export function pairRuns(runsA: readonly RunProvenance[], runsB: readonly RunProvenance[]): RunPairing {
  const candidates: { a: RunProvenance; b: RunProvenance; shared: number }[] = [];
  // A run is compared with itself only when each side is that one run (`diff X X` on a one-run source).
  const selfPair = runsA.length === 1 && runsB.length === 1 && runsA[0] === runsB[0];
  for (const a of runsA) {
    for (const b of runsB) {
      if (a === b && !selfPair) continue;
      const p = pairTasks(a, b);
      if (p.tasks.length > 0) candidates.push({ a, b, shared: p.tasks.length });
    }
  }
  candidates.sort((x, y) => y.shared - x.shared);
  const usedA = new Set<RunProvenance>();
  const usedB = new Set<RunProvenance>();
  const pairs: RunPair[] = [];
  for (const c of candidates) {
    if (usedA.has(c.a) || usedB.has(c.b)) continue;
    // `diff X X` without selectors: (r1, r2) and (r2, r1) are one comparison, made once.
    if (pairs.some((p) => p.a === c.b && p.b === c.a)) continue;
    usedA.add(c.a);
    usedB.add(c.b);
    pairs.push({ a: c.a, b: c.b, ...pairTasks(c.a, c.b) });
  }
  if (pairs.length === 0 && runsA.length === 1 && runsB.length === 1) {
    // Nothing shared: still compare the two runs' settings (their tasks stay listed as unmatched).
    pairs.push({ a: runsA[0]!, b: runsB[0]!, ...pairTasks(runsA[0]!, runsB[0]!) });
    usedA.add(runsA[0]!);
    usedB.add(runsB[0]!);
  }
  // A run already compared on the other side is not "without a partner".
  const inAnyPair = (r: RunProvenance) => pairs.some((p) => p.a === r || p.b === r);
  return { pairs, unpairedA: runsA.filter((r) => !inAnyPair(r)), unpairedB: runsB.filter((r) => !inAnyPair(r)) };
}
