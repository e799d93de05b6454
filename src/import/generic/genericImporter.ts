/**
 * Generic answer records: one record per answer with an id, the raw output and
 * the gold answer, optionally a group. JSONL (or a JSON array), CSV and Parquet.
 *
 * Bulk path: DuckDB reads the file and builds the store tables in SQL, so a
 * million records import without passing through JS. When DuckDB rejects the
 * file, or a record lacks a field or has a non-string value, the JS path re-reads
 * it line by line to name the exact file, line and field (or, with --skip-bad,
 * to count what it skips).
 */
import { basename, extname } from 'node:path';
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { BadInputError } from '../../errors.ts';
import { queryRows, sqlIdent, sqlString } from '../../store/duck.ts';
import { emptyRunProvenance, emptyTaskProvenance, inferred, recorded, same } from '../../store/schema.ts';
import type { FieldMap, FileProbe, ImportOptions, ImportedRun, Importer } from '../types.ts';
import { readGenericRecordsJs } from './genericJs.ts';

export const FIELD_CANDIDATES = {
  id: ['id', 'doc_id', 'sample_id', 'question_id', 'idx', 'uid'],
  output: ['output', 'raw_output', 'response', 'completion', 'prediction', 'model_output'],
  gold: ['gold', 'target', 'answer', 'label', 'reference'],
  group: ['group', 'subject', 'subtask', 'category'],
} as const;

export type ResolvedFields = { id: string | null; output: string; gold: string; group: string | null };

type Format = 'jsonl' | 'json' | 'csv' | 'parquet';
const FORMATS: Record<string, Format> = { '.jsonl': 'jsonl', '.ndjson': 'jsonl', '.json': 'json', '.csv': 'csv', '.parquet': 'parquet' };

