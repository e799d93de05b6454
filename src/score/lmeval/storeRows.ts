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
  await forEachRow<{ task: string; doc_id: string; request_idx: number; request_type: string; target: string | null; choices_json: string | null; doc_json: string | null }>(
    `SELECT task, doc_id, request_idx, request_type, target, choices_json, doc_json FROM ${store.table('instances')} WHERE run_id = ${run} ORDER BY task, doc_id, request_idx`,
    (i) => {
      let byDoc = docs.get(i.task);
      if (byDoc === undefined) docs.set(i.task, (byDoc = new Map()));
      let d = byDoc.get(i.doc_id);
      if (d === undefined) {
        d = { docId: i.doc_id, requestType: i.request_type, target: i.target, choices: parseJson(i.choices_json) as string[] | null, doc: parseDoc(i.doc_json), requests: [] };
        byDoc.set(i.doc_id, d);
      }
      d.requests[i.request_idx] = { texts: [], logprobs: [], greedy: [] };
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

/** One record of a task as `forEachRecord` streams it: a document under one filter, with its scores and its document. */
export interface TaskRecord {
  /** The document with its requests and responses; null when the store holds no request for it. */
  doc: DocRecord | null;
  /** Its scores under this filter, by metric name, each a ScoreItem as loadDocs makes them. */
  scores: ScoreItem[];
}

/**
 * A task's records of one run in the order lm-eval aggregated them (the samples file's line, then
 * the metric), streamed from DuckDB: one row a (document, filter), its document and scores joined
 * there, so that only the row in hand lives in JavaScript. DuckDB sorts within its memory limit and
 * spills beyond it, which is what keeps a store of any size under a bounded peak (loadDocs held the
 * whole run's documents and 1.2 million score objects: 1.3 GiB for 100,000 documents).
 */
export async function forEachRecord(store: OpenStore, runId: string, task: string, each: (record: TaskRecord) => void): Promise<void> {
  const where = `run_id = ${sqlString(runId)} AND task = ${sqlString(task)}`;
  const sql = `
    WITH rec AS (
      SELECT doc_id, filter, min(line) AS line, first(metrics_json ORDER BY line NULLS LAST) AS metrics_json, first(filtered_json ORDER BY line NULLS LAST) AS filtered_json
      FROM ${store.table('filtered')} WHERE ${where} GROUP BY doc_id, filter
    ), sc AS (
      SELECT doc_id, filter, list({'metric': metric, 'value': value, 'value_json': value_json} ORDER BY metric) AS scores
      FROM ${store.table('scores')} WHERE ${where} GROUP BY doc_id, filter
    ), resp AS (
      SELECT doc_id, request_idx, list({'r': "repeat", 'text': text, 'logprob': logprob, 'is_greedy': is_greedy}) AS repeats
      FROM ${store.table('responses')} WHERE ${where} GROUP BY doc_id, request_idx
    ), req AS (
      SELECT i.doc_id, min(i.request_idx) AS first_idx, list({'idx': i.request_idx, 'repeats': resp.repeats}) AS requests
      FROM ${store.table('instances')} i LEFT JOIN resp ON resp.doc_id = i.doc_id AND resp.request_idx = i.request_idx
      WHERE i.${where.replace(' AND task', ' AND i.task')} GROUP BY i.doc_id
    ), doc AS (
      SELECT req.doc_id, i.request_type, i.target, i.choices_json, i.doc_json, req.requests
      FROM req JOIN ${store.table('instances')} i ON i.doc_id = req.doc_id AND i.request_idx = req.first_idx
      WHERE i.${where.replace(' AND task', ' AND i.task')}
    )
    SELECT sc.doc_id, sc.filter, rec.metrics_json, rec.filtered_json, sc.scores,
      doc.doc_id IS NOT NULL AS has_doc, doc.request_type, doc.target, doc.choices_json, doc.doc_json, doc.requests
    FROM sc LEFT JOIN rec ON rec.doc_id = sc.doc_id AND rec.filter = sc.filter LEFT JOIN doc ON doc.doc_id = sc.doc_id
    ORDER BY rec.line NULLS LAST, sc.doc_id, sc.filter`;
  type Repeat = { r: number; text: string | null; logprob: number | null; is_greedy: boolean | null };
  await forEachRow<{
    doc_id: string; filter: string; metrics_json: string | null; filtered_json: string | null;
    scores: { metric: string; value: number | null; value_json: string }[];
    has_doc: boolean; request_type: string; target: string | null; choices_json: string | null; doc_json: string | null;
    requests: { idx: number; repeats: Repeat[] | null }[] | null;
  }>(sql, (row) => {
    let doc: DocRecord | null = null;
    if (row.has_doc) {
      doc = { docId: row.doc_id, requestType: row.request_type, target: row.target, choices: parseJson(row.choices_json) as string[] | null, doc: parseDoc(row.doc_json), requests: [] };
      for (const { idx, repeats } of row.requests ?? []) {
        const req: DocRecord['requests'][number] = { texts: [], logprobs: [], greedy: [] };
        for (const r of repeats ?? []) {
          req.texts[r.r] = r.text;
          req.logprobs[r.r] = r.logprob;
          req.greedy[r.r] = r.is_greedy;
        }
        doc.requests[Number(idx)] = req;
      }
    }
    const filtered = parseJson(row.filtered_json);
    const first = Array.isArray(filtered) ? filtered[0] : undefined;
    const metricsList = parseJson(row.metrics_json) as string[] | null;
    const filteredFirst = typeof first === 'string' ? first : undefined;
    const scores = row.scores.map((s) => ({ task, docId: row.doc_id, filter: row.filter, metric: s.metric, value: s.value, valueJson: s.value_json, line: null, metricsList, filteredFirst }));
    each({ doc, scores });
  });
}

/** The tasks of one run that have scores, in name order. */
export async function scoredTasks(store: OpenStore, runId: string): Promise<string[]> {
  const tasks: string[] = [];
  await forEachRow<{ task: string }>(`SELECT DISTINCT task FROM ${store.table('scores')} WHERE run_id = ${sqlString(runId)} ORDER BY task`, (r) => tasks.push(r.task));
  return tasks;
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
