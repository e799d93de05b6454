/**
 * Which runs and tasks of A to compare with which of B. A source may hold
 * several runs (an lm-eval folder with two results files gives two); a
 * selector narrows a side to the runs whose id, label or record file names
 * contain it. Runs pair greedily: by task name first, then by the closest
 * settings (pairRuns); tasks pair by name — or, when each side has exactly one,
 * with each other.
 */
import { basename } from 'node:path';
import { BadInputError } from '../errors.ts';
import type { RunProvenance } from '../store/schema.ts';
import { valueOf } from './provenanceView.ts';
import { diffSettings, differingFields } from './settingsDiff.ts';

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
  /** Why these two runs were compared, in words (shown with the pair). */
  reason: string;
}

export function pairTasks(a: RunProvenance, b: RunProvenance): Pick<RunPair, 'tasks' | 'onlyInA' | 'onlyInB'> {
  const ta = Object.keys(a.tasks);
  const tb = Object.keys(b.tasks);
  const shared = ta.filter((t) => tb.includes(t));
  if (shared.length === 0 && ta.length === 1 && tb.length === 1) return { tasks: [{ a: ta[0]!, b: tb[0]! }], onlyInA: [], onlyInB: [] };
  return {
    tasks: shared.map((t) => ({ a: t, b: t })),
    // By name: the results file's dict order reads as no order (Pythia's 22 crows_pairs tasks came English, French, English).
    onlyInA: ta.filter((t) => !shared.includes(t)).sort(),
    onlyInB: tb.filter((t) => !shared.includes(t)).sort(),
  };
}

export interface RunPairing {
  pairs: RunPair[];
  unpairedA: RunProvenance[];
  unpairedB: RunProvenance[];
}

interface Candidate {
  a: RunProvenance;
  b: RunProvenance;
  /** Tasks both runs hold under the same name. */
  byName: number;
  /** The disclosure fields that differ between the two (run level and the first task pair). */
  differing: string[];
}

/** The settings distance of two runs, for ranking: every disclosure field that differs, run level and (first) task level. */
function differingSettings(a: RunProvenance, b: RunProvenance): string[] {
  const t = pairTasks(a, b).tasks[0];
  return differingFields(diffSettings(a, t?.a ?? null, b, t?.b ?? null));
}

/**
 * Every disclosure field that differs between two paired runs, run level and in any task pair: the reason's "no
 * recorded setting differs" read only the first task, and gsm8k's few-shot count, differing in the second, went
 * unsaid. Computed for the chosen pairs only (a task's settings diff costs a few milliseconds; ranking every
 * candidate on every task would not scale to stores of many runs).
 */
function differingInAnyTask(a: RunProvenance, b: RunProvenance): string[] {
  const tasks = pairTasks(a, b).tasks;
  const fields = tasks.length === 0 ? differingFields(diffSettings(a, null, b, null)) : tasks.flatMap((t) => differingFields(diffSettings(a, t.a, b, t.b)));
  return [...new Set(fields)];
}

function listed(fields: readonly string[]): string {
  if (fields.length === 0) return 'no recorded setting differs';
  return `${fields.length} setting${fields.length === 1 ? '' : 's'} differ${fields.length === 1 ? 's' : ''} (${fields.slice(0, 4).join(', ')}${fields.length > 4 ? ', …' : ''})`;
}

