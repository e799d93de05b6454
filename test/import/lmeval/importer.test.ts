import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, readdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { importSources } from '../../../src/import/index.ts';
import { openStore } from '../../../src/store/readStore.ts';
import { queryRows, scratchFolder } from '../../../src/util/duckdb.ts';
import { PIECE_BYTES } from '../../../src/import/lmeval/samplesFile.ts';
import { stageTable } from '../../../src/store/tableStaging.ts';
import { TABLES } from '../../../src/store/schema.ts';
import { BadInputError } from '../../../src/errors.ts';
import type { ImportedRun } from '../../../src/import/types.ts';
import { externalFixture } from '../../helpers/fixtures.ts';
import { runCli } from '../../helpers/cli.ts';
import { slowOnly } from '../../helpers/slow.ts';

const EXTERNAL = externalFixture();
const LMEVAL = join(EXTERNAL, 'lm-evaluation-harness');
const PYTHIA = join(EXTERNAL, 'pythia');
const opts = { skipBad: false, fields: {} };
// Walking the folders also finds the adapter run under '..__prompt-pursuit…' (a relative model path, sanitised).
const ALL = [LMEVAL, PYTHIA];
/** The import of ALL, made once: the first test checks it against the sources, the CLI's test its store against it. */
let importedAll: ReturnType<typeof importSources> | undefined;
const importAll = () => (importedAll ??= importSources(ALL, opts));

async function walk(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const e of await readdir(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...(await walk(p)));
    else out.push(p);
  }
  return out.sort();
}

/** JSON.parse after turning Python's bare NaN/Infinity values into null (enough for counting). */
function parseLoose(text: string): unknown {
  return JSON.parse(text.replace(/(?<=[:[,]\s*)(-?Infinity|NaN)(?=\s*[,}\]])/g, 'null'));
}

/** Counts read independently of the importer: records, requests, repeats, metric values. */
async function sourceCounts(file: string): Promise<{ lines: number; requests: number; responses: number; metrics: number }> {
  const text = await readFile(file, 'utf8');
  const records = (text.trimStart().startsWith('[')
    ? (parseLoose(text) as Record<string, unknown>[])
    : text.split('\n').filter((l) => l.trim() !== '').map((l) => parseLoose(l) as Record<string, unknown>));
  let requests = 0;
  let responses = 0;
  let metrics = 0;
  const seen = new Set<unknown>();
  const FORMAT = ['doc_id', 'doc', 'target', 'arguments', 'resps', 'filtered_resps', 'filter', 'metrics', 'doc_hash', 'prompt_hash', 'target_hash', 'truth', 'pred', 'ctx', 'fewshot_idx',
    'prompt_name', 'prompt_id', 'prompt_jinja', 'prompt_original_task', 'comment', 'fixed_answer_choice_list', 'dataset_path', 'dataset_name', 'subset'];
  for (const r of records) {
    metrics += Object.keys(r).filter((k) => !FORMAT.includes(k) && !/^(prompt|logit)_\d+$/.test(k)).length;
    const key = `${String(r.prompt_name ?? '')}/${String(r.doc_id)}`;
    if (seen.has(key)) continue;
    seen.add(key);
    if (Array.isArray(r.resps)) {
      const args = r.arguments;
      const nArgs = Array.isArray(args) ? (args.every(Array.isArray) ? args.length : 1) : Object.keys(args as object).length;
      requests += Math.max(r.resps.length, nArgs);
      responses += (r.resps as unknown[][]).reduce((n, reps) => n + reps.length, 0);
    } else if ('pred' in r) {
      requests += 1;
      responses += 1;
    } else {
      const n = Object.keys(r).filter((k) => /^prompt_\d+$/.test(k)).length;
      requests += n;
      responses += n;
    }
  }
  return { lines: records.length, requests, responses, metrics };
}

