/**
 * Reads one lm-eval run back from the store for as-recorded rescoring: documents with
 * their requests and responses, and the recorded per-sample values in samples-file
 * order (the order lm-eval aggregated and bootstrapped them in).
 */
import { forEachRow, sqlString } from '../../util/duckdb.ts';
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
  // Streamed: a run of 100,000 documents and a dozen metrics is over a million score rows.
  const docs = new Map<string, Map<string, DocRecord>>();
  await forEachRow<{ task: string; doc_id: string; request_idx: number; request_type: string; target: string | null; choices_json: string | null; doc_json: string | null; arg_continuation: string | null }>(
    `SELECT task, doc_id, request_idx, request_type, target, choices_json, doc_json, arg_continuation FROM ${store.table('instances')} WHERE run_id = ${run} ORDER BY task, doc_id, request_idx`,
    (i) => {
      let byDoc = docs.get(i.task);
      if (byDoc === undefined) docs.set(i.task, (byDoc = new Map()));
      let d = byDoc.get(i.doc_id);
      if (d === undefined) {
        d = { docId: i.doc_id, requestType: i.request_type, target: i.target, choices: parseJson(i.choices_json) as string[] | null, doc: parseDoc(i.doc_json), requests: [] };
        byDoc.set(i.doc_id, d);
      }
      d.requests[i.request_idx] = { continuation: i.arg_continuation, texts: [], logprobs: [], greedy: [] };
    },
  );
  await forEachRow<{ task: string; doc_id: string; request_idx: number; repeat: number; text: string | null; logprob: number | null; is_greedy: boolean | null }>(
    `SELECT task, doc_id, request_idx, "repeat", text, logprob, is_greedy FROM ${store.table('responses')} WHERE run_id = ${run} ORDER BY task, doc_id, request_idx, "repeat"`,
    (r) => {
      const req = docs.get(r.task)?.get(r.doc_id)?.requests[r.request_idx];
      if (req === undefined) return;
      req.texts[r.repeat] = r.text;
      req.logprobs[r.repeat] = r.logprob;
      req.greedy[r.repeat] = r.is_greedy;
    },
  );
  // Each record's line, metric list and filtered value, read once (not once per metric row).
  const records = new Map<string, { line: number | null; metricsList: string[] | null; filteredFirst: string | undefined }>();
  const recordKey = (task: string, docId: string, filter: string) => `${task}\u0000${docId}\u0000${filter}`;
  await forEachRow<{ task: string; doc_id: string; filter: string; line: number | null; metrics_json: string | null; filtered_json: string | null }>(
    `SELECT task, doc_id, filter, line, metrics_json, filtered_json FROM ${store.table('filtered')} WHERE run_id = ${run}`,
    (f) => {
      const key = recordKey(f.task, f.doc_id, f.filter);
      if (records.has(key)) return;
      const filtered = parseJson(f.filtered_json);
      const first = Array.isArray(filtered) ? filtered[0] : undefined;
      records.set(key, { line: f.line, metricsList: parseJson(f.metrics_json) as string[] | null, filteredFirst: typeof first === 'string' ? first : undefined });
    },
  );
  const none = { line: null, metricsList: null, filteredFirst: undefined };
  const scores: ScoreItem[] = [];
  await forEachRow<{ task: string; doc_id: string; filter: string; metric: string; value: number | null; value_json: string }>(
    `SELECT s.task, s.doc_id, s.filter, s.metric, s.value, s.value_json
     FROM ${store.table('scores')} s LEFT JOIN (SELECT run_id, task, doc_id, filter, min(line) AS line FROM ${store.table('filtered')} GROUP BY ALL) f
       ON f.run_id = s.run_id AND f.task = s.task AND f.doc_id = s.doc_id AND f.filter = s.filter
     WHERE s.run_id = ${run} ORDER BY s.task, f.line, s.metric`,
    (s) =>
      scores.push({
        task: s.task,
        docId: s.doc_id,
        filter: s.filter,
        metric: s.metric,
        value: s.value,
        valueJson: s.value_json,
        ...(records.get(recordKey(s.task, s.doc_id, s.filter)) ?? none),
      }),
  );
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
