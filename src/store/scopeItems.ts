/**
 * The items of one (run, task) scope as the audit reads them, whichever tables a store keeps them
 * in: a v2 store's instances carry their first response's text, an older or unfinished store's
 * (and a multi-run import's) are joined with their responses here, and nowhere else.
 */
import { BadInputError } from '../errors.ts';
import { sqlString } from '../util/duckdb.ts';
import type { OpenStore } from './readStore.ts';

export interface ItemScope {
  run_id: string;
  task: string;
  /**
   * Where the gold comes from instead of the recorded target: a field of the stored document
   * (`rescore --gold-field doc.answer`), as a JSON path ('$.answer'). See documentGoldSql.
   */
  goldPath?: string;
}

/** `doc.answer`, `answer` or `doc.answer.text` → a JSON path; a name that is not a plain field path is refused. */
export function documentGoldPath(field: string): string {
  const rest = field.startsWith('doc.') ? field.slice(4) : field;
  if (!/^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$/.test(rest)) {
    throw new BadInputError(`'${field}' is not a field path of the stored document (e.g. doc.answer, doc.answer.text)`, { field: '--gold-field' });
  }
  return `$.${rest}`;
}

/**
 * The gold read from a field of the stored document: a string as it is; an integer that indexes the
 * item's choices (the recorded choice list, else the document's `choices`) as the letter of that choice
 * (index 2 → 'C', the multiple-choice convention: such a gold is a letter gold); any other value as its
 * JSON text (a list of acceptable answers, SQuAD's answers dict). Null where the document lacks the field.
 */
export function documentGoldSql(path: string, doc: string, choices: string): string {
  const p = sqlString(path);
  const index = `json_extract(${doc}, ${p})::BIGINT`;
  const count = `coalesce(json_array_length(${choices}), json_array_length(${doc}, '$.choices'))`;
  return `CASE json_type(${doc}, ${p})
      WHEN 'VARCHAR' THEN json_extract_string(${doc}, ${p})
      WHEN 'NULL' THEN NULL
      WHEN 'UBIGINT' THEN CASE WHEN ${index} < 26 AND ${index} < ${count} THEN chr(65 + ${index}::INT) ELSE json_extract(${doc}, ${p})::VARCHAR END
      WHEN 'BIGINT' THEN CASE WHEN ${index} >= 0 AND ${index} < 26 AND ${index} < ${count} THEN chr(65 + ${index}::INT) ELSE json_extract(${doc}, ${p})::VARCHAR END
      ELSE json_extract(${doc}, ${p})::VARCHAR END`;
}

/**
 * A query over the scope's items: request 0, first repeat; columns ord (the instance's position in
 * the store), doc_id, grp (its group, else the task), gold (the instance target), text (null: no
 * response) and choices_json.
 */
export function scopeItemsSql(store: OpenStore, scope: ItemScope): string {
  const inScope = `run_id = ${sqlString(scope.run_id)} AND task = ${sqlString(scope.task)}`;
  if (scope.goldPath !== undefined) {
    const where = `${inScope} AND request_idx = 0`;
    return `SELECT i.file_row_number AS ord, i.doc_id, coalesce(i."group", i.task) AS grp, ${documentGoldSql(scope.goldPath, 'i.doc_json', 'i.choices_json')} AS gold, r.text AS text, i.choices_json
    FROM (SELECT file_row_number, doc_id, "group", task, doc_json, choices_json FROM ${store.table('instances', { rowNumber: true })} WHERE ${where}) i
    LEFT JOIN (SELECT doc_id, text FROM ${store.table('responses')} WHERE ${where} AND repeat = 0) r USING (doc_id)`;
  }
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
