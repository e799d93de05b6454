/**
 * Paired statistics across harnesses: two harnesses name their per-item correctness differently (HELM's
 * `exact_match,split=test`, lm-eval's `acc,none`), so aligned items share no score key. When they share none,
 * each side's correctness score is found — the metric its importer names as `scoring.primary_score`, else the one
 * recorded score whose values are all 0 or 1 — and both are copied under one key that names the two, so the pairing,
 * McNemar and flips read them like any shared score.
 */
import { EXTRA_FIELD_PREFIX, type RunProvenance } from '../store/schema.ts';
import type { DocRecord } from './itemJoin.ts';
import { RESCORED_PREFIX } from './rescored.ts';

/** Metrics the source recorded (rescoring cells are lmaudit's own, named alike on both sides; record fields are not metrics). */
const recordedKeys = (d: DocRecord) => [...d.scores.keys()].filter((k) => !k.startsWith(RESCORED_PREFIX) && !k.startsWith(EXTRA_FIELD_PREFIX));

/** The metric an importer names as the task's per-item correctness, if any. */
function namedPrimary(run: RunProvenance, task: string): string | null {
  const fact = run.tasks[task]?.scoring.primary_score?.used;
  return fact !== undefined && fact.status !== 'unknown' && typeof fact.value === 'string' ? fact.value : null;
}

/** Per doc, the key of its correctness score (null: the side has no single one). */
function correctnessKeys(run: RunProvenance, task: string, docs: readonly DocRecord[]): (string | undefined)[] | null {
  const named = namedPrimary(run, task);
  if (named !== null) return docs.map((d) => recordedKeys(d).find((k) => k.split(',')[0] === named));
  const binary = new Set<string>();
  const other = new Set<string>();
  for (const d of docs) for (const k of recordedKeys(d)) (d.scores.get(k) === 0 || d.scores.get(k) === 1 ? binary : other).add(k);
  const keys = [...binary].filter((k) => !other.has(k));
  return keys.length === 1 ? docs.map(() => keys[0]) : null;
}

/** Adds the shared correctness key to both sides of every pair; returns its name, or null when nothing was added. */
export function pairCorrectness(pairs: readonly [DocRecord, DocRecord][], runA: RunProvenance, taskA: string, runB: RunProvenance, taskB: string): string | null {
  if (pairs.length === 0 || pairs.some(([x, y]) => recordedKeys(x).some((k) => y.scores.has(k)))) return null;
  const a = correctnessKeys(runA, taskA, pairs.map((p) => p[0]));
  const b = correctnessKeys(runB, taskB, pairs.map((p) => p[1]));
  if (a === null || b === null) return null;
  const names = (keys: (string | undefined)[]) => [...new Set(keys.filter((k) => k !== undefined))].join(' | ');
  const name = `correct (A ${names(a)} ~ B ${names(b)})`;
  pairs.forEach(([x, y], i) => {
    if (a[i] !== undefined && b[i] !== undefined) {
      x.scores.set(name, x.scores.get(a[i]!) ?? null);
      y.scores.set(name, y.scores.get(b[i]!) ?? null);
    }
  });
  return name;
}
