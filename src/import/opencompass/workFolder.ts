/**
 * One OpenCompass work folder as runs (one per model) with one task per dataset.
 *
 * - instances: one row per prediction record, doc_id its position in the evaluated set (the key of the record, plus
 *   the lengths of the shards before it); arg_context is `origin_prompt` as sent (a chat message list as its JSON);
 *   doc_json the record without its prediction (origin_prompt, gold and any project field such as `context`);
 *   target `gold`. Perplexity records hold one request per label (request_idx in label order, its prompt as
 *   context, the label as continuation).
 * - responses: the prediction (each of a list of predictions is a repeat); for perplexity, one per label with the
 *   label's PPL in `logprob`'s place left empty (a perplexity is not a log-probability) and kept in scores.
 * - filtered: the results file's `details` entry per item (prompt, origin_prediction, predictions after the
 *   post-processor, references, correct), filter 'details'.
 * - scores: `correct` where the evaluator recorded it (filter 'details'), and each label's PPL (filter
 *   'ppl', metric `PPL <label>`).
 */
import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import { BadInputError } from '../../errors.ts';
import { readConfigDump } from '../../py/configDump.ts';
import { sha256Hex } from '../../util/hash.ts';
import { isPlainObject, parsePythonJson, toPythonJson } from '../../util/json.ts';
import { withFieldLine } from '../../util/jsonFieldLine.ts';
import type { ImportedRun, ItemTables, Row } from '../types.ts';
import { opencompassProvenance, type OpenCompassDataset, type SourceText } from './provenance.ts';

type Json = Record<string, unknown>;
export interface PlacedFile {
  path: string;
  work: string;
  role: 'predictions' | 'results' | 'summary' | 'config';
  model?: string;
}

const o = (v: unknown): Json | undefined => (isPlainObject(v) ? v : undefined);

async function readText(path: string, role: string): Promise<SourceText> {
  const bytes = await readFile(path);
  const text = bytes.toString('utf8');
  return { path, text, sha256: sha256Hex(bytes), role: `opencompass-${role}` };
}

/**
 * A summary CSV: `dataset,version,metric,mode,<model>…`, values with two decimals or '-' (OpenCompass's summarizer
 * writes nothing else). A row of fewer or more cells than the header (a file cut short), or a value that is
 * neither, is refused naming its line: read leniently, a cut row became a dataset of its first letters with a
 * metric called "undefined", and a value that was not a number vanished from what the run reported.
 */
export function readSummaryCsv(text: string, file: string): { dataset: string; version: string; metric: string; mode: string; values: Record<string, string> }[] {
  const lines = text.split(/\r?\n/).map((l, i) => ({ l, line: i + 1 })).filter(({ l }) => l.trim() !== '');
  const header = lines[0]?.l.split(',') ?? [];
  if (header.slice(0, 4).join(',') !== 'dataset,version,metric,mode') throw new BadInputError('not an OpenCompass summary table (header dataset,version,metric,mode)', { file, line: 1 });
  return lines.slice(1).map(({ l, line }) => {
    const cells = l.split(',');
    if (cells.length !== header.length) throw new BadInputError(`${cells.length} field(s) where the header has ${header.length}; the file may be truncated`, { file, line });
    const values = Object.fromEntries(header.slice(4).map((m, i) => [m, cells[4 + i]!]));
    for (const [model, cell] of Object.entries(values)) {
      if (cell !== '-' && !/^-?\d+(\.\d+)?$/.test(cell)) throw new BadInputError(`expected a number or '-', found ${JSON.stringify(cell)}`, { file, line, field: model });
    }
    return { dataset: cells[0]!, version: cells[1]!, metric: cells[2]!, mode: cells[3]!, values };
  });
}

/** Predictions files of one model grouped by dataset: `<abbr>.json`, or shards `<abbr>_0.json` … `_N.json` read in index order. */
function byDataset(files: PlacedFile[], resultsNames: Set<string>): Map<string, PlacedFile[]> {
  const out = new Map<string, { file: PlacedFile; shard: number }[]>();
  for (const f of files) {
    const name = basename(f.path).replace(/\.json$/, '');
    const shard = /^(.*)_(\d+)$/.exec(name);
    const sharded = shard !== null && !resultsNames.has(name) && (resultsNames.has(shard[1]!) || files.some((g) => basename(g.path).replace(/\.json$/, '') === `${shard[1]}_0`));
    const abbr = sharded ? shard![1]! : name;
    const list = out.get(abbr) ?? [];
    list.push({ file: f, shard: sharded ? Number(shard![2]) : -1 });
    out.set(abbr, list);
  }
  return new Map([...out].map(([abbr, list]) => [abbr, list.sort((a, b) => a.shard - b.shard).map((x) => x.file)]));
}

