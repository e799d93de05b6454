/**
 * mini-swe-agent's batch outputs beside its preds.json (run/benchmarks/swebench.py and agents/default.py at
 * a83fcae, v2.4.6): `exit_statuses_<time>.yaml` ({instances_by_exit_status: {status: [ids]}}, one file per batch
 * run, so a resumed run leaves several) and `<id>/<id>.traj.json` (info.exit_status, info.submission,
 * info.model_stats, info.mini_version, info.config with the agent, model and environment configs). An agent that
 * stops without submitting (a limit, an exception) still gets a preds.json entry with an empty patch, which SWE-bench
 * counts as submitted and never evaluates: the exit status is what tells those instances apart.
 */
import { basename, dirname } from 'node:path';
import { load as loadYaml } from 'js-yaml';
import { BadInputError } from '../../errors.ts';
import { recorded, same, type AgentField, type RecordNote, type Setting, type SourceFile } from '../../store/schema.ts';
import type { FileProbe } from '../types.ts';
import { isObject, note, parseJsonFile, sourceFile } from './agentRun.ts';

export type MiniRole = 'mini_exit_statuses' | 'mini_trajectory';

/** How an exit status ends an instance: the agent submitted, hit a configured limit, or raised. */
export type ExitClass = 'submitted' | 'limit' | 'error';

/**
 * The statuses mini's own code writes: Submitted (environments' _check_finished), LimitsExceeded and TimeExceeded
 * (DefaultAgent.query: step_limit, cost_limit, wall_time_limit_seconds), RepeatedFormatError
 * (max_consecutive_format_errors). Anything else is the class name of an exception (process_instance's
 * `type(e).__name__`, or 'Uncaught <name>' from the batch's future).
 */
export function exitClass(status: string | null): ExitClass {
  if (status === 'Submitted') return 'submitted';
  if (status === 'LimitsExceeded' || status === 'TimeExceeded' || status === 'RepeatedFormatError') return 'limit';
  return 'error';
}

export const EXIT_STATUS_FILE = /^exit_statuses_(\d+(?:\.\d+)?)\.ya?ml$/;

