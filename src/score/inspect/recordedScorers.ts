/**
 * Which scorers an Inspect log ran, under which score keys, with which
 * arguments, reducers and metrics, read back from the provenance block the
 * importer wrote (eval.scorers and results.scores), and the rescoring function
 * for each. Arguments the log omits take the scorer's defaults (a log records
 * only the arguments passed explicitly).
 */
import type { TaskProvenance } from '../../store/schema.ts';
import { choiceScore } from './choice.ts';
import { answerScore, exactScore, f1Score, includesScore, matchScore, patternScore, type AnswerKind, type InspectScore, type MatchLocation } from './scorers.ts';

export interface ScorerInput {
  completion: string;
  targets: string[];
  choices: string[] | null;
}

export type Rescorer = (input: ScorerInput) => InspectScore;

export interface RecordedView {
  reducer: string;
  /** Dict-valued scores: the value key this view's metrics read (Inspect names the EvalScore after it). */
  valueKey: string | null;
  /** Whether the log named the reducer (absent = Inspect's implicit mean). */
  reducerRecorded: boolean;
  metrics: { key: string; name: string; params: Record<string, unknown>; stored: number | null }[];
}

export interface RecordedScorer {
  key: string;
  name: string;
  params: Record<string, unknown>;
  rescore: Rescorer | null;
  unsupported?: string;
  views: RecordedView[];
}

type Json = Record<string, unknown>;
const asObj = (v: unknown): Json => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Json) : {});
/** A fact's value, undefined when it is unknown. */
export const factValue = (fact: { status: string; value?: unknown } | undefined): unknown => (fact?.status === 'unknown' ? undefined : fact?.value);

export function rescorerFor(name: string, params: Json, multipleCorrect: boolean): { rescore: Rescorer | null; unsupported?: string } {
  const bare = name.replace(/^inspect_ai\//, '');
  const bool = (k: string, d: boolean) => (typeof params[k] === 'boolean' ? (params[k] as boolean) : d);
  switch (bare) {
    case 'match': {
      const options = {
        location: (typeof params.location === 'string' ? params.location : 'end') as MatchLocation,
        ignore_case: bool('ignore_case', true),
        numeric: bool('numeric', false),
      };
      return { rescore: (i) => matchScore(i.completion, i.targets, options) };
    }
    case 'includes':
      return { rescore: (i) => includesScore(i.completion, i.targets, bool('ignore_case', true)) };
    case 'pattern': {
      if (typeof params.pattern !== 'string') return { rescore: null, unsupported: 'pattern() without a recorded pattern' };
      const p = params.pattern;
      return { rescore: (i) => patternScore(i.completion, i.targets, p, bool('ignore_case', true), bool('match_all', false)) };
    }
    case 'answer': {
      const kind = params.pattern;
      if (kind !== 'letter' && kind !== 'word' && kind !== 'line') return { rescore: null, unsupported: 'answer() without a recorded pattern' };
      return { rescore: (i) => answerScore(i.completion, i.targets, kind as AnswerKind) };
    }
    case 'exact':
      return { rescore: (i) => exactScore(i.completion, i.targets) };
    case 'f1':
      if (params.answer_fn !== undefined && params.answer_fn !== null) return { rescore: null, unsupported: 'f1(answer_fn=…): the function is recorded by name only' };
      return { rescore: (i) => f1Score(i.completion, i.targets, Array.isArray(params.stop_words) ? (params.stop_words as string[]) : undefined) };
    case 'choice':
      return { rescore: (i) => choiceScore(i.completion, i.targets, i.choices?.length ?? 0, multipleCorrect) };
    default:
      return { rescore: null, unsupported: `'${bare}' is not a built-in text scorer lmaudit re-implements (model-graded or custom); its stored scores are kept` };
  }
}

/** Inspect's key naming: the first scorer named `match` is `match`, later ones `match1`, `match2` … */
function uniqueKeys(names: string[]): string[] {
  const used = new Map<string, number>();
  return names.map((name) => {
    const base = name.replace(/^.*\//, '');
    const n = used.get(base) ?? 0;
    used.set(base, n + 1);
    return n === 0 ? base : `${base}${n}`;
  });
}

export function recordedScorers(task: TaskProvenance): RecordedScorer[] {
  const evalScorers = (factValue(task.scoring.scoring_path?.used) as unknown[] | undefined) ?? [];
  const resultScores = (factValue(task.scoring.metrics?.used) as unknown[] | undefined) ?? [];
  const plan = asObj(factValue(task.scoring.plan?.used));
  const mcStep = ((plan.steps as unknown[] | undefined) ?? []).map(asObj).find((s) => s.solver === 'multiple_choice');
  const multipleCorrect = asObj(mcStep?.params).multiple_correct === true;
  const reducers = (factValue(task.repeats.reducer?.used) as string[] | undefined) ?? ['mean'];

  const declared = evalScorers.map(asObj);
  const keys = uniqueKeys(declared.map((s) => String(s.name)));
  const byKey = new Map<string, RecordedScorer>();
  declared.forEach((s, i) => {
    const params = asObj(s.options);
    byKey.set(keys[i]!, { key: keys[i]!, name: String(s.name), params, ...rescorerFor(String(s.name), params, multipleCorrect), views: [] });
  });
  for (const r of resultScores.map(asObj)) {
    const key = String(r.scorer ?? r.name);
    let scorer = byKey.get(key);
    if (scorer === undefined) {
      // Old logs without eval.scorers: the key is the scorer name (plus a numeric suffix for repeats).
      const name = key.replace(/\d+$/, '');
      const params = asObj(r.params);
      scorer = { key, name, params, ...rescorerFor(name, params, multipleCorrect), views: [] };
      byKey.set(key, scorer);
    }
    const metrics = ((r.metrics as unknown[] | undefined) ?? []).map(asObj).map((m, i) => ({
      key: String(m.key ?? m.name ?? i),
      name: String(m.name),
      params: asObj(m.params),
      stored: typeof m.value === 'number' ? m.value : null,
    }));
    const valueKey = r.scorer !== undefined && r.name !== undefined && r.name !== r.scorer ? String(r.name) : null;
    scorer.views.push({ reducer: typeof r.reducer === 'string' ? r.reducer : 'mean', reducerRecorded: typeof r.reducer === 'string', valueKey, metrics });
  }
  // A scorer the log declared but never summarised (unscored or crashed log): its declared metrics, each reducer.
  for (const scorer of byKey.values()) {
    if (scorer.views.length > 0) continue;
    const declaredMetrics = (asObj(declared.find((d) => String(d.name) === scorer.name)).metrics as unknown[] | undefined) ?? [];
    const metrics = (Array.isArray(declaredMetrics) ? declaredMetrics : []).map(asObj).map((m) => ({
      key: String(m.name).replace(/^.*\//, ''),
      name: String(m.name),
      params: asObj(m.options),
      stored: null,
    }));
    for (const reducer of reducers) scorer.views.push({ reducer, reducerRecorded: false, valueKey: null, metrics });
  }
  return [...byKey.values()];
}
