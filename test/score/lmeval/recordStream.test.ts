/**
 * The as-recorded rescoring's streamed reading (storeRows.ts forEachRecord): two sorted DuckDB streams
 * merged row by row must hand over exactly what one query holding everything gives — every score of a
 * task in the samples file's order (line, then metric), each with its own document's requests and
 * repeats — on every real lm-eval output in the fixtures (several filters, multiple-choice documents of
 * four requests, repeats, scores of documents the store holds no request for).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadSource } from '../../../src/audit/source.ts';
import { forEachRecord, scoredTasks, type TaskRecord } from '../../../src/score/lmeval/storeRows.ts';
import { queryRows, sqlString } from '../../../src/util/duckdb.ts';
import { externalFixture } from '../../helpers/fixtures.ts';
import { slowOnly } from '../../helpers/slow.ts';

const { store } = await loadSource([externalFixture('lm-evaluation-harness/')], { skipBad: false, fields: {} });

for (const pieces of [undefined, 4] as const) {
  // The default piece holds most of these tasks' documents whole: cut into about four pieces, the same reading crosses
  // piece boundaries in every task of more than four lines, so the default is the slow cross-check. (A piece is a
  // DuckDB join and sort of its own: 40 lines a piece, as before, made 130 of them and took 13 of this file's 16 CPU s.)
  test(`every task of every run: the streamed records are the scores in (line, metric) order, each beside its own document (${pieces === undefined ? 'the default pieces' : `about ${pieces} pieces a task`} of the documents)`, { skip: pieces === undefined ? slowOnly : false }, async () => {
    let records = 0;
    let multiRequest = 0;
    for (const run of store.manifest.runs) {
      for (const task of await scoredTasks(store, run.run_id)) {
        const where = `run_id = ${sqlString(run.run_id)} AND task = ${sqlString(task)}`;
        // Everything at once, as a plain query would give it: the expectation.
        const expected = await queryRows<{ doc_id: string; filter: string; metric: string; value_json: string }>(
          `SELECT s.doc_id, s.filter, s.metric, s.value_json FROM ${store.table('scores')} s
           LEFT JOIN (SELECT doc_id, filter, min(line) AS line FROM ${store.table('filtered')} WHERE ${where} GROUP BY ALL) f ON f.doc_id = s.doc_id AND f.filter = s.filter
           WHERE s.${where.replace(' AND task', ' AND s.task')} ORDER BY f.line NULLS LAST, s.doc_id, s.filter, s.metric`,
        );
        const responses = await queryRows<{ doc_id: string; request_idx: number; repeat: number; text: string | null; logprob: number | null }>(
          `SELECT doc_id, request_idx, "repeat", text, logprob FROM ${store.table('responses')} WHERE ${where}`,
        );
        const responsesOf = new Map<string, typeof responses>();
        for (const x of responses) responsesOf.set(x.doc_id, [...(responsesOf.get(x.doc_id) ?? []), x]);
        const instances = new Set((await queryRows<{ doc_id: string }>(`SELECT DISTINCT doc_id FROM ${store.table('instances')} WHERE ${where}`)).map((r) => r.doc_id));
        const got: TaskRecord[] = [];
        const [{ lines }] = await queryRows<{ lines: number }>(`SELECT count(*)::INTEGER AS lines FROM ${store.table('filtered')} WHERE ${where}`);
        await forEachRecord(store, run.run_id, task, (r) => got.push(r), pieces === undefined ? {} : { linesAPiece: Math.max(1, Math.ceil(lines! / pieces)) });
        const flat = got.flatMap((r) => r.scores.map((s) => ({ doc_id: s.docId, filter: s.filter, metric: s.metric, value_json: s.valueJson })));
        assert.deepEqual(flat, expected, `${run.run_id} ${task}`);
        for (const r of got) {
          records++;
          const docId = r.scores[0]!.docId;
          assert.ok(r.scores.every((s) => s.docId === docId && s.filter === r.scores[0]!.filter));
          assert.equal(r.doc !== null, instances.has(docId), `${task} doc ${docId}: a document exactly where the store holds its requests`);
          if (r.doc === null) continue;
          assert.equal(r.doc.docId, docId);
          if (r.doc.requests.length > 1) multiRequest++;
          for (const x of responsesOf.get(docId) ?? []) {
            assert.equal(r.doc.requests[x.request_idx]!.texts[x.repeat], x.text);
            assert.equal(r.doc.requests[x.request_idx]!.logprobs[x.repeat], x.logprob);
          }
        }
      }
    }
    // The fixtures reach the merge's cases: many records, multiple-choice documents.
    assert.ok(records > 1000, `${records} records`);
    assert.ok(multiRequest > 0, 'a document of several requests');
  });
}
