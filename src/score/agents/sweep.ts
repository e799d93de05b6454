/** The denominator sweep of every agent run in a store (what `lmaudit rescore` prints for agent runs). */
import type { OpenStore } from '../../store/readStore.ts';
import { sweepAgentRun, type SweepResult } from './rules.ts';
import { readAgentTrials } from './storeTrials.ts';

export interface AgentSweep extends SweepResult {
  /** Notes the importer found in the records (traps), by kind. */
  notes: { kind: string; message: string }[];
  /** True when no trial was evaluated (predictions or settings only): the rules have nothing to divide. */
  evaluated: boolean;
}

export async function agentSweeps(store: OpenStore): Promise<AgentSweep[]> {
  const runs = await readAgentTrials(store);
  return runs.map((run) => {
    const prov = store.manifest.runs.find((r) => r.run_id === run.run_id)!;
    const evaluated = run.trials.some((t) => t.outcome !== 'not_evaluated' && t.outcome !== 'empty_patch' && t.outcome !== 'not_submitted');
    return { ...sweepAgentRun(run), notes: prov.notes.map((n) => ({ kind: n.kind, message: n.message })), evaluated };
  });
}
