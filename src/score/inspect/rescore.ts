/**
 * "As recorded" for Inspect logs: re-run each log's own scorers on the stored
 * completions, reduce across epochs with its reducers, and compute its metrics,
 * then compare with what the log stored, naming every item that differs.
 *
 * Two metric computations are reported side by side: from the log's own sample
 * scores (checks the reduce + metric pipeline against the stored metrics), and
 * from our rescored sample scores (checks the scorers too). For `choice`, also
 * what Inspect's own `inspect score --scorer choice` gives: it cannot see the
 * solver's per-choice flags (not logged), so it marks every sample INCORRECT.
 */
import { queryRows, sqlString } from '../../util/duckdb.ts';
import type { OpenStore } from '../../store/readStore.ts';
import type { RunProvenance, TaskProvenance } from '../../store/schema.ts';
import { choiceScoreWithoutFlags } from './choice.ts';
import { targetsOfGold } from './extractors.ts';
import { bootstrapTolerance, isKnownMetric, metricByName, type ReducedScore } from './metrics.ts';
import { factValue, recordedScorers, type RecordedScorer, type RecordedView } from './recordedScorers.ts';
import { isUnscored, reducerByName } from './reducers.ts';
import type { ScoreValue } from '../../formats/inspectScore.ts';
import type { InspectScore } from './scorers.ts';
import { parsePythonJson } from '../../util/json.ts';
import { explainDifference } from './versionRules.ts';
import { pushTo } from '../../util/groupBy.ts';

export interface SampleDifference {
  doc_id: string;
  epoch: number;
  stored: ScoreValue;
  recomputed: ScoreValue;
  stored_answer: string | null;
  recomputed_answer: string | null;
  why: string;
}

export interface MetricComparison {
  metric: string;
  stored: number | null;
  /** Reduce + metric over the log's own sample scores. */
  from_stored_scores: number;
  /** Reduce + metric over our rescored sample scores (null when the scorer is not re-implemented). */
  rescored: number | null;
  comparison: 'exact' | 'tolerance';
  tolerance: number;
  /** null when the log stored no value to reproduce. */
  reproduced: boolean | null;
  note?: string;
}

export interface InspectRescoreCell {
  run_id: string;
  task: string;
  scorer: string;
  scorer_name: string;
  params: Record<string, unknown>;
  reducer: string;
  /** Dict-valued scores: the value key this cell's metrics read (null for scalar scores). */
  value_key: string | null;
  inspect_version: string | null;
  unsupported?: string;
  /** The log holds fewer sample × epoch results than results.total_samples: its metrics are not recomputed. */
  missing_samples?: { held: number; total: number };
  /** stored: sample × epoch scores the log holds; rescored: of the samples, how many were recomputed; compared: of those, how many the log had a stored score for. */
  samples: { stored: number; rescored: number; compared: number; agree: number; differences: SampleDifference[] };
  /** Scores edited after scoring (Score.history): the rescore is compared with the original, the metrics use the edit. */
  edits: { doc_id: string; epoch: number; original: ScoreValue; current: ScoreValue; author: string | null; reason: string | null }[];
  reductions: { compared: number; agree: number; differences: { doc_id: string; stored: ScoreValue; recomputed: ScoreValue }[] };
  metrics: MetricComparison[];
  /** choice only: what Inspect's own rescoring of this log records. */
  inspect_own_rescore?: { wrong_samples: string[]; metrics: Record<string, number> };
}

interface StoredSample {
  docId: string;
  epoch: number;
  score: InspectScore & { value: ScoreValue };
}

interface Item {
  completionByEpoch: Map<number, string>;
  targets: string[];
  choices: string[] | null;
  metadata: Record<string, unknown> | null;
}

/** Python equality for score values (1 == 1.0 == True; NaN is compared as "unscored" on both sides). */
export function sameValue(a: ScoreValue, b: ScoreValue): boolean {
  if (typeof a === 'number' && typeof b === 'number') return a === b || (Number.isNaN(a) && Number.isNaN(b));
  if ((typeof a === 'number' || typeof a === 'boolean') && (typeof b === 'number' || typeof b === 'boolean')) return Number(a) === Number(b);
  return JSON.stringify(a) === JSON.stringify(b);
}