/** Why candidate `c` was paired: its basis, its settings distance, and the candidates it was chosen over (`all` in pairing order). */
function reasonFor(c: Candidate, all: readonly Candidate[], sayOverride: boolean, chooser: string, differing: readonly string[]): string {
  const shared = pairTasks(c.a, c.b).tasks.filter((t) => t.a === t.b).map((t) => t.a);
  const basis =
    c.byName > 0
      ? `the same task name${shared.length === 1 ? '' : 's'} (${shared.slice(0, 3).join(', ')}${shared.length > 3 ? `, … ${shared.length} in all` : ''})`
      : `no task name in common; each run has one task (${Object.keys(c.a.tasks)[0]} vs ${Object.keys(c.b.tasks)[0]}), paired by position`;
  const rivals = all.filter((o) => o !== c && (o.a === c.a || o.b === c.b));
  // `all` is in pairing order: a rival ranked ahead of c lost only because its other run was paired first.
  const taken = rivals.filter((o) => all.indexOf(o) < all.indexOf(c)).length;
  const behind = rivals.filter((o) => all.indexOf(o) > all.indexOf(c));
  const byPosition = behind.filter((o) => o.byName === 0 && c.byName > 0).length;
  const fewerNames = behind.filter((o) => o.byName > 0 && o.byName < c.byName).length;
  const farther = behind.length - byPosition - fewerNames;
  const over = [
    taken > 0 ? `${taken} whose other run was already paired, as closely or more` : '',
    byPosition > 0 ? `${byPosition} paired only by position` : '',
    fewerNames > 0 ? `${fewerNames} sharing fewer task names` : '',
    farther > 0 ? `${farther} with as many shared names and as many or more settings differing at run level or in the first shared task` : '',
  ].filter(Boolean);
  return `${basis}; ${listed(differing)}${over.length > 0 ? `; chosen over ${rivals.length} other candidate${rivals.length === 1 ? '' : 's'} (${over.join(', ')})` : ''}${sayOverride ? `; ${chooser} choose other runs` : ''}`;
}

/**
 * Pairs runs of A with runs of B. A pair that shares task names beats one that does not (a
 * one-task-each pair by position is a last resort); among equals, more shared names first, then
 * the closest settings (fewest differing disclosure fields), so a rerun of the same model and
 * task at another batch size pairs with its original, not with whichever run was read first.
 * `selected` says the sides were narrowed by `chooser`: `diff`'s --run-a/--run-b, the viewer's address parameters.
 */
export function pairRuns(runsA: readonly RunProvenance[], runsB: readonly RunProvenance[], selected = false, chooser = '--run-a/--run-b'): RunPairing {
  const candidates: Candidate[] = [];
  // A run is compared with itself only when each side is that one run (`diff X X` on a one-run source).
  const selfPair = runsA.length === 1 && runsB.length === 1 && runsA[0] === runsB[0];
  for (const a of runsA) {
    for (const b of runsB) {
      if (a === b && !selfPair) continue;
      const p = pairTasks(a, b);
      if (p.tasks.length === 0) continue;
      candidates.push({ a, b, byName: p.tasks.filter((t) => t.a === t.b).length, differing: differingSettings(a, b) });
    }
  }
  candidates.sort((x, y) => Number(y.byName > 0) - Number(x.byName > 0) || y.byName - x.byName || x.differing.length - y.differing.length);
  const usedA = new Set<RunProvenance>();
  const usedB = new Set<RunProvenance>();
  const pairs: RunPair[] = [];
  const manyCandidates = runsA.length > 1 || runsB.length > 1;
  for (const c of candidates) {
    if (usedA.has(c.a) || usedB.has(c.b)) continue;
    // `diff X X` without selectors: (r1, r2) and (r2, r1) are one comparison, made once.
    if (pairs.some((p) => p.a === c.b && p.b === c.a)) continue;
    usedA.add(c.a);
    usedB.add(c.b);
    const reason = (selected ? `chosen with ${chooser}; ` : '') + reasonFor(c, candidates, manyCandidates && !selected, chooser, differingInAnyTask(c.a, c.b));
    pairs.push({ a: c.a, b: c.b, ...pairTasks(c.a, c.b), reason });
  }
  if (pairs.length === 0 && runsA.length === 1 && runsB.length === 1) {
    // Nothing shared: still compare the two runs' settings (their tasks stay listed as unmatched).
    pairs.push({ a: runsA[0]!, b: runsB[0]!, ...pairTasks(runsA[0]!, runsB[0]!), reason: 'the only run on each side; no task in common, so only the run-level settings are compared' });
    usedA.add(runsA[0]!);
    usedB.add(runsB[0]!);
  }
  // A run already compared on the other side is not "without a partner".
  const inAnyPair = (r: RunProvenance) => pairs.some((p) => p.a === r || p.b === r);
  return { pairs, unpairedA: runsA.filter((r) => !inAnyPair(r)), unpairedB: runsB.filter((r) => !inAnyPair(r)) };
}