export async function importWorkFolder(work: string, files: PlacedFile[]): Promise<ImportedRun[]> {
  const configs = await Promise.all(files.filter((f) => f.role === 'config').map((f) => readText(f.path, 'config')));
  const summaries = await Promise.all(files.filter((f) => f.role === 'summary').map((f) => readText(f.path, 'summary')));
  const config = configs.length === 0 ? undefined : readConfigDump(configs[0]!.text, configs[0]!.path);
  const summaryRows = summaries.filter((s) => s.path.endsWith('.csv')).flatMap((s) => readSummaryCsv(s.text, s.path));
  const models = [...new Set([...files.filter((f) => f.model !== undefined).map((f) => f.model!), ...summaryRows.flatMap((r) => Object.keys(r.values))])].sort();
  const runs: ImportedRun[] = [];
  for (const model of models) {
    const own = files.filter((f) => f.model === model);
    const results = new Map<string, PlacedFile>(own.filter((f) => f.role === 'results').map((f) => [basename(f.path).replace(/\.json$/, ''), f]));
    const predictions = byDataset(own.filter((f) => f.role === 'predictions'), new Set(results.keys()));
    const abbrs = [...new Set([...predictions.keys(), ...results.keys(), ...summaryRows.filter((r) => model in r.values).map((r) => r.dataset)])].sort();
    const sources: SourceText[] = [...configs, ...summaries];
    const datasets: OpenCompassDataset[] = [];
    const tables = { instances: [] as Row[], responses: [] as Row[], scores: [] as Row[], filtered: [] as Row[] };
    for (const abbr of abbrs) {
      const shards = await Promise.all((predictions.get(abbr) ?? []).map((f) => readText(f.path, 'predictions')));
      const result = results.has(abbr) ? await readText(results.get(abbr)!.path, 'results') : undefined;
      sources.push(...shards, ...(result ? [result] : []));
      const resultJson = result === undefined ? undefined : o(parsePythonJson(result.text, { file: result.path }));
      if (result !== undefined && resultJson === undefined) throw new BadInputError('a results file that is not a JSON object', { file: result.path });
      datasets.push({ abbr, shards: shards.map((s) => s.path), result: resultJson, resultPath: result?.path, summary: summaryRows.filter((r) => r.dataset === abbr && model in r.values) });
      try {
        datasetTables(tables, abbr, shards, resultJson, result?.path);
      } catch (error) {
        // The texts are still held here: a refused field is named with its line in the file that holds it.
        const held = [...shards, ...(result ? [result] : [])].find((s) => error instanceof BadInputError && s.path === error.where.file);
        throw held === undefined ? error : withFieldLine(error, held.text, { file: held.path });
      }
    }
    const runId = `opencompass-${sha256Hex(`${model}\n${sources.map((s) => `${s.role}:${s.sha256}`).sort().join('\n')}`).slice(0, 16)}`;
    for (const t of Object.values(tables)) for (const r of t) r.run_id = runId;
    const provenance = opencompassProvenance({ work, model, config, configPath: configs[0]?.path, datasets, sources, instances: tables.instances, runId });
    runs.push({
      provenance,
      tables: { instances: { rows: tables.instances }, responses: { rows: tables.responses }, scores: { rows: tables.scores }, filtered: { rows: tables.filtered } },
      skipped: [],
    });
  }
  return runs;
}