async function loadItems(store: OpenStore, runId: string, task: string): Promise<Map<string, Item>> {
  const where = `run_id = ${sqlString(runId)} AND task = ${sqlString(task)}`;
  const instances = await queryRows<{ doc_id: string; doc_json: string | null; target: string | null; choices_json: string | null }>(
    `SELECT doc_id, doc_json, target, choices_json FROM ${store.table('instances')} WHERE ${where}`,
  );
  const items = new Map<string, Item>();
  for (const row of instances) {
    const doc = row.doc_json === null ? {} : (parsePythonJson(row.doc_json) as Record<string, unknown>);
    const target = doc.target ?? row.target ?? '';
    items.set(row.doc_id, {
      completionByEpoch: new Map(),
      targets: typeof target === 'string' ? [target] : Array.isArray(target) ? target.map(String) : targetsOfGold(String(target)),
      choices: Array.isArray(doc.choices) ? doc.choices.map(String) : row.choices_json === null ? null : (JSON.parse(row.choices_json) as string[]),
      metadata: typeof doc.metadata === 'object' && doc.metadata !== null ? (doc.metadata as Record<string, unknown>) : null,
    });
  }
  const responses = await queryRows<{ doc_id: string; repeat: bigint | number; text: string | null }>(
    `SELECT doc_id, "repeat", text FROM ${store.table('responses')} WHERE ${where}`,
  );
  for (const r of responses) items.get(r.doc_id)?.completionByEpoch.set(Number(r.repeat) + 1, r.text ?? '');
  return items;
}

async function loadStored(store: OpenStore, runId: string, task: string): Promise<{ samples: Map<string, StoredSample[]>; reduced: Map<string, Map<string, ScoreValue>> }> {
  const rows = await queryRows<{ doc_id: string; filter: string; filtered_json: string | null; line: bigint | number }>(
    `SELECT doc_id, filter, filtered_json, line FROM ${store.table('filtered')} WHERE run_id = ${sqlString(runId)} AND task = ${sqlString(task)} ORDER BY line`,
  );
  const samples = new Map<string, StoredSample[]>();
  const reduced = new Map<string, Map<string, ScoreValue>>();
  for (const row of rows) {
    const m = /^(.*)@(epoch|reduced):(.+)$/.exec(row.filter);
    if (m === null || row.filtered_json === null) continue;
    const score = parsePythonJson(row.filtered_json) as InspectScore;
    if (m[2] === 'epoch') {
      const list = samples.get(m[1]!) ?? [];
      list.push({ docId: row.doc_id, epoch: Number(m[3]), score });
      samples.set(m[1]!, list);
    } else {
      const key = `${m[1]}@${m[3]}`;
      const map = reduced.get(key) ?? new Map<string, ScoreValue>();
      map.set(row.doc_id, score.value);
      reduced.set(key, map);
    }
  }
  return { samples, reduced };
}

/** Within four units in the last place: a summation-order difference, not a different number. */
function lastBits(a: number, b: number): boolean {
  return Number.isFinite(a) && Number.isFinite(b) && Math.abs(a - b) <= 4 * Number.EPSILON * Math.max(Math.abs(a), Math.abs(b), Number.MIN_VALUE);
}

function leaf(value: ScoreValue, key: string): ScoreValue {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value[key] ?? 0) : value;
}

/** Reduce per sample id (first-seen order), then drop root NaN, as Inspect's results pipeline does. */
function reduceAll(scores: { docId: string; value: ScoreValue }[], reducer: string, items: Map<string, Item>): ReducedScore[] {
  const groups = new Map<string, ScoreValue[]>();
  for (const s of scores) pushTo(groups, s.docId, s.value);
  const reduce = reducerByName(reducer);
  return [...groups].map(([docId, values]) => ({ sampleId: docId, value: reduce(values), metadata: items.get(docId)?.metadata ?? null }));
}

function computeMetrics(view: RecordedView, reduced: ReducedScore[]): Map<string, number> {
  // A dict-metric view reads one value key; a NaN leaf there is unscored, like a root NaN.
  const values = view.valueKey === null ? reduced : reduced.map((r) => ({ ...r, value: leaf(r.value, view.valueKey!) }));
  const scored = values.filter((r) => !isUnscored(r.value));
  const out = new Map<string, number>();
  for (const m of view.metrics) if (isKnownMetric(m.name)) out.set(m.key, scored.length === 0 ? Number.NaN : metricByName(m.name, m.params).metric(scored));
  return out;
}