/** A run's rows of one table, in order: lm-eval runs stage them in DuckDB as the records are read. */
async function tableRows(run: ImportedRun, table: 'instances' | 'responses' | 'scores' | 'filtered'): Promise<Record<string, unknown>[]> {
  const t = run.tables[table];
  if (t === undefined) return [];
  if ('rows' in t) return [...t.rows];
  if ('staged' in t) return queryRows(`SELECT * FROM ${t.staged} ORDER BY rowid`);
  // Scores are staged packed, one row per record, and read through a view that splits them.
  const staged = await stageTable(table, t);
  return queryRows(`SELECT ${TABLES[table].map((c) => `"${c.name}"`).join(', ')} FROM ${staged.withRowNumber} ORDER BY file_row_number`);
}

test('every lm-eval and pythia file is imported or listed with a reason, and the store counts match the sources', async () => {
  const result = await importAll();
  const all = [...(await walk(LMEVAL)), ...(await walk(PYTHIA))];
  const sources = result.runs.flatMap((r) => (r.provenance.records.files.used as { value: { path: string; role: string }[] }).value);
  const imported = new Set(sources.map((f) => f.path));
  for (const file of all) {
    if (file.endsWith('.txt')) {
      assert.deepEqual(result.unrecognised.find((u) => u.path === file)?.reason, 'plain text, not JSON (e.g. a console log)', file);
    } else assert.ok(imported.has(file), `${file} was not imported`);
  }
  assert.equal(result.unrecognised.length, 4);
  // 27: every results file, including the PEFT run under the '..__prompt-pursuit…' folder.
  assert.equal(result.runs.length, 27);

  for (const run of result.runs) {
    const files = (run.provenance.records.files.used as { value: { path: string; role: string }[] }).value;
    const records = files.filter((f) => /^(samples|write_out|examples)/.test(f.role));
    let expected = { lines: 0, requests: 0, responses: 0, metrics: 0 };
    for (const f of records) {
      const c = await sourceCounts(f.path);
      expected = { lines: expected.lines + c.lines, requests: expected.requests + c.requests, responses: expected.responses + c.responses, metrics: expected.metrics + c.metrics };
    }
    const label = run.provenance.label;
    assert.equal((await tableRows(run, 'filtered')).length, expected.lines, `${label}: filtered rows`);
    assert.equal((await tableRows(run, 'instances')).length, expected.requests, `${label}: instance rows`);
    assert.equal((await tableRows(run, 'responses')).length, expected.responses, `${label}: response rows`);
    assert.equal((await tableRows(run, 'scores')).length, expected.metrics, `${label}: score rows`);
  }
});

test('run ids are stable hashes of the source bytes', async () => {
  const a = await importSources([join(LMEVAL, 'pr2236-asdiv')], opts);
  const b = await importSources([join(LMEVAL, 'pr2236-asdiv')], opts);
  assert.deepEqual(a.runs.map((r) => r.provenance.run_id), b.runs.map((r) => r.provenance.run_id));
  assert.equal(new Set(a.runs.map((r) => r.provenance.run_id)).size, a.runs.length);
});

