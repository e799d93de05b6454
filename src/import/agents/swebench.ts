/**
 * SWE-bench: predictions, evaluation folders logs/run_evaluation/<run_id>/<model>/<instance_id>/ and run summaries
 * `<model>.<run_id>.json`, joined into one run per evaluation with make_run_report's rules (swebench
 * harness/reporting.py at 7a21e05): an empty patch is counted before any log is read; completed = report.json
 * exists; resolved from its flag; an empty or unparsable report, or none, is an error; unsubmitted split
 * instances are incomplete. Predictions with no evaluation import as a run of unevaluated submissions.
 */
import { basename, dirname, join, sep } from 'node:path';
import { load as loadYaml } from 'js-yaml';
import { BadInputError } from '../../errors.ts';
import { inferred, recorded, same, type RecordNote, type SourceFile } from '../../store/schema.ts';
import type { FileProbe, ImportedRun } from '../types.ts';
import { buildAgentRun, isObject, note, readText, sourceFile, type AgentTrialRecord } from './agentRun.ts';
import { looksLikePredictions, readPredictions, type PredictionsFile } from './swebenchPredictions.ts';
import { looksLikeSummary, readSummary, type Summary } from './swebenchSummary.ts';
import { groupMiniFiles, miniRole, readMiniRun, type MiniRole, type MiniRun } from './miniSweAgent.ts';

export const EVAL_FILES = ['report.json', 'patch.diff', 'eval.sh', 'test_output.txt', 'run_instance.log'];

export type SwebenchRole = 'predictions' | 'summary' | 'eval' | 'metadata' | MiniRole;

/**
 * A report.json where run_instance writes it: in the folder named after the instance, keyed by that id
 * (logs/run_evaluation/<run_id>/<model>/<instance_id>/report.json). Elsewhere nothing says which run it belongs to.
 */
export function inEvaluationFolder(p: FileProbe): boolean {
  return p.name === 'report.json' && p.head.trimStart().startsWith('{') && p.head.includes(`${JSON.stringify(basename(dirname(p.path)))}:`);
}

export function swebenchRole(p: FileProbe): SwebenchRole | null {
  const parts = p.path.split(sep);
  if (EVAL_FILES.includes(p.name) && parts.includes('run_evaluation')) return 'eval';
  if (inEvaluationFolder(p) && /"(patch_is_None|patch_successfully_applied)"\s*:/.test(p.head)) return 'eval';
  if (/\.jsonl?$/i.test(p.name) && looksLikeSummary(p.head)) return 'summary';
  if (/\.jsonl?$/i.test(p.name) && looksLikePredictions(p.head)) return 'predictions';
  if (/^metadata\.ya?ml$/i.test(p.name) && /^(pass_rate|successful|resolved|total_tasks)\s*:/m.test(p.head)) return 'metadata';
  return miniRole(p);
}

interface EvalGroup {
  root: string;
  run_id: string;
  model: string;
  instances: Map<string, Map<string, string>>;
}

