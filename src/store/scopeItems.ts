/**
 * The items of one (run, task) scope as the audit reads them, whichever tables a store keeps them
 * in: a v2 store's instances carry their first response's text, an older or unfinished store's
 * (and a multi-run import's) are joined with their responses here, and nowhere else.
 */
import { sqlString } from '../util/duckdb.ts';
import type { OpenStore } from './readStore.ts';

export interface ItemScope {
  run_id: string;
  task: string;
}

/**
 * A query over the scope's items: request 0, first repeat; columns ord (the instance's position in
 * the store), doc_id, grp (its group, else the task), gold (the instance target), text (null: no
 * response) and choices_json.
 */
export function scopeItemsSql(store: OpenStore, scope: ItemScope): string {
  const inScope = `run_id = ${sqlString(scope.run_id)} AND task = ${sqlString(scope.task)}`;
  if (store.items !== undefined) {
    return `SELECT file_row_number AS ord, doc_id, coalesce("group", task) AS grp, target AS gold, text, choices_json
      FROM (${store.items}) WHERE ${inScope}`;
  }
  const where = `${inScope} AND request_idx = 0`;
  return `SELECT i.file_row_number AS ord, i.doc_id, coalesce(i."group", i.task) AS grp, i.target AS gold, r.text AS text, i.choices_json
    FROM (SELECT file_row_number, doc_id, "group", task, target, choices_json FROM ${store.table('instances', { rowNumber: true })} WHERE ${where}) i
    LEFT JOIN (SELECT doc_id, text FROM ${store.table('responses')} WHERE ${where} AND repeat = 0) r USING (doc_id)`;
}

/** Whether scopeItemsSql's golds come dictionary-encoded: only items read straight from one Parquet file (a join's output is flat). */
export async function scopeGoldsDictionaryEncoded(store: OpenStore): Promise<boolean> {
  return store.items !== undefined && ((await store.dictionaryEncoded?.('instances', 'target')) ?? false);
}
