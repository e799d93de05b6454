/** Reading an agent run's trials back from a store (the encoding is documented beside AGENT_REQUEST_TYPE in the schema). */
import type { OpenStore } from '../../store/readStore.ts';
import { queryRows, sqlString } from '../../util/duckdb.ts';
import { AGENT_SOURCE_KINDS, type AgentSourceKind, type RunProvenance, type TrialOutcome } from '../../store/schema.ts';
import type { AgentRunTrials, Trial } from './rules.ts';

export function isAgentRun(run: RunProvenance): run is RunProvenance & { source_kind: AgentSourceKind } {
  return (AGENT_SOURCE_KINDS as readonly string[]).includes(run.source_kind);
}

/** The split size an agent run recorded (or inferred), else null. */
export function splitSize(run: RunProvenance): number | null {
  const fact = run.agent?.split_size?.used;
  if (fact === undefined || fact.status === 'unknown') return null;
  return typeof fact.value === 'number' ? fact.value : null;
}

/** The agent's own exit status an importer kept with the instance (src/import/agents/miniSweAgent.ts), else null. */
function agentExit(docJson: string | null): Trial['agent_exit'] {
  if (docJson === null || !docJson.includes('"agent_exit_class"')) return null;
  const doc = JSON.parse(docJson) as { agent_exit_status?: string | null; agent_exit_class?: string };
  const cls = doc.agent_exit_class;
  return cls === 'submitted' || cls === 'limit' || cls === 'error' ? { status: doc.agent_exit_status ?? null, class: cls } : null;
}

/** One entry per (agent run, task) that has trials, in the store's order. */
export async function readAgentTrials(store: OpenStore, runIds?: readonly string[]): Promise<AgentRunTrials[]> {
  const runs = store.manifest.runs.filter(isAgentRun).filter((r) => runIds === undefined || runIds.includes(r.run_id));
  if (runs.length === 0) return [];
  const rows = await queryRows<{ run_id: string; task: string; doc_id: string; repeat: bigint | number; outcome: string; error: string | null; reward: number | null; doc_json: string | null }>(`
    SELECT r.run_id, r.task, r.doc_id, r."repeat" AS "repeat", r.finish_reason AS outcome, r.error, s.value AS reward, i.doc_json
    FROM ${store.table('responses')} r
    LEFT JOIN ${store.table('scores')} s
      ON s.run_id = r.run_id AND s.task = r.task AND s.doc_id = r.doc_id AND s.metric = 'reward'
     AND s.filter = 'attempt:' || CAST(r."repeat" AS VARCHAR)
    LEFT JOIN ${store.table('instances')} i
      ON i.run_id = r.run_id AND i.task = r.task AND i.doc_id = r.doc_id AND i.request_idx = 0
    WHERE r.run_id IN (${runs.map((r) => sqlString(r.run_id)).join(', ')})
    ORDER BY r.run_id, r.task, r.doc_id, r."repeat"`);
  const out: AgentRunTrials[] = [];
  for (const run of runs) {
    const own = rows.filter((r) => r.run_id === run.run_id);
    const tasks = [...new Set(own.map((r) => r.task))];
    for (const task of tasks) {
      out.push({
        run_id: run.run_id,
        source_kind: run.source_kind,
        task,
        split_size: splitSize(run),
        trials: own
          .filter((r) => r.task === task)
          .map((r) => ({ doc_id: r.doc_id, attempt: Number(r.repeat), outcome: r.outcome as TrialOutcome, reward: r.reward, error: r.error, agent_exit: agentExit(r.doc_json) })),
      });
    }
  }
  return out;
}