export async function importSwebench(files: { probe: FileProbe; role: SwebenchRole }[]): Promise<ImportedRun[]> {
  const groups = new Map<string, EvalGroup>();
  for (const { probe, role } of files.filter((f) => f.role === 'eval')) {
    const instanceDir = dirname(probe.path);
    const modelDir = dirname(instanceDir);
    const runDir = dirname(modelDir);
    const key = modelDir;
    const g = groups.get(key) ?? { root: modelDir, run_id: basename(runDir), model: basename(modelDir), instances: new Map() };
    const inst = g.instances.get(basename(instanceDir)) ?? new Map<string, string>();
    inst.set(probe.name, probe.path);
    g.instances.set(basename(instanceDir), inst);
    groups.set(key, g);
    void role;
  }
  const texts = new Map<string, string>();
  const read = async (path: string) => texts.get(path) ?? (texts.set(path, await readText(path)), texts.get(path)!);
  const summaries: Summary[] = [];
  for (const f of files.filter((x) => x.role === 'summary')) summaries.push(readSummary(f.probe.path, await read(f.probe.path)));
  const predictions: PredictionsFile[] = [];
  for (const f of files.filter((x) => x.role === 'predictions')) predictions.push(readPredictions(f.probe.path, await read(f.probe.path)));
  const metadata = new Map<string, string>();
  for (const f of files.filter((x) => x.role === 'metadata')) metadata.set(dirname(f.probe.path), f.probe.path);
  // mini-swe-agent's exit statuses and trajectories, by the batch output folder their preds.json sits in.
  const minis = new Map<PredictionsFile | string, MiniRun>();
  for (const [folder, found] of groupMiniFiles(files)) {
    for (const path of [...found.exitStatuses, ...found.trajectories]) await read(path);
    const pred = predictions.find((p) => dirname(p.path) === folder) ?? null;
    const predMap = new Map((pred?.predictions ?? []).map((p) => [p.instance_id, p]));
    minis.set(pred ?? folder, readMiniRun(folder, found, texts, predMap));
  }

  // One evaluation per summary (with the evaluation folder of its run id and model), then folders without a summary.
  const evaluations: { summary: Summary | null; group: EvalGroup | null }[] = [];
  const usedGroups = new Set<EvalGroup>();
  for (const s of summaries) {
    const name = basename(s.path).replace(/\.json$/i, '');
    const group = [...groups.values()].find((g) => !usedGroups.has(g) && name === `${g.model}.${g.run_id}`) ?? null;
    if (group) usedGroups.add(group);
    evaluations.push({ summary: s, group });
  }
  for (const g of groups.values()) if (!usedGroups.has(g)) evaluations.push({ summary: null, group: g });

  const usedPredictions = new Set<PredictionsFile>();
  const runs: ImportedRun[] = [];
  for (const ev of evaluations) {
    const pred = matchPredictions(ev, predictions, usedPredictions);
    if (pred) usedPredictions.add(pred);
    runs.push(await evaluationRun(ev.summary, ev.group, pred, read, pred ? (minis.get(pred) ?? null) : null));
  }
  for (const p of predictions) if (!usedPredictions.has(p)) runs.push(await predictionsRun(p, metadata, read, minis.get(p) ?? null));
  for (const [key, mini] of minis) {
    if (typeof key !== 'string') continue;
    throw new BadInputError("mini-swe-agent exit statuses or trajectories without the preds.json of their batch run beside them: import the whole output folder", { file: mini.files[0]!.path });
  }
  return runs;
}

function matchPredictions(ev: { summary: Summary | null; group: EvalGroup | null }, all: PredictionsFile[], used: Set<PredictionsFile>): PredictionsFile | null {
  const submitted = ev.summary?.lists.submitted_ids;
  const evaluated = new Set([...(ev.group?.instances.keys() ?? []), ...(ev.summary?.lists.completed_ids ?? [])]);
  const candidates = all.filter((p) => !used.has(p)).filter((p) => {
    const ids = new Set(p.predictions.map((x) => x.instance_id));
    if (submitted !== undefined) return submitted.length === ids.size && submitted.every((id) => ids.has(id));
    if (ev.group && !p.predictions.some((x) => (x.model ?? '').replaceAll('/', '__') === ev.group!.model)) return false;
    return [...evaluated].every((id) => ids.has(id));
  });
  const sameFolder = candidates.find((p) => ev.summary && dirname(p.path) === dirname(ev.summary.path));
  return sameFolder ?? candidates[0] ?? null;
}

type Reader = (path: string) => Promise<string>;

/** What a mini-swe-agent run adds to an instance's record: its exit status and model statistics. */
function miniDoc(mini: MiniRun | null, id: string): Record<string, unknown> {
  const m = mini?.instances.get(id);
  if (m === undefined) return {};
  return { agent_exit_status: m.exit_status, agent_exit_class: m.exit_class, api_calls: m.api_calls, instance_cost: m.instance_cost, ...(m.exception ? { exception: m.exception } : {}) };
}