test('asdiv: folder layout paired by timestamp, string-encoded responses, hashes verified, provenance recorded', async () => {
  const { runs } = await importSources([join(LMEVAL, 'pr2236-asdiv')], opts);
  const run = runs.find((r) => r.provenance.label.endsWith('results_2024-08-21T03-44-09.494230.json'))!;
  const p = run.provenance;
  assert.equal(p.source_format, 'lm-eval results+samples');
  assert.deepEqual(p.reported.asdiv, { alias: 'asdiv', 'acc,none': 0.92, 'acc_stderr,none': 0.0387561713321444 });
  assert.ok(p.notes.some((n) => n.kind === 'task_hash_verified'));
  assert.ok(!p.notes.some((n) => /mismatch/.test(n.kind)));
  assert.deepEqual(p.harness.version.used.status, 'inferred');
  assert.deepEqual(p.model.batch_size.configured, { status: 'recorded', value: '8', from: 'config.batch_size' });
  assert.deepEqual(p.tasks.asdiv!.chat_template.sha256.configured, {
    status: 'recorded', value: 'ba03a121d097859c7b5b9cd03af99aafe95275210d2876f642ad9929a150f122', from: 'chat_template_sha',
  });
  assert.equal((p.tasks.asdiv!.chat_template.fewshot_as_multiturn.used as { value: unknown }).value, true);
  assert.equal((p.tasks.asdiv!.fewshot.count.used as { value: unknown }).value, 8);
  const first = (await tableRows(run, 'responses'))[0]!;
  assert.equal(first.logprob, -9.536740890325746e-7);
  assert.equal(first.is_greedy, true);
  const inst = (await tableRows(run, 'instances'))[0]!;
  assert.equal(inst.doc_hash, '4efe64e23e3ffe503da34bc4cfd8d55071042dae013b9e782b8d7040750c48fe');
  assert.equal(inst.target, '9');
  assert.equal(inst.request_type, 'loglikelihood');
  assert.deepEqual((await tableRows(run, 'scores'))[0], { run_id: p.run_id, task: 'asdiv', doc_id: '0', filter: 'none', metric: 'acc', value: 1, value_json: '1' });
});

test('wmdp (0.4.2): a pretty-printed JSON array, list-of-lists arguments, the list target kept as str(target)', async () => {
  const { runs } = await importSources([join(LMEVAL, 'pr1668-wmdp')], opts);
  assert.equal(runs.length, 1);
  const run = runs[0]!;
  const inst = (await tableRows(run, 'instances'));
  assert.equal(inst.length, 100);
  assert.equal(inst[0]!.target, "['A', 'B', 'C', 'D']");
  assert.equal(inst[0]!.gen_kwargs_json, '{"until": ".", "do_sample": false, "max_gen_toks": 10}');
  assert.deepEqual(run.provenance.reported.wmdp, { 'exact_match,none': 1.0, 'exact_match_stderr,none': 0.0, alias: 'wmdp' });
  assert.equal((run.provenance.harness.version.used as { value: unknown }).value, '≤0.4.2');
  // doc_hash is not recorded by 0.4.2: recomputed the Python way.
  assert.match(String(inst[0]!.doc_hash), /^[0-9a-f]{64}$/);
});

test('tgpred: bare Infinity/NaN kept, chat messages as a JSON string become the context', async () => {
  const { runs } = await importSources([join(LMEVAL, 'pr3144-tgpred')], opts);
  const run = runs[0]!;
  assert.deepEqual(run.provenance.reported.polymer_tg_prediction, { alias: 'polymer_tg_prediction', 'mae,none': 'Infinity', 'mae_stderr,none': 'NaN' });
  const scores = (await tableRows(run, 'scores'));
  assert.equal(scores.filter((s) => s.value === Infinity).length, 17);
  assert.equal(scores.filter((s) => s.value_json === 'Infinity').length, 17);
  const inst = (await tableRows(run, 'instances'))[0]!;
  assert.match(String(inst.arg_context), /^\[\{"role": "user"/);
});

// A slow cross-check since the plain suite passed 5 minutes on a slower 2-core machine: .ci/run runs it.
test('the CLI writes a store whose Parquet counts match the import', { skip: slowOnly }, async () => {
  const out = join(await mkdtemp(join(tmpdir(), 'lmaudit-lmeval-')), 'store');
  const cli = runCli(['import', ...ALL, '--out', out, '--json']);
  assert.equal(cli.status, 0, cli.stderr);
  const summary = JSON.parse(cli.stdout);
  assert.equal(summary.runs.length, 27);
  assert.equal(summary.unrecognised.length, 4);
  const store = await openStore(out);
  const count = async (t: 'instances' | 'responses' | 'scores' | 'filtered') =>
    (await queryRows<{ n: number }>(`SELECT count(*) AS n FROM ${store.table(t)}`))[0]!.n;
  const imported = await importAll();
  for (const t of ['instances', 'responses', 'scores', 'filtered'] as const) {
    let rows = 0;
    for (const r of imported.runs) rows += (await tableRows(r, t)).length;
    assert.equal(await count(t), rows, t);
  }
  const tg = await queryRows<{ n: number }>(`SELECT count(*) AS n FROM ${store.table('scores')} WHERE metric = 'mae' AND value = 'Infinity'::DOUBLE`);
  assert.equal(tg[0]!.n, 17);
});

async function badFile(name: string, content: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'lmaudit-bad-'));
  const path = join(dir, name);
  await writeFile(path, content);
  return path;
}

