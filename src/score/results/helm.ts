/**
 * HELM's stats.json recomputed from per_instance_stats.json as HELM's runner computes it: per (stat name, split,
 * trial) the instances' Stats merged (Σsum / Σcount), then the trial means merged (their mean). The worst-case
 * copies (perturbation robustness/fairness, computed_on worst) equal the plain value when no instance is perturbed;
 * num_instances is the count of instances per split. Stats a metric class computes over the whole run (BBQ's bias
 * scores, perplexity from summed log-probs) have no per-instance records and are named as not reproduced.
 */
import { cell, type AgentAsRecordedCell } from '../agents/asRecorded.ts';
import type { TaskRecords } from './records.ts';
import { EXTRA_FIELD_PREFIX } from '../../store/schema.ts';

const TRIAL = /\|trial=(\d+)/;
/** Bookkeeping stats are stored as record fields; stats.json names them plainly. */
const FIELD = new RegExp(`^${EXTRA_FIELD_PREFIX}`);

interface Merged {
  sum: number;
  count: number;
}

export function helmCells({ task, scores: rows, reported }: TaskRecords): { cells: AgentAsRecordedCell[]; notReproduced: string[] } {
  // (metric, filter) -> trial -> merged Stat; (filter) -> trial -> instance ids.
  const merged = new Map<string, Map<number, Merged>>();
  const instances = new Map<string, Map<number, Set<string>>>();
  for (const r of rows) {
    const trial = Number(TRIAL.exec(r.doc_id)?.[1] ?? 0);
    const stat = JSON.parse(r.value_json) as { sum: number; count: number };
    const key = `${r.metric.replace(FIELD, '')},${r.filter}`;
    const byTrial = merged.get(key) ?? new Map<number, Merged>();
    merged.set(key, byTrial);
    const m = byTrial.get(trial) ?? { sum: 0, count: 0 };
    m.sum += stat.sum;
    m.count += stat.count;
    byTrial.set(trial, m);
    const ids = instances.get(r.filter) ?? new Map<number, Set<string>>();
    instances.set(r.filter, ids);
    ids.set(trial, (ids.get(trial) ?? new Set()).add(r.doc_id.replace(TRIAL, '')));
  }
  const acrossTrials = (byTrial: Map<number, number>) => {
    const trials = [...byTrial.keys()].sort((x, y) => x - y);
    let sum = 0;
    for (const t of trials) sum += byTrial.get(t)!;
    return sum / trials.length;
  };
  const perturbed = rows.some((r) => r.filter.includes(','));
  const cells: AgentAsRecordedCell[] = [];
  const notReproduced: string[] = [];
  for (const [key, value] of Object.entries(reported)) {
    const [name, filter, perturbation] = key.split(',');
    if (name === 'num_instances' && perturbation === undefined && instances.has(filter!)) {
      cells.push(cell(task, key, value, acrossTrials(new Map([...instances.get(filter!)!].map(([t, ids]) => [t, ids.size])))));
      continue;
    }
    const plain = merged.get(`${name},${filter}`);
    if (plain === undefined) {
      notReproduced.push(name!);
      continue;
    }
    const reproduced = acrossTrials(new Map([...plain].map(([t, m]) => [t, m.sum / m.count])));
    if (perturbation === undefined) cells.push(cell(task, key, value, reproduced));
    else if (perturbation.endsWith(':worst') && !perturbed) cells.push(cell(task, `${key} (no perturbed instances: the plain value)`, value, reproduced));
    else notReproduced.push(`${name} (${perturbation})`);
  }
  const names = [...new Set(notReproduced)];
  return { cells, notReproduced: names.length === 0 ? [] : [`${names.join(', ')} (no per-instance values: computed over the whole run by the metric class)`] };
}