async function evaluationRun(summary: Summary | null, group: EvalGroup | null, pred: PredictionsFile | null, read: Reader, mini: MiniRun | null): Promise<ImportedRun> {
  const files: SourceFile[] = [...(mini?.files ?? [])];
  const notes: RecordNote[] = [...(pred?.notes ?? []), ...(mini?.notes ?? [])];
  if (summary) files.push(sourceFile(summary.path, await read(summary.path), 'run summary'));
  if (pred) files.push(sourceFile(pred.path, await read(pred.path), 'predictions'));
  const predMap = new Map((pred?.predictions ?? []).map((p) => [p.instance_id, p]));
  const lists = summary?.lists ?? {};
  const inList = (key: string, id: string) => (lists[key] ?? []).includes(id);
  const ids = new Set<string>([...predMap.keys(), ...(lists.submitted_ids ?? []), ...(group?.instances.keys() ?? [])]);
  if (summary?.schema !== 'v1') for (const key of ['resolved_ids', 'unresolved_ids', 'error_ids', 'empty_patch_ids', 'completed_ids']) for (const id of lists[key] ?? []) ids.add(id);
  else for (const key of Object.keys(lists)) for (const id of lists[key]!) ids.add(id);
  const trials: AgentTrialRecord[] = [];
  const docs = new Map<string, unknown>();
  const stale: string[] = [];
  const cached: string[] = [];
  for (const id of [...ids].sort()) {
    const folder = group?.instances.get(id);
    const p = predMap.get(id);
    for (const f of folder?.values() ?? []) files.push(sourceFile(f, await read(f), 'evaluation log'));
    const diffText = folder?.has('patch.diff') ? await read(folder.get('patch.diff')!) : null;
    const patch = p ? p.patch : diffText;
    const empty = p ? p.patch === null || p.patch === '' : summary?.schema === 'v1' ? inList('no_generation', id) : inList('empty_patch_ids', id);
    let outcome: AgentTrialRecord['outcome'];
    let error: string | null = null;
    let reportResolved: boolean | null = null;
    if (folder?.has('report.json')) {
      const text = (await read(folder.get('report.json')!)).trim();
      try {
        const report = JSON.parse(text) as Record<string, { resolved?: unknown }>;
        if (!isObject(report[id]) || !('resolved' in report[id]!)) throw new Error(`no '${id}.resolved' key`);
        reportResolved = Boolean(report[id]!.resolved);
      } catch (e) {
        error = text === '' ? 'report.json is empty' : `report.json unreadable (${(e as Error).message.split('\n')[0]})`;
      }
    }
    if (empty) {
      outcome = 'empty_patch';
      if (folder?.has('report.json')) cached.push(id);
    } else if (group !== null) {
      outcome = error !== null ? 'error' : reportResolved === null ? 'error' : reportResolved ? 'resolved' : 'unresolved';
      if (!folder?.has('report.json')) error = folder === undefined ? 'no evaluation folder' : 'no report.json';
    } else if (summary?.schema === 'v1') {
      outcome = inList('resolved', id) ? 'resolved' : inList('applied', id) && inList('with_logs', id) ? 'unresolved' : inList('generated', id) ? 'error' : 'not_evaluated';
    } else if (summary) {
      outcome = inList('resolved_ids', id) ? 'resolved' : inList('unresolved_ids', id) ? 'unresolved' : inList('error_ids', id) ? 'error' : 'not_evaluated';
      // make_run_report counts an empty or unreadable report.json as completed and as an error.
      if (outcome === 'error') error = inList('completed_ids', id) ? 'report.json empty or unreadable (listed as completed and as an error)' : 'no report.json (listed as an error)';
    } else outcome = 'not_evaluated';
    if (diffText !== null && p && p.patch !== null && p.patch !== '' && diffText !== p.patch) stale.push(id);
    const reward = outcome === 'resolved' ? 1 : outcome === 'unresolved' ? 0 : null;
    trials.push({ doc_id: id, attempt: 0, outcome, reward, error, text: patch });
    docs.set(id, { patch_flags: p?.flags ?? [], files: folder ? [...folder.keys()].sort() : [], ...miniDoc(mini, id) });
  }
  for (const id of lists.incomplete_ids ?? []) {
    if (ids.has(id)) continue;
    trials.push({ doc_id: id, attempt: 0, outcome: 'not_submitted', reward: null });
  }
  if (stale.length > 0) notes.push(note('stale_report', `${stale.length} instance(s) have a patch.diff that differs from the submitted prediction: their report.json comes from an earlier evaluation under the same run_id (the harness reuses any report.json it finds)`, stale.slice(0, 5)));
  if (cached.length > 0) notes.push(note('run_id_cache', `${cached.length} instance(s) are empty patches in the final predictions but their folder holds a report.json from an earlier evaluation under the same run_id: counting folders would over-count completed instances`, cached.slice(0, 5)));
  const submittedCount = trials.filter((t) => t.outcome !== 'not_submitted').length;
  const splitTotal = summary?.totalCounts === 'dataset' ? summary.total : null;
  if (splitTotal !== null && splitTotal > submittedCount) {
    notes.push(note('total_is_whole_split', `total_instances is ${splitTotal} while ${submittedCount} instance(s) were submitted: the summary's total counts every dataset instance (the whole split unless --instance_ids was given), so resolved ÷ total counts each unsubmitted instance as a failure`, [summary!.path]));
  }
  if (summary?.totalCounts === 'predictions') {
    notes.push(note('total_is_evaluated', `this summary schema (swebench 2.0.0–2.0.2) counts in total_instances (${summary.total}) only the instances that had a prediction: it does not say how large the split is`, [summary.path]));
  }
  const model = pred?.predictions[0]?.model ?? group?.model ?? null;
  const runId = group?.run_id ?? (summary && model ? basename(summary.path).replace(/\.json$/i, '').slice(model.replaceAll('/', '__').length + 1) : null);
  const label = summary ? basename(summary.path) : `${group!.run_id}/${group!.model}`;
  return buildAgentRun({
    source_kind: 'swebench',
    source_format: `${summary ? `SWE-bench run summary ${summary.schema}${group ? ' + evaluation logs' : ''}` : 'SWE-bench evaluation logs'}${mini ? MINI_FORMAT : ''}`,
    label,
    task: 'swe-bench',
    files,
    trials,
    docs,
    model: model === null ? undefined : recorded(model, pred ? 'predictions model_name_or_path' : 'log folder name'),
    agent: {
      ...mini?.agent,
      model_recorded: same(model === null ? { status: 'unknown' } : recorded(model)),
      split_size: same(splitTotal !== null ? recorded(splitTotal, `${basename(summary!.path)} total_instances`) : { status: 'unknown' }),
      attempts: same(inferred(1, 'SWE-bench evaluates one prediction per instance')),
      denominator_rule: same(inferred('resolved ÷ total_instances (leaderboard)', 'swebench reporting.py stores counts only; the leaderboard divides by the split')),
      ...(runId ? { task_selection: same(recorded(`run_id ${runId}`)) } : {}),
    },
    reported: summary ? { ...summary.counts, schema: summary.schema } : undefined,
    ...(mini?.modelKwargs ? { generation: mini.modelKwargs } : {}),
    notes,
  });
}