const GOOD = '{"doc_id": 0, "doc": {"q": "x"}, "target": "a", "arguments": {"gen_args_0": {"arg_0": "Q", "arg_1": {"until": ["\\n"]}}}, "resps": [["a"]], "filtered_resps": ["a"], "filter": "none", "metrics": ["exact_match"], "exact_match": 1.0}';

test('bad input names file, line and field; --skip-bad counts what it skips', async () => {
  const malformed = await badFile('samples_t_2025-01-01T00-00-00.000000.jsonl', `${GOOD}\n{"doc_id": 1, "resps": [[\n`);
  await assert.rejects(importSources([malformed], opts), (e: unknown) => e instanceof BadInputError && e.where.file === malformed && e.where.line === 2);
  const skipped = await importSources([malformed], { ...opts, skipBad: true });
  assert.equal(skipped.runs[0]!.skipped.length, 1);
  assert.equal(skipped.runs[0]!.skipped[0]!.line, 2);

  const wrongType = await badFile('samples_t_2025-01-01T00-00-00.000000.jsonl', `${GOOD}\n${GOOD.replace('"resps": [["a"]]', '"resps": "a"')}\n`);
  await assert.rejects(importSources([wrongType], opts), (e: unknown) => e instanceof BadInputError && e.where.line === 2 && e.where.field === 'resps');

  // lm-eval writes filtered_resps as a list, a value per request; a bare value is refused (it was stored as the record's filtered responses).
  const bareFiltered = await badFile('samples_t_2025-01-01T00-00-00.000000.jsonl', `${GOOD}\n${GOOD.replace('"filtered_resps": ["a"]', '"filtered_resps": 5')}\n`);
  await assert.rejects(importSources([bareFiltered], opts), (e: unknown) => e instanceof BadInputError && e.where.line === 2 && e.where.field === 'filtered_resps' && /expected a list/.test(e.message));

  const missing = await badFile('samples_t_2025-01-01T00-00-00.000000.jsonl', `${GOOD.replace('"doc_id": 0, ', '')}\n`);
  await assert.rejects(importSources([missing], opts), (e: unknown) => e instanceof BadInputError && e.where.line === 1 && e.where.field === 'doc_id');

  const badResp = await badFile('samples_t_2025-01-01T00-00-00.000000.jsonl', `${GOOD.replace('"resps": [["a"]]', '"resps": [[["x", "True"]]]')}\n`);
  const r = await importSources([badResp], { ...opts, skipBad: false }).catch((e: unknown) => e);
  assert.ok(r instanceof BadInputError && r.where.field === 'resps', String(r));

  const unlisted = await badFile('samples_t_2025-01-01T00-00-00.000000.jsonl', `${GOOD.replace('"exact_match": 1.0', '"f1": 1.0')}\n`);
  await assert.rejects(importSources([unlisted], opts), (e: unknown) => e instanceof BadInputError && e.where.field === 'exact_match');

  const badResults = await badFile('results_2025-01-01T00-00-00.000000.json', '{"results": {"t": {"acc,none": 0.5,}}}');
  await assert.rejects(importSources([badResults], opts), (e: unknown) => e instanceof BadInputError && e.where.file === badResults && e.where.line === 1);
});