export function miniRole(p: FileProbe): MiniRole | null {
  if (EXIT_STATUS_FILE.test(p.name) && /^instances_by_exit_status:/m.test(p.head)) return 'mini_exit_statuses';
  // process_instance writes <output>/<instance_id>/<instance_id>.traj.json, its info block first (2.x: model_stats,
  // then the config with its long templates; 1.x: exit_status), so the head always shows one of these keys.
  const head = p.head.trimStart();
  if (p.name === `${basename(dirname(p.path))}.traj.json` && /^\{\s*"info"\s*:\s*\{/.test(head) && /"(model_stats|exit_status|mini_version)"\s*:/.test(head)) return 'mini_trajectory';
  return null;
}

export interface MiniInstance {
  exit_status: string | null;
  exit_class: ExitClass;
  /** The exit_statuses file that gave the status (the latest batch run that processed the instance). */
  exit_status_file: string | null;
  trajectory: boolean;
  api_calls: number | null;
  instance_cost: number | null;
  exception: string | null;
  submission: string | null;
}

export interface MiniRun {
  /** The batch output folder (where preds.json sits). */
  folder: string;
  files: SourceFile[];
  instances: Map<string, MiniInstance>;
  agent: Partial<Record<AgentField, Setting>>;
  /** The API arguments the model was called with (info.config.model.model_kwargs: temperature and the like). */
  modelKwargs: Setting | null;
  version: string | null;
  notes: RecordNote[];
}

/** The mini-swe-agent files of each output folder, by folder. */
export function groupMiniFiles(files: { probe: FileProbe; role: string }[]): Map<string, { exitStatuses: string[]; trajectories: string[] }> {
  const byFolder = new Map<string, { exitStatuses: string[]; trajectories: string[] }>();
  for (const { probe, role } of files) {
    if (role !== 'mini_exit_statuses' && role !== 'mini_trajectory') continue;
    const folder = role === 'mini_exit_statuses' ? dirname(probe.path) : dirname(dirname(probe.path));
    const entry = byFolder.get(folder) ?? { exitStatuses: [], trajectories: [] };
    (role === 'mini_exit_statuses' ? entry.exitStatuses : entry.trajectories).push(probe.path);
    byFolder.set(folder, entry);
  }
  return byFolder;
}

function readExitStatuses(path: string, text: string): Map<string, string | null> {
  let data: unknown;
  try {
    data = loadYaml(text);
  } catch (e) {
    throw new BadInputError(`not valid YAML (${(e as Error).message.split('\n')[0]})`, { file: path });
  }
  const byStatus = isObject(data) ? data.instances_by_exit_status : undefined;
  if (!isObject(byStatus)) throw new BadInputError('an exit-status file must map instances_by_exit_status to lists of instance ids', { file: path, field: 'instances_by_exit_status' });
  const out = new Map<string, string | null>();
  for (const [status, ids] of Object.entries(byStatus)) {
    if (!Array.isArray(ids) || ids.some((id) => typeof id !== 'string')) throw new BadInputError('not a list of instance ids', { file: path, field: `instances_by_exit_status.${status}` });
    // yaml.dump writes a None status (an agent that returned no exit_status) as the key `null`.
    for (const id of ids as string[]) out.set(id, status === 'null' ? null : status);
  }
  return out;
}

interface Trajectory {
  path: string;
  exit_status: string | null;
  submission: string | null;
  api_calls: number | null;
  instance_cost: number | null;
  mini_version: string | null;
  exception: string | null;
  config: Record<string, unknown>;
}

function readTrajectory(path: string, text: string): Trajectory {
  const data = parseJsonFile(text, path);
  if (!isObject(data) || !isObject(data.info)) throw new BadInputError('a mini-swe-agent trajectory must be a JSON object with an info object', { file: path, field: 'info' });
  const info = data.info;
  const stats = isObject(info.model_stats) ? info.model_stats : {};
  const str = (v: unknown) => (typeof v === 'string' ? v : null);
  const num = (v: unknown) => (typeof v === 'number' ? v : null);
  return {
    path,
    exit_status: str(info.exit_status),
    submission: str(info.submission),
    api_calls: num(stats.api_calls),
    instance_cost: num(stats.instance_cost),
    mini_version: str(info.mini_version),
    exception: str(info.exception_str),
    config: isObject(info.config) ? info.config : {},
  };
}

const pick = (obj: unknown, keys: string[]): Record<string, unknown> | undefined => {
  if (!isObject(obj)) return undefined;
  const out = Object.fromEntries(keys.filter((k) => k in obj).map((k) => [k, obj[k]]));
  return Object.keys(out).length > 0 ? out : undefined;
};

/** One value when every trajectory agrees (the image is per instance, so it is left out), else null and a note. */
function agreed(trajectories: Trajectory[], part: string, notes: RecordNote[]): Record<string, unknown> | null {
  const values = trajectories.map((t) => t.config[part]).filter(isObject).map((v) => {
    const { image: _image, ...rest } = v;
    return rest;
  });
  if (values.length === 0) return null;
  const distinct = new Set(values.map((v) => JSON.stringify(v)));
  if (distinct.size > 1) {
    notes.push(note('mixed_config', `the trajectories record ${distinct.size} different info.config.${part} blocks: the instances did not all run under one configuration (the first is shown as the setting)`, trajectories.map((t) => basename(t.path)).slice(0, 5)));
  }
  return values[0]!;
}

export function readMiniRun(
  folder: string,
  found: { exitStatuses: string[]; trajectories: string[] },
  texts: Map<string, string>,
  predictions: ReadonlyMap<string, { patch: string | null }>,
): MiniRun {
  const files: SourceFile[] = [];
  const notes: RecordNote[] = [];
  // Batch runs in the order they started (the file name is time.time() at the start).
  const exitFiles = [...found.exitStatuses].sort((a, b) => Number(EXIT_STATUS_FILE.exec(basename(a))![1]) - Number(EXIT_STATUS_FILE.exec(basename(b))![1]));
  const status = new Map<string, { status: string | null; file: string }>();
  const rerun: string[] = [];
  for (const path of exitFiles) {
    files.push(sourceFile(path, texts.get(path)!, 'mini-swe-agent exit statuses'));
    for (const [id, s] of readExitStatuses(path, texts.get(path)!)) {
      const before = status.get(id);
      if (before !== undefined && before.status !== s) rerun.push(id);
      status.set(id, { status: s, file: basename(path) });
    }
  }
  if (exitFiles.length > 1) {
    notes.push(note('resumed_run', `${exitFiles.length} exit-status files: ${exitFiles.length} batch runs wrote into this folder (a resumed run skips the instances preds.json already holds); each instance's status is taken from the latest file that lists it`, exitFiles.map((p) => basename(p))));
  }
  if (rerun.length > 0) notes.push(note('exit_status_changed', `${rerun.length} instance(s) have different exit statuses in different batch runs (re-run with --redo-existing): the latest is used`, rerun.slice(0, 5)));
  const trajectories = new Map<string, Trajectory>();
  for (const path of found.trajectories) {
    files.push(sourceFile(path, texts.get(path)!, 'mini-swe-agent trajectory'));
    trajectories.set(basename(dirname(path)), readTrajectory(path, texts.get(path)!));
  }
  const ids = [...new Set([...status.keys(), ...trajectories.keys()])].sort();
  const instances = new Map<string, MiniInstance>();
  const disagree: string[] = [];
  const submissionDiffers: string[] = [];
  for (const id of ids) {
    const traj = trajectories.get(id);
    const fromYaml = status.get(id);
    const exit = fromYaml !== undefined ? fromYaml.status : traj!.exit_status;
    if (fromYaml !== undefined && traj !== undefined && traj.exit_status !== fromYaml.status) disagree.push(id);
    const pred = predictions.get(id);
    if (traj?.submission != null && pred !== undefined && (pred.patch ?? '') !== traj.submission) submissionDiffers.push(id);
    instances.set(id, {
      exit_status: exit,
      exit_class: exitClass(exit),
      exit_status_file: fromYaml?.file ?? null,
      trajectory: traj !== undefined,
      api_calls: traj?.api_calls ?? null,
      instance_cost: traj?.instance_cost ?? null,
      exception: traj?.exception ?? null,
      submission: traj?.submission ?? null,
    });
  }
  if (disagree.length > 0) notes.push(note('exit_status_disagrees', `${disagree.length} trajectory(ies) record an info.exit_status other than the exit-status file's: the file's is used`, disagree.slice(0, 5)));
  if (submissionDiffers.length > 0) notes.push(note('submission_differs', `${submissionDiffers.length} trajectory(ies) record an info.submission that differs from the instance's model_patch in preds.json`, submissionDiffers.slice(0, 5)));
  const withoutTrajectory = ids.filter((id) => !trajectories.has(id));
  if (withoutTrajectory.length > 0 && found.trajectories.length > 0) {
    notes.push(note('no_trajectory', `${withoutTrajectory.length} instance(s) have an exit status but no trajectory: mini saves one only once the agent exists, so these failed before it started (environment start-up)`, withoutTrajectory.slice(0, 5)));
  }
  // mini 1.x (run/extra/swebench.py at v1.17.5: `exit_status, result = type(e).__name__, str(e)`) wrote the
  // exception's message as the model_patch; 2.0 writes "". SWE-bench then evaluates the message as a patch.
  const exceptionAsPatch = ids.filter((id) => instances.get(id)!.exit_class === 'error' && (predictions.get(id)?.patch ?? '') !== '');
  if (exceptionAsPatch.length > 0) {
    notes.push(note('exception_as_patch', `${exceptionAsPatch.length} instance(s) ended in an exception yet have a non-empty model_patch in preds.json (mini-swe-agent before 2.0 wrote the exception's message there): SWE-bench evaluates that text as a patch, which cannot apply`, exceptionAsPatch.slice(0, 5)));
  }
  const notPredicted = ids.filter((id) => !predictions.has(id));
  if (notPredicted.length > 0) notes.push(note('not_in_predictions', `${notPredicted.length} instance(s) with an exit status are missing from preds.json: SWE-bench will not count them at all`, notPredicted.slice(0, 5)));
  const noStatus = [...predictions.keys()].filter((id) => !instances.has(id));
  if (noStatus.length > 0 && instances.size > 0) notes.push(note('no_exit_status', `${noStatus.length} prediction(s) have no exit status or trajectory here`, noStatus.slice(0, 5)));
  const stopped = ids.filter((id) => instances.get(id)!.exit_class !== 'submitted');
  if (stopped.length > 0) {
    const byStatus = new Map<string, number>();
    for (const id of stopped) byStatus.set(String(instances.get(id)!.exit_status), (byStatus.get(String(instances.get(id)!.exit_status)) ?? 0) + 1);
    const empty = stopped.filter((id) => predictions.has(id) && !predictions.get(id)!.patch).length;
    notes.push(note('agent_stopped', `${stopped.length} of ${ids.length} instance(s) ended without a submission (${[...byStatus].map(([s, n]) => `${s} ${n}`).join(', ')}); ${empty} of them are empty patches in preds.json, which SWE-bench counts as submitted but never evaluates (empty_patch_instances): no rate counts them resolved`, stopped.slice(0, 5)));
  }

  const all = [...trajectories.values()];
  const agentCfg = agreed(all, 'agent', notes);
  const modelCfg = agreed(all, 'model', notes);
  const envCfg = agreed(all, 'environment', notes);
  const first = all[0];
  const versions = [...new Set(all.map((t) => t.mini_version).filter((v): v is string => v !== null))];
  if (versions.length > 1) notes.push(note('mixed_versions', `the trajectories were written by ${versions.length} mini-swe-agent versions (${versions.join(', ')})`, []));
  const from = (field: string) => `trajectory info.config.${field}`;
  const rec = (value: unknown, where: string): Setting | undefined => (value === undefined || value === null ? undefined : same(recorded(value, where)));
  const agent: Partial<Record<AgentField, Setting>> = {};
  const set = (field: AgentField, s: Setting | undefined) => {
    if (s !== undefined) agent[field] = s;
  };
  if (first !== undefined || exitFiles.length > 0) set('agent_name', same(recorded(typeof first?.config.agent_type === 'string' ? `mini-swe-agent (${first.config.agent_type})` : 'mini-swe-agent', first ? from('agent_type') : 'exit_statuses file name')));
  set('agent_version', versions.length === 0 ? undefined : same(recorded(versions.length === 1 ? versions[0] : versions, 'trajectory info.mini_version')));
  set('model_configured', rec(modelCfg?.model_name, from('model.model_name')));
  set('sandbox_provider', rec(typeof first?.config.environment_type === 'string' ? first.config.environment_type : undefined, from('environment_type')));
  const timeouts = { ...pick(envCfg, ['timeout', 'container_timeout', 'pull_timeout']), ...pick(agentCfg, ['wall_time_limit_seconds']) };
  set('timeouts', rec(Object.keys(timeouts).length > 0 ? timeouts : undefined, `${from('environment')} (timeout: per command, seconds) and ${from('agent.wall_time_limit_seconds')} (0: none)`));
  set('agent_limits', rec(pick(agentCfg, ['step_limit', 'cost_limit', 'max_consecutive_format_errors']), from('agent')));
  const kwargs = isObject(modelCfg?.model_kwargs) ? same(recorded(modelCfg!.model_kwargs, from('model.model_kwargs'))) : null;
  return { folder, files, instances, agent, modelKwargs: kwargs, version: versions.length === 1 ? versions[0]! : null, notes };
}