type StoredScore = InspectScore & { history?: (Partial<InspectScore> & { provenance?: { author?: string; reason?: string } })[] };

/** The score as the scorer first wrote it: history[0] once a score has been edited ("UNCHANGED" keeps the current field). */
function originalScore(score: StoredScore): StoredScore {
  const first = score.history?.[0];
  if (first === undefined || score.history!.length < 2) return score;
  const pick = <K extends 'value' | 'answer' | 'explanation'>(k: K) => (first[k] === undefined || first[k] === 'UNCHANGED' ? score[k] : first[k]);
  return { value: pick('value') as ScoreValue, answer: pick('answer') as string | null | undefined, explanation: pick('explanation') as string | undefined };
}

function editBy(score: StoredScore): { author: string | null; reason: string | null } {
  const last = score.history?.[score.history.length - 1]?.provenance;
  return { author: last?.author ?? null, reason: last?.reason ?? null };
}

/** A log with no stored scores (e.g. scored later with `inspect score`): every response is rescored, nothing compared. */
function unscoredSamples(items: Map<string, Item>): StoredSample[] {
  return [...items].flatMap(([docId, item]) => [...item.completionByEpoch.keys()].sort((a, b) => a - b).map((epoch) => ({ docId, epoch, score: { value: Number.NaN } })));
}

/**
 * A log that holds fewer sample × epoch results than the run had (results.total_samples: samples after `limit` ×
 * epochs; a trimmed or edited log): its metrics cannot be recomputed from it. Not "the results the metrics were
 * computed over": an errored sample with no score is in the total and not in the metrics (cvebench: 80 in the
 * total, 78 scored). Null when the log holds them all or did not record the total.
 */
function missingSamples(block: TaskProvenance, stored: StoredSample[], items: Map<string, Item>): { held: number; total: number } | null {
  const total = factValue(block.failures?.total_samples?.used);
  if (typeof total !== 'number') return null;
  const held = new Set(stored.map((s) => `${s.docId}\u0000${s.epoch}`));
  for (const [docId, item] of items) for (const epoch of item.completionByEpoch.keys()) held.add(`${docId}\u0000${epoch}`);
  return held.size < total ? { held: held.size, total } : null;
}

