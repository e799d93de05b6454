/**
 * Reads one lm-eval run back from the store for as-recorded rescoring: documents with
 * their requests and responses, and the recorded per-sample values in samples-file
 * order (the order lm-eval aggregated and bootstrapped them in).
 */
import { queryRows, sqlString } from '../../store/duck.ts';
import type { OpenStore } from '../../store/readStore.ts';
import { isPlainObject } from '../../util/json.ts';
import type { DocRecord } from './perItem.ts';

export interface ScoreItem {
  task: string;
  docId: string;
  filter: string;
  metric: string;
  value: number | null;
  valueJson: string;
  line: number | null;
  metricsList: string[] | null;
  /** The recorded filtered value of the first request, when it is one string (generation tasks). */
  filteredFirst: string | undefined;
}

export async function loadDocs(store: OpenStore, runId: string): Promise<{ docs: Map<string, Map<string, DocRecord>>; scores: ScoreItem[] }> {
  const run = sqlString(runId);
  const instances = await queryRows<{ task: string; doc_id: string; request_idx: number; request_type: string; target: string | null; choices_json: string | null; doc_json: string | null }>(
    `SELECT task, doc_id, request_idx, request_type, target, choices_json, doc_json FROM ${store.table('instances')} WHERE run_id = ${run} ORDER BY task, doc_id, request_idx`,
  );
  const responses = await queryRows<{ task: string; doc_id: string; request_idx: number; repeat: number; text: string | null; logprob: number | null; is_greedy: boolean | null }>(
    `SELECT task, doc_id, request_idx, "repeat", text, logprob, is_greedy FROM ${store.table('responses')} WHERE run_id = ${run} ORDER BY task, doc_id, request_idx, "repeat"`,
  );
  const docs = new Map<string, Map<string, DocRecord>>();
  for (const i of instances) {
    if (!docs.has(i.task)) docs.set(i.task, new Map());
    const byDoc = docs.get(i.task)!;
    let d = byDoc.get(i.doc_id);
    if (d === undefined) {
      d = { docId: i.doc_id, requestType: i.request_type, target: i.target, choices: parseJson(i.choices_json) as string[] | null, doc: parseDoc(i.doc_json), requests: [] };
      byDoc.set(i.doc_id, d);
    }
    d.requests[i.request_idx] = { texts: [], logprobs: [], greedy: [] };
  }
  for (const r of responses) {
    const req = docs.get(r.task)?.get(r.doc_id)?.requests[r.request_idx];
    if (req === undefined) continue;
    req.texts[r.repeat] = r.text;
    req.logprobs[r.repeat] = r.logprob;
    req.greedy[r.repeat] = r.is_greedy;
  }
  const scoreRows = await queryRows<{ task: string; doc_id: string; filter: string; metric: string; value: number | null; value_json: string; line: number | null; metrics_json: string | null; filtered_json: string | null }>(
    `SELECT s.task, s.doc_id, s.filter, s.metric, s.value, s.value_json, f.line, f.metrics_json, f.filtered_json
     FROM ${store.table('scores')} s LEFT JOIN ${store.table('filtered')} f
       ON f.run_id = s.run_id AND f.task = s.task AND f.doc_id = s.doc_id AND f.filter = s.filter
     WHERE s.run_id = ${run} ORDER BY s.task, f.line, s.metric`,
  );
  const scores = scoreRows.map((s) => {
    const filtered = parseJson(s.filtered_json);
    const first = Array.isArray(filtered) ? filtered[0] : undefined;
    return {
      task: s.task,
      docId: s.doc_id,
      filter: s.filter,
      metric: s.metric,
      value: s.value,
      valueJson: s.value_json,
      line: s.line,
      metricsList: parseJson(s.metrics_json) as string[] | null,
      filteredFirst: typeof first === 'string' ? first : undefined,
    };
  });
  return { docs, scores };
}

function parseJson(text: string | null): unknown {
  if (text === null) return null;
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

function parseDoc(text: string | null): Record<string, unknown> | null {
  const v = parseJson(text);
  return isPlainObject(v) ? v : null;
}