function datasetTables(tables: ItemTables, task: string, shards: SourceText[], result: Json | undefined, resultPath: string | undefined): void {
  let offset = 0;
  for (const shard of shards) {
    const records = o(parsePythonJson(shard.text, { file: shard.path }));
    if (records === undefined) throw new BadInputError('a predictions file that is not a JSON object keyed by position', { file: shard.path });
    const keys = Object.keys(records);
    keys.forEach((key, i) => {
      const record = o(records[key]);
      if (String(i) !== key) throw new BadInputError(`predictions are keyed "0", "1", … in order; found ${JSON.stringify(key)} at position ${i}`, { file: shard.path, field: key });
      if (record === undefined) throw new BadInputError('a prediction that is not a JSON object', { file: shard.path, field: key });
      itemRows(tables, task, String(offset + i), record);
    });
    offset += keys.length;
  }
  const details = result?.details;
  // A list or a dict keyed by position, as OpenCompass writes it; another type was read as no details, silently.
  if (details !== undefined && details !== null && !Array.isArray(details) && o(details) === undefined) throw new BadInputError('details is neither a list nor an object of per-item entries', { file: resultPath, field: 'details' });
  const entries: [string, unknown][] = Array.isArray(details) ? details.map((d, i) => [String(i), d]) : Object.entries(o(details) ?? {});
  entries.forEach(([key, entry], i) => {
    const d = o(entry);
    if (d === undefined) throw new BadInputError('a details entry that is not an object', { file: resultPath, field: Array.isArray(details) ? `details[${key}]` : `details.${key}` });
    tables.filtered.push({ task, doc_id: key, filter: 'details', line: i + 1, filtered_json: toPythonJson(d), metrics_json: null });
    // Up to 0.3.x `correct` is one value; since 0.4 every per-item field is a list over the n repeats.
    const values = Array.isArray(d.correct) ? d.correct : [d.correct];
    if (values.length > 0 && values.every((v) => typeof v === 'boolean' || typeof v === 'number')) {
      tables.scores.push({ task, doc_id: key, filter: 'details', metric: 'correct', value: values.reduce((a: number, v) => a + Number(v), 0) / values.length, value_json: toPythonJson(d.correct) });
    }
  });
}

function itemRows(tables: { instances: Row[]; responses: Row[]; scores: Row[] }, task: string, docId: string, record: Json): void {
  const { prediction, ...doc } = record;
  const gold = record.gold;
  const target = gold === undefined ? null : typeof gold === 'string' ? gold : toPythonJson(gold);
  const labels = Object.keys(record).filter((k) => k.startsWith('label: '));
  const instance = (requestIdx: number, context: string | null, continuation: string | null, type: string, response: string | null) => ({
    task,
    doc_id: docId,
    group: null,
    request_idx: requestIdx,
    request_type: type,
    arg_context: context,
    arg_continuation: continuation,
    gen_kwargs_json: null,
    doc_json: toPythonJson(doc),
    doc_hash: sha256Hex(toPythonJson(doc)),
    prompt_hash: context === null ? null : sha256Hex(context),
    target,
    choices_json: labels.length > 0 ? JSON.stringify(labels.map((l) => l.slice('label: '.length))) : null,
    fewshot_doc_ids: null,
    response_text: response,
  });
  const response = (requestIdx: number, repeat: number, text: string | null) => ({
    task, doc_id: docId, request_idx: requestIdx, repeat, text, logprob: null, is_greedy: null, finish_reason: null,
    tokens_in: null, tokens_out: null, latency_ms: null, attempt: null, from_cache: null, error: null,
  });
  if (labels.length > 0) {
    labels.forEach((label, i) => {
      const entry = o(record[label]) ?? {};
      const text = typeof entry.prompt === 'string' ? entry.prompt : toPythonJson(entry.prompt ?? null);
      tables.instances.push(instance(i, text, label.slice('label: '.length), 'loglikelihood', i === 0 ? textOf(prediction) : null));
      tables.responses.push(response(i, 0, i === 0 ? textOf(prediction) : null));
      if (typeof entry.PPL === 'number') tables.scores.push({ task, doc_id: docId, filter: 'ppl', metric: `PPL ${label.slice('label: '.length)}`, value: entry.PPL, value_json: toPythonJson(entry.PPL) });
    });
    return;
  }
  const prompt = record.origin_prompt;
  const context = typeof prompt === 'string' ? prompt : prompt === undefined ? null : toPythonJson(prompt);
  const outputs = Array.isArray(prediction) ? prediction : [prediction];
  tables.instances.push(instance(0, context, null, 'generate_until', textOf(outputs[0])));
  outputs.forEach((p, repeat) => tables.responses.push(response(0, repeat, textOf(p))));
}

function textOf(v: unknown): string | null {
  return v === undefined || v === null ? null : typeof v === 'string' ? v : toPythonJson(v);
}