const MINI_FORMAT = ' + mini-swe-agent exit statuses and trajectories';

async function predictionsRun(pred: PredictionsFile, metadata: Map<string, string>, read: Reader, mini: MiniRun | null): Promise<ImportedRun> {
  const files = [sourceFile(pred.path, await read(pred.path), 'predictions'), ...(mini?.files ?? [])];
  const notes = [...pred.notes, ...(mini?.notes ?? [])];
  const reported: Record<string, unknown> = {};
  const metaPath = metadata.get(dirname(pred.path));
  const byId = new Map(pred.predictions.map((p) => [p.instance_id, p]));
  if (metaPath !== undefined) {
    const text = await read(metaPath);
    files.push(sourceFile(metaPath, text, 'submission metadata'));
    let meta: unknown;
    try {
      meta = loadYaml(text);
    } catch (e) {
      throw new BadInputError(`not valid YAML (${(e as Error).message.split('\n')[0]})`, { file: metaPath });
    }
    if (isObject(meta)) {
      Object.assign(reported, meta);
      const claim = claimedRate(meta, byId.size);
      if (claim) notes.push(note('claimed_rate', claim, [metaPath]));
    }
  }
  const split = splitFromPath(pred.path);
  if (split !== null && byId.size < split.size) {
    notes.push(note('split_not_covered', `${byId.size} predictions for ${split.name} (${split.size} instances, inferred from the path): a rate over the whole split counts the ${split.size - byId.size} unsubmitted instances as failures, a rate over the submitted ones does not; say which`, [pred.path]));
  }
  notes.push(note('not_evaluated', `predictions only: no evaluation logs or run summary, so nothing here says which of the ${byId.size} instances were resolved`, [pred.path]));
  const model = pred.predictions.find((p) => p.model !== null)?.model ?? null;
  return buildAgentRun({
    source_kind: 'swebench',
    source_format: `SWE-bench predictions (${pred.shape})${mini ? MINI_FORMAT : ''}`,
    label: join(basename(dirname(pred.path)), basename(pred.path)),
    task: 'swe-bench',
    files,
    trials: [...byId.values()].map((p) => ({ doc_id: p.instance_id, attempt: 0, outcome: p.flags.includes('empty') ? 'empty_patch' : 'not_evaluated', reward: null, text: p.patch })),
    docs: new Map([...byId.values()].map((p) => [p.instance_id, { patch_flags: p.flags, ...miniDoc(mini, p.instance_id) }])),
    model: model === null ? undefined : recorded(model, 'predictions'),
    // The file is in the format SWE-bench's harness reads; nothing here is that harness's output ("recorded" said it was).
    harness: { name: inferred('swebench', "predictions in the format SWE-bench's harness evaluates; the harness has not run on them here") },
    agent: {
      ...mini?.agent,
      model_recorded: same(model === null ? { status: 'unknown' } : recorded(model)),
      attempts: same(inferred(1, 'one prediction per instance')),
      ...(split === null ? {} : { split_size: same(inferred(split.size, `${split.name}, named in the file's path`)) }),
    },
    reported: Object.keys(reported).length > 0 ? reported : undefined,
    ...(mini?.modelKwargs ? { generation: mini.modelKwargs } : {}),
    notes,
  });
}