function firstJsonKeys(head: string): string[] | null {
  const text = head.trimStart().replace(/^\[\s*/, '');
  const end = text.indexOf('\n');
  try {
    const value = JSON.parse(end === -1 ? text : text.slice(0, end));
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? Object.keys(value) : null;
  } catch {
    return null;
  }
}

export const genericImporter: Importer = {
  name: 'generic',
  claims(probe: FileProbe): boolean {
    const format = FORMATS[extname(probe.name).toLowerCase()];
    if (format === undefined) return false;
    if (format === 'parquet' || format === 'csv') return probe.explicit;
    const keys = firstJsonKeys(probe.head);
    if (keys === null) return probe.explicit && format === 'jsonl';
    const has = (names: readonly string[]) => names.some((n) => keys.includes(n));
    return probe.explicit || (has(FIELD_CANDIDATES.output) && has(FIELD_CANDIDATES.gold));
  },
  async importFiles(files, options) {
    const runs: ImportedRun[] = [];
    for (const file of files) runs.push(await importOne(file, options));
    return runs;
  },
};

async function importOne(probe: FileProbe, options: ImportOptions): Promise<ImportedRun> {
  const format = FORMATS[extname(probe.name).toLowerCase()]!;
  const columns = await sourceColumns(probe, format);
  const fields = resolveFields(columns, options.fields, probe.path);
  const task = basename(probe.name, extname(probe.name));
  const sha = createHash('sha256').update(await readFile(probe.path)).digest('hex');
  const runId = `generic-${sha.slice(0, 16)}`;
  const provenance = emptyRunProvenance({ run_id: runId, label: probe.name, source_kind: 'generic', source_format: format });
  provenance.harness.name = same(recorded('unknown harness (generic records)'));
  provenance.records.files = same(recorded([{ path: probe.path, sha256: sha, role: 'records' }]));
  const taskBlock = emptyTaskProvenance();
  taskBlock.task.name = same(inferred(task, 'file name without extension'));
  taskBlock.scoring.output_type = same(inferred('generate_until', 'records hold generated text'));
  taskBlock.samples.document_count = same(inferred(null, 'counted at load time'));
  provenance.tasks[task] = taskBlock;

  const bulk = format === 'csv' || format === 'parquet' || !options.skipBad ? await bulkSql(probe.path, format, fields) : null;
  if (bulk !== null) {
    const bad = await firstBadRow(bulk.source, fields);
    if (bad === null) {
      return { provenance, tables: tablesFromSql(runId, task, bulk.source, fields), skipped: [] };
    }
    if (format === 'csv' || format === 'parquet') {
      throw new BadInputError(`${bad.field} is missing or empty`, {
        file: probe.path,
        line: format === 'csv' ? bad.row + 1 : bad.row,
        field: bad.field,
      });
    }
  }
  // JS path: precise errors, or skip-and-count.
  const { rows, skipped } = await readGenericRecordsJs(probe.path, format === 'json' ? 'json' : 'jsonl', fields, options);
  return {
    provenance,
    tables: {
      instances: {
        rows: rows.map((r) => ({
          run_id: runId,
          task,
          doc_id: r.id,
          group: r.group,
          request_idx: 0,
          request_type: 'generate_until',
          arg_context: null,
          arg_continuation: null,
          gen_kwargs_json: null,
          doc_json: null,
          doc_hash: createHash('sha256').update(`${task}\u001f${r.id}`).digest('hex'),
          prompt_hash: null,
          target: r.gold,
          choices_json: null,
          fewshot_doc_ids: null,
        })),
      },
      responses: {
        rows: rows.map((r) => ({
          run_id: runId,
          task,
          doc_id: r.id,
          request_idx: 0,
          repeat: 0,
          text: r.output,
          logprob: null,
          is_greedy: null,
          finish_reason: null,
          tokens_in: null,
          tokens_out: null,
          latency_ms: null,
          attempt: null,
          from_cache: null,
          error: null,
        })),
      },
    },
    skipped,
  };
}

async function sourceColumns(probe: FileProbe, format: Format): Promise<string[]> {
  if (format === 'jsonl' || format === 'json') {
    const keys = firstJsonKeys(probe.head);
    if (keys === null) throw new BadInputError('the first record is not a JSON object', { file: probe.path, line: 1 });
    return keys;
  }
  const reader = format === 'csv' ? `read_csv(${sqlString(probe.path)}, header = true, all_varchar = true)` : `read_parquet(${sqlString(probe.path)})`;
  try {
    return (await queryRows<{ column_name: string }>(`DESCRIBE SELECT * FROM ${reader}`)).map((r) => r.column_name);
  } catch (error) {
    throw new BadInputError(`cannot read as ${format} (${(error as Error).message.split('\n')[0]})`, { file: probe.path });
  }
}

export function resolveFields(columns: readonly string[], flags: FieldMap, file: string): ResolvedFields {
  const pick = (role: keyof typeof FIELD_CANDIDATES, required: boolean): string | null => {
    const flagged = flags[role];
    if (flagged !== undefined) {
      if (!columns.includes(flagged)) {
        throw new BadInputError(`--${role}-field '${flagged}' is not a field of the records (fields: ${columns.join(', ')})`, { file, field: flagged });
      }
      return flagged;
    }
    const found = FIELD_CANDIDATES[role].find((c) => columns.includes(c)) ?? null;
    if (found === null && required) {
      throw new BadInputError(
        `no ${role} field: none of ${FIELD_CANDIDATES[role].join(', ')} is present (fields: ${columns.join(', ')}); name it with --${role}-field`,
        { file, line: 1, field: role },
      );
    }
    return found;
  };
  return { id: pick('id', false), output: pick('output', true)!, gold: pick('gold', true)!, group: pick('group', false) };
}

/** A SQL relation with columns _row, id, output, gold, grp (all VARCHAR but _row), or null when DuckDB cannot read it. */
async function bulkSql(path: string, format: Format, fields: ResolvedFields): Promise<{ source: string } | null> {
  const wanted = [fields.id, fields.output, fields.gold, fields.group].filter((f): f is string => f !== null);
  let reader: string;
  if (format === 'csv') reader = `read_csv(${sqlString(path)}, header = true, all_varchar = true)`;
  else if (format === 'parquet') reader = `read_parquet(${sqlString(path)})`;
  else {
    const struct = wanted.map((f) => `${sqlString(f)}: 'JSON'`).join(', ');
    reader = `read_json(${sqlString(path)}, format = ${format === 'jsonl' ? "'newline_delimited'" : "'auto'"}, columns = {${struct}}, maximum_object_size = 1073741824)`;
  }
  const text = (field: string | null) => {
    if (field === null) return 'NULL';
    if (format === 'jsonl' || format === 'json') {
      // Only JSON strings take the bulk path; any other type sends the file to the JS path for a precise error.
      return `CASE WHEN json_type(${sqlIdent(field)}) = 'VARCHAR' THEN json_extract_string(${sqlIdent(field)}, '$') END`;
    }
    return `CAST(${sqlIdent(field)} AS VARCHAR)`;
  };
  const idText = fields.id === null ? 'CAST(_row AS VARCHAR)' : format === 'jsonl' || format === 'json'
    ? `CASE WHEN json_type(${sqlIdent(fields.id)}) IN ('VARCHAR') THEN json_extract_string(${sqlIdent(fields.id)}, '$') WHEN json_type(${sqlIdent(fields.id)}) IN ('UBIGINT','BIGINT') THEN CAST(${sqlIdent(fields.id)} AS VARCHAR) END`
    : `CAST(${sqlIdent(fields.id)} AS VARCHAR)`;
  const source = `(SELECT _row, ${idText} AS id, ${text(fields.output)} AS output, ${text(fields.gold)} AS gold, ${text(fields.group)} AS grp
    FROM (SELECT *, row_number() OVER () AS _row FROM ${reader}))`;
  try {
    await queryRows(`SELECT count(*) AS n FROM ${source}`);
    return { source };
  } catch {
    return null;
  }
}

async function firstBadRow(source: string, fields: ResolvedFields): Promise<{ row: number; field: string } | null> {
  const rows = await queryRows<{ _row: number; id: string | null; output: string | null; gold: string | null }>(
    `SELECT _row, id, output, gold FROM ${source} WHERE id IS NULL OR output IS NULL OR gold IS NULL ORDER BY _row LIMIT 1`,
  );
  const bad = rows[0];
  if (bad === undefined) return null;
  const field = bad.output === null ? fields.output : bad.gold === null ? fields.gold : (fields.id ?? 'id');
  return { row: Number(bad._row), field };
}

function tablesFromSql(runId: string, task: string, source: string, _fields: ResolvedFields): ImportedRun['tables'] {
  const run = sqlString(runId);
  const t = sqlString(task);
  return {
    instances: {
      sql: `SELECT ${run} AS run_id, ${t} AS task, id AS doc_id, grp AS "group", 0 AS request_idx, 'generate_until' AS request_type,
        NULL AS arg_context, NULL AS arg_continuation, NULL AS gen_kwargs_json, NULL AS doc_json,
        sha256(${t} || chr(31) || id) AS doc_hash, NULL AS prompt_hash, gold AS target, NULL AS choices_json, NULL AS fewshot_doc_ids
        FROM ${source} ORDER BY _row`,
    },
    responses: {
      sql: `SELECT ${run} AS run_id, ${t} AS task, id AS doc_id, 0 AS request_idx, 0 AS repeat, output AS text,
        NULL AS logprob, NULL AS is_greedy, NULL AS finish_reason, NULL AS tokens_in, NULL AS tokens_out, NULL AS latency_ms,
        NULL AS attempt, NULL AS from_cache, NULL AS error FROM ${source} ORDER BY _row`,
    },
  };
}
