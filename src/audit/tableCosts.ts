/**
 * What each axis of the audit table cost in model calls: its rows are runs that sent requests of their own (whether
 * each reached the model or was answered from a response already held, where the store records it); its columns and
 * its aggregation were computed from the stored answers, or are the numbers the source reported.
 */
import { queryRows } from '../util/duckdb.ts';
import type { OpenStore } from '../store/readStore.ts';
import type { Aggregation } from '../score/sweeps.ts';

/** One axis of the table: whether it sent requests to a model, and how its values came about. */
export interface TableCost {
  axis: string;
  model_calls: boolean;
  detail: string;
}

export interface Calls {
  responses: number;
  shared: number;
  unrecorded: number;
}

/** What a row brings to the cost line: the settings its label names and its responses. */
interface CostedRow {
  parts: readonly { field: string }[];
  calls: Calls;
}

/** Per run and task: a table is one task's, and a run's other tasks sent requests of their own. */
export async function responseCounts(store: OpenStore): Promise<Map<string, Calls>> {
  const rows = await queryRows<{ run_id: string; task: string; responses: number; shared: number; unrecorded: number }>(
    `SELECT run_id, task, count(*)::INTEGER AS responses, (count(*) FILTER (WHERE from_cache))::INTEGER AS shared,
            (count(*) FILTER (WHERE from_cache IS NULL))::INTEGER AS unrecorded
     FROM ${store.table('responses')} GROUP BY run_id, task`,
  );
  return new Map(rows.map((r) => [`${r.run_id}\u0000${r.task}`, { responses: r.responses, shared: r.shared, unrecorded: r.unrecorded }]));
}

/**
 * Which responses reached the model. Only a store lmaudit ran records it (from_cache); an imported source's responses
 * (lm-eval, write_out, Inspect…) do not say whether the harness answered them from its own cache.
 */
function callsSplit(responses: number, shared: number, unrecorded: number): string {
  if (unrecorded === responses) return 'whether each was sent to the model or answered from a cache is not recorded';
  const known = `${responses - shared - unrecorded} sent to the model, ${shared} answered from a response already held`;
  return unrecorded === 0 ? known : `${known}, ${unrecorded} not recorded either way`;
}

export function costsOf(rows: readonly CostedRow[], columns: readonly { source: 'rescored' | 'recorded' | 'reported' }[], aggregation: Aggregation): TableCost[] {
  const fields = [...new Set(rows.flatMap((r) => r.parts.map((p) => p.field)))];
  const responses = rows.reduce((n, r) => n + r.calls.responses, 0);
  const shared = rows.reduce((n, r) => n + r.calls.shared, 0);
  const unrecorded = rows.reduce((n, r) => n + r.calls.unrecorded, 0);
  const costs: TableCost[] = [];
  if (fields.length > 0) {
    costs.push({
      axis: `configuration (rows: ${fields.join(', ')})`,
      model_calls: true,
      detail:
        responses === 0
          ? 'each row is a run with its own requests (the source recorded no responses, only its numbers)'
          : `each row is a run with its own requests: ${responses} responses recorded, ${callsSplit(responses, shared, unrecorded)}`,
    });
  }
  const kinds = [
    ...(columns.some((c) => c.source === 'rescored') ? ['extractor × normaliser'] : []),
    ...(columns.some((c) => c.source === 'recorded') ? ['the per-item metrics the source recorded'] : []),
  ];
  if (kinds.length > 0) costs.push({ axis: `reading rule (columns: ${kinds.join('; ')})`, model_calls: false, detail: 'computed from the stored answers; no model call' });
  // Columns of reported numbers were aggregated by the source; nothing here computed them from answers.
  const computed = columns.some((c) => c.source !== 'reported');
  costs.push({ axis: `aggregation (${aggregation})`, model_calls: false, detail: computed ? 'computed from the stored answers; no model call' : 'as the source aggregated (its reported numbers); no model call' });
  return costs;
}