/** Which denominator a claimed pass rate used: the split (total tasks) or the submitted predictions. */
export function claimedRate(meta: Record<string, unknown>, submitted: number): string | null {
  const pct = typeof meta.pass_rate === 'string' ? Number(meta.pass_rate.replace('%', '')) : typeof meta.pass_rate === 'number' ? meta.pass_rate * (meta.pass_rate <= 1 ? 100 : 1) : NaN;
  const solved = typeof meta.successful === 'number' ? meta.successful : typeof meta.resolved === 'number' ? meta.resolved : NaN;
  const total = typeof meta.total_tasks === 'number' ? meta.total_tasks : NaN;
  if (!Number.isFinite(pct) || !Number.isFinite(solved)) return null;
  const decimals = (String(meta.pass_rate).split('.')[1] ?? '').replace('%', '').length;
  const matches = (den: number) => Number.isFinite(den) && den > 0 && Math.abs((solved / den) * 100 - pct) <= 0.5 * 10 ** -decimals + 1e-9;
  const overSplit = matches(total);
  const overSubmitted = matches(submitted);
  const fmt = (den: number) => `${solved}/${den} = ${((solved / den) * 100).toFixed(decimals + 1)}%`;
  const parts = [`claimed pass rate ${meta.pass_rate} with ${solved} successful`];
  if (Number.isFinite(total)) parts.push(`over the ${total} tasks of the split: ${fmt(total)}${overSplit ? ' (matches the claim)' : ''}`);
  parts.push(`over the ${submitted} submitted predictions: ${fmt(submitted)}${overSubmitted ? ' (matches the claim)' : ''}`);
  const verdict = overSplit && !overSubmitted ? 'the claim is resolved ÷ whole split' : overSubmitted && !overSplit ? 'the claim is resolved ÷ submitted' : overSplit ? 'both denominators fit the printed precision' : 'neither denominator gives the claim';
  return `${parts.join('; ')}: ${verdict}; and no evaluation log in these files supports the ${solved}`;
}

/** The SWE-bench split a submission folder names (the experiments repository files them by split). */
function splitFromPath(path: string): { name: string; size: number } | null {
  const parts = path.toLowerCase().split(sep);
  if (parts.includes('verified')) return { name: 'SWE-bench Verified', size: 500 };
  if (parts.includes('lite')) return { name: 'SWE-bench Lite', size: 300 };
  return null;
}
