/**
 * Agent records that hold settings or claimed numbers but no trials: Harbor job configs (YAML, the input of
 * `harbor run -c`), Harbor's dataset registry, adapter parity records (parity_experiment.json) and a single ATIF
 * trajectory. Each imports as a run without items, and says so in a note.
 */
import { basename, dirname } from 'node:path';
import { load as loadYaml } from 'js-yaml';
import { BadInputError } from '../../errors.ts';
import { recorded, same, type RecordNote } from '../../store/schema.ts';
import type { FileProbe, ImportedRun } from '../types.ts';
import { buildAgentRun, isObject, jsonErrorLine, note, parseJsonFile, readText, sourceFile } from './agentRun.ts';
import { jobSettings } from './harbor.ts';
import { countOf } from '../../util/plural.ts';

export type SettingsRole = 'harbor_yaml' | 'parity' | 'registry' | 'atif';

export function settingsRole(p: FileProbe): SettingsRole | null {
  if (/\.ya?ml$/i.test(p.name) && /^(orchestrator|jobs_dir|trial_configs|n_attempts):/m.test(p.head) && /^(agents|datasets|trial_configs):/m.test(p.head)) return 'harbor_yaml';
  if (p.name === 'parity_experiment.json') return 'parity';
  if (p.name === 'registry.json' && /"git_commit_id"\s*:/.test(p.head)) return 'registry';
  if (/\.json$/i.test(p.name) && /"schema_version"\s*:\s*"ATIF-/.test(p.head)) return 'atif';
  return null;
}

// "No trials" was false of a parity record that lists each trial's score: what it lacks is a record per task.
const WITHOUT_ITEMS = (what: string) => note('settings_only', `${what}: settings and claimed numbers only, no record per task; imported without items`);

export async function importSettingsOnly(files: { probe: FileProbe; role: SettingsRole }[]): Promise<ImportedRun[]> {
  const runs: ImportedRun[] = [];
  for (const { probe, role } of files) {
    const text = await readText(probe.path);
    const file = sourceFile(probe.path, text, role);
    const label = `${basename(dirname(probe.path))}/${probe.name}`;
    if (role === 'harbor_yaml') {
      let data: unknown;
      try {
        data = loadYaml(text);
      } catch (e) {
        throw new BadInputError(`not valid YAML (${(e as Error).message.split('\n')[0]})`, { file: probe.path });
      }
      if (!isObject(data)) throw new BadInputError('a Harbor job config must be a mapping', { file: probe.path });
      const notes: RecordNote[] = [WITHOUT_ITEMS('a Harbor job config (the input of harbor run -c)')];
      const trialConfigs = Array.isArray(data.trial_configs) ? data.trial_configs.filter(isObject) : [];
      if (trialConfigs.length > 0) {
        const dirs = [...new Set(trialConfigs.map((t) => t.trials_dir).filter((d) => typeof d === 'string'))];
        const forced = trialConfigs.filter((t) => isObject(t.environment) && t.environment.force_build === true).length;
        notes.push(note('rerun_config', `${trialConfigs.length} explicit trial_configs${dirs.length > 0 ? ` into trials_dir ${dirs.join(', ')}` : ''}${forced > 0 ? ` (${forced} with force_build)` : ''}: a rerun of chosen trials, whose results land apart from the original job's`));
      }
      const settings = jobSettings(data, {});
      runs.push(buildAgentRun({
        source_kind: 'harbor', source_format: 'Harbor job config (YAML)', label, task: String(data.job_name ?? basename(probe.name).replace(/\.ya?ml$/i, '')),
        files: [file], trials: [], agent: settings, notes,
      }));
    } else if (role === 'parity') {
      let strict = true;
      let data: unknown;
      try {
        data = JSON.parse(text);
      } catch {
        strict = false;
        // Python's json rejects these too: the only repair is dropping commas before a closing bracket (which keeps
        // every newline, so a line in the repaired text is the same line of the file).
        const repaired = text.replace(/,(\s*[}\]])/g, '$1');
        try {
          data = JSON.parse(repaired);
        } catch (e) {
          throw new BadInputError(`not valid JSON, even without trailing commas (${(e as Error).message.split('\n')[0]})`, { file: probe.path, ...jsonErrorLine(repaired, e) });
        }
      }
      if (!Array.isArray(data) || !data.every(isObject)) throw new BadInputError('a parity record must be a list of objects', { file: probe.path });
      const notes: RecordNote[] = [WITHOUT_ITEMS('a Harbor adapter parity record')];
      if (!strict) notes.push(note('not_strict_json', 'the file is not strict JSON (trailing commas); read with the trailing commas removed, nothing else changed', [probe.path]));
      const reported: Record<string, unknown> = {};
      data.forEach((r, i) => {
        const size = r.adapted_benchmark_size;
        const parity = r.parity_benchmark_size;
        if (typeof size === 'number' && typeof parity === 'number' && parity < size) {
          notes.push(note('parity_subset', `record ${i} (${r.agent} / ${r.model}): parity ran on ${parity} of ${countOf(size, 'item')}`));
        }
        const metrics = Array.isArray(r.metrics) ? r.metrics.filter(isObject) : [];
        for (const m of metrics) reported[`${i}:${r.agent}:${r.model}:${m.benchmark_name}:${m.metric}`] = m;
      });
      const first = data[0] as Record<string, unknown> | undefined;
      runs.push(buildAgentRun({
        source_kind: 'harbor', source_format: `Harbor adapter parity record${strict ? '' : ' (non-strict JSON)'}`, label, task: String(first?.adapter_name ?? basename(dirname(probe.path))),
        files: [file], trials: [],
        agent: {
          agent_name: same(recorded((data as Record<string, unknown>[]).map((r) => r.agent), 'parity records')),
          model_configured: same(recorded((data as Record<string, unknown>[]).map((r) => r.model), 'parity records')),
          attempts: same(recorded((data as Record<string, unknown>[]).map((r) => r.number_of_trials ?? r.number_of_runs ?? null), 'number_of_trials | number_of_runs')),
          split_size: same(recorded((data as Record<string, unknown>[]).map((r) => r.adapted_benchmark_size ?? null), 'adapted_benchmark_size')),
          task_selection: same(recorded((data as Record<string, unknown>[]).map((r) => r.parity_benchmark_size ?? null), 'parity_benchmark_size')),
        },
        reported, notes,
      }));
    } else if (role === 'registry') {
      const data = parseJsonFile(text, probe.path);
      if (!Array.isArray(data)) throw new BadInputError('a dataset registry must be a list of datasets', { file: probe.path });
      const versions = data.filter(isObject).map((d) => ({ name: d.name, version: d.version, tasks: Array.isArray(d.tasks) ? d.tasks.length : null }));
      runs.push(buildAgentRun({
        source_kind: 'harbor', source_format: 'Harbor dataset registry', label, task: 'registry', files: [file], trials: [],
        agent: { dataset_version: same(recorded(versions, 'registry.json (dataset, version, task count)')) },
        notes: [note('settings_only', `a dataset registry (${versions.length} dataset versions, each task pinned to a git commit): no run, imported without items`)],
      }));
    } else {
      const data = parseJsonFile(text, probe.path);
      if (!isObject(data)) throw new BadInputError('an ATIF trajectory must be a JSON object', { file: probe.path });
      const agent = isObject(data.agent) ? data.agent : {};
      runs.push(buildAgentRun({
        source_kind: 'harbor', source_format: `ATIF trajectory (${String(data.schema_version)})`, label, task: 'trajectory', files: [file], trials: [],
        agent: {
          agent_name: same(agent.name ? recorded(agent.name, 'agent.name') : { status: 'unknown' }),
          agent_version: same(agent.version ? recorded(agent.version, 'agent.version') : { status: 'unknown' }),
          model_recorded: same(agent.model_name ? recorded(agent.model_name, 'agent.model_name') : { status: 'unknown' }),
        },
        notes: [note('settings_only', `one agent trajectory (${Array.isArray(data.steps) ? data.steps.length : 0} steps) without a verifier reward: imported without items`)],
      }));
    }
  }
  return runs;
}