test('the CLI exits 2 on bad input and names file, line and field', async () => {
  const bad = await badFile('samples_t_2025-01-01T00-00-00.000000.jsonl', `${GOOD}\n${GOOD.replace('"resps": [["a"]]', '"resps": 7')}\n`);
  const out = join(await mkdtemp(join(tmpdir(), 'lmaudit-lmeval-')), 'store');
  const cli = runCli(['import', bad, '--out', out]);
  assert.equal(cli.status, 2, cli.stderr);
  assert.match(cli.stderr, new RegExp(`${bad.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}, line 2, field 'resps'`));
  const skip = runCli(['import', bad, '--out', out, '--skip-bad', '--json']);
  assert.equal(skip.status, 0, skip.stderr);
  assert.equal(JSON.parse(skip.stdout).skipped.length, 1);
});

test('a samples file without results: version from the line shape, model from the ≤0.4.2 file name', async () => {
  const file = join(LMEVAL, 'bigrefactor-2023-06', 'pretrained=EleutherAI__pythia-2.8b_winogrande.jsonl');
  const { runs } = await importSources([file], { skipBad: false, fields: {} });
  const p = runs[0]!.provenance;
  assert.deepEqual(p.harness.version.used, {
    status: 'inferred', value: '0.4.0.dev (2023 big-refactor branch)', how: "samples 'arguments' is one flat list (no results file)",
  });
  assert.equal((p.model.model_id.used as { value: unknown }).value, 'EleutherAI/pythia-2.8b');
  assert.deepEqual((p.model.args.used as { value: unknown }).value, { pretrained: 'EleutherAI/pythia-2.8b' });
});

test('records are staged as they are read: a bad record after good ones leaves no staged rows behind, and the rows read before it are counted once', async () => {
  // Staged tables and views, and the row files being filled in the scratch folder.
  const staged = async () =>
    Number((await queryRows<{ n: number }>("SELECT count(*) AS n FROM duckdb_tables() WHERE table_name LIKE 'staged_%'"))[0]!.n) +
    Number((await queryRows<{ n: number }>("SELECT count(*) AS n FROM duckdb_views() WHERE view_name LIKE 'staged_%'"))[0]!.n) +
    (await readdir(scratchFolder('rows'))).length;
  const before = await staged();
  // More good records than one piece holds (a piece is joined and its rows written out before the bad one is read), then one that breaks.
  const good = Math.ceil(PIECE_BYTES / GOOD.length) + 100;
  const lines = Array.from({ length: good }, (_, i) => GOOD.replace('"doc_id": 0', `"doc_id": ${i}`));
  // More good records than one part holds (one part is written out before the bad one is read), then one that breaks.
  const bad = await badFile('samples_t_2025-01-01T00-00-00.000000.jsonl', `${lines.join('\n')}\n{"doc_id": ${good}, "resps": [[\n`);
  await assert.rejects(importSources([bad], opts), (e: unknown) => e instanceof BadInputError && e.where.line === good + 1);
  assert.equal(await staged(), before);
  const skipped = await importSources([bad], { ...opts, skipBad: true });
  assert.equal((await tableRows(skipped.runs[0]!, 'instances')).length, good);
  assert.deepEqual(skipped.runs[0]!.skipped.map((s) => s.line), [good + 1]);
});

test('a refused field of a record in a pretty-printed JSON list of samples is named at its own line, not at the line the record opens on', async () => {
  const { sampleRecord, TS } = await import('../hostile/corpus.ts');
  const dir = await mkdtemp(join(tmpdir(), 'lmaudit-json-list-'));
  const file = join(dir, `samples_hostile_${TS}.json`);
  const text = JSON.stringify([sampleRecord(0), sampleRecord(1, '8', { resps: 'mark-resps' })], null, 2);
  await writeFile(file, text);
  const lines = text.split('\n');
  // The second record opens on the line after the first closes; its resps sit further down.
  const opens = lines.indexOf('  {', 2) + 1;
  const at = lines.findIndex((l) => l.includes('mark-resps')) + 1;
  assert.ok(opens > 1 && at > opens + 1);
  const error = await importSources([file], { skipBad: false, fields: {} }).then(() => undefined, (e: Error) => e);
  assert.match(error?.message ?? 'accepted', new RegExp(`^${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}, line ${at}, field 'resps': `));
});