function rescoreView(run: RunProvenance, task: string, scorer: RecordedScorer, view: RecordedView, stored: StoredSample[], reducedStored: Map<string, ScoreValue> | undefined, items: Map<string, Item>): InspectRescoreCell {
  const missing = missingSamples(run.tasks[task]!, stored, items);
  const version = (run.harness.version?.used as { value?: unknown } | undefined)?.value;
  const differences: SampleDifference[] = [];
  const edits: InspectRescoreCell['edits'] = [];
  const rescored: { docId: string; value: ScoreValue }[] = [];
  for (const s of stored.length > 0 ? stored : unscoredSamples(items)) {
    const item = items.get(s.docId);
    // No response body (a summary-only sample): its stored score still counts in the metrics; nothing to rescore.
    const completion = item?.completionByEpoch.get(s.epoch);
    if (scorer.rescore === null || item === undefined || completion === undefined) continue;
    const ours = scorer.rescore({ completion, targets: item.targets, choices: item.choices });
    rescored.push({ docId: s.docId, value: ours.value });
    if (stored.length === 0) continue;
    const original = originalScore(s.score);
    if (original !== s.score) edits.push({ doc_id: s.docId, epoch: s.epoch, original: original.value, current: s.score.value, ...editBy(s.score) });
    const answerDiffers = original.answer !== undefined && (original.answer ?? null) !== (ours.answer ?? null);
    if (!sameValue(original.value, ours.value) || answerDiffers) {
      differences.push({
        doc_id: s.docId,
        epoch: s.epoch,
        stored: original.value,
        recomputed: ours.value,
        stored_answer: original.answer ?? null,
        recomputed_answer: ours.answer ?? null,
        why: explainDifference(scorer.name, typeof version === 'string' ? version : null, original, ours, completion, scorer.params),
      });
    }
  }
  const fromStored = reduceAll(stored.map((s) => ({ docId: s.docId, value: s.score.value })), view.reducer, items);
  const reductionDiffs: InspectRescoreCell['reductions']['differences'] = [];
  if (reducedStored !== undefined) {
    for (const r of fromStored) {
      const logged = reducedStored.get(r.sampleId as string);
      if (logged !== undefined && !sameValue(logged, r.value)) reductionDiffs.push({ doc_id: String(r.sampleId), stored: logged, recomputed: r.value });
    }
  }
  const metricsStored = computeMetrics(view, fromStored);
  const metricsRescored = scorer.rescore === null ? null : computeMetrics(view, reduceAll(rescored, view.reducer, items));
  const metrics: MetricComparison[] = view.metrics.map((m) => {
    if (!isKnownMetric(m.name)) {
      // A custom metric (or a built-in lmaudit does not recompute) is listed with its logged value, not a guess.
      const note = `lmaudit does not recompute Inspect's metric '${m.name}'`;
      return { metric: m.key, stored: m.stored, from_stored_scores: Number.NaN, rescored: null, comparison: 'exact', tolerance: 0, reproduced: null, note };
    }
    const kind = metricByName(m.name, m.params).kind;
    const ours = metricsStored.get(m.key)!;
    const tolerance = kind === 'tolerance' ? bootstrapTolerance(m.stored ?? ours) : 0;
    const reproduced = m.stored === null || missing !== null ? null : kind === 'exact' ? sameValue(m.stored, ours) : Math.abs(m.stored - ours) <= tolerance;
    return {
      metric: m.key,
      stored: m.stored,
      from_stored_scores: ours,
      rescored: metricsRescored?.get(m.key) ?? null,
      comparison: kind,
      tolerance,
      reproduced,
      ...(reproduced === false && kind === 'exact' && lastBits(m.stored!, ours) ? { note: 'differs in the last bits only: Inspect sums in sample completion order, which a log does not keep (lmaudit sums in log order)' } : {}),
      ...(kind === 'tolerance' ? { note: "Inspect draws bootstrap resamples from NumPy's unseeded global RNG: compared within Monte Carlo error, not bit for bit" } : {}),
      ...(m.stored === null ? { note: 'the log stored no value for this metric' } : {}),
      ...(m.stored !== null && missing !== null ? { note: `the log holds ${missing.held} of the ${missing.total} sample × epoch results the run had` } : {}),
    };
  });
  const cell: InspectRescoreCell = {
    run_id: run.run_id,
    task,
    scorer: scorer.key,
    scorer_name: scorer.name,
    params: scorer.params,
    reducer: view.reducer,
    value_key: view.valueKey,
    inspect_version: typeof version === 'string' ? version : null,
    ...(scorer.unsupported === undefined ? {} : { unsupported: scorer.unsupported }),
    ...(missing === null ? {} : { missing_samples: missing }),
    edits,
    samples: { stored: stored.length, rescored: rescored.length, compared: stored.length === 0 ? 0 : rescored.length, agree: stored.length === 0 ? 0 : rescored.length - differences.length, differences },
    reductions: { compared: reducedStored === undefined ? 0 : fromStored.length, agree: reducedStored === undefined ? 0 : fromStored.length - reductionDiffs.length, differences: reductionDiffs },
    metrics,
  };
  if (scorer.name.replace(/^inspect_ai\//, '') === 'choice') {
    const theirs = stored.map((s) => ({ docId: s.docId, value: choiceScoreWithoutFlags('', items.get(s.docId)?.targets ?? []).value }));
    cell.inspect_own_rescore = {
      wrong_samples: stored.filter((s, i) => !sameValue(s.score.value, theirs[i]!.value)).map((s) => `${s.docId} epoch ${s.epoch}`),
      metrics: Object.fromEntries(computeMetrics(view, reduceAll(theirs, view.reducer, items))),
    };
  }
  return cell;
}

export async function rescoreInspectAsRecorded(store: OpenStore): Promise<InspectRescoreCell[]> {
  const cells: InspectRescoreCell[] = [];
  for (const run of store.manifest.runs) {
    if (run.source_kind !== 'inspect') continue;
    for (const [task, block] of Object.entries(run.tasks)) {
      const items = await loadItems(store, run.run_id, task);
      const { samples, reduced } = await loadStored(store, run.run_id, task);
      for (const scorer of recordedScorers(block)) {
        const stored = samples.get(scorer.key) ?? [];
        for (const view of scorer.views) cells.push(rescoreView(run, task, scorer, view, stored, reduced.get(`${scorer.key}@${view.reducer}`), items));
      }
    }
  }
  return cells;
}
