/**
 * The cases of the hostile-input corpus, by class. Each builds its files in code; the
 * expected outcome is what lm-eval or Python would do with the same bytes (a valid input
 * imports) or a refusal that names the file.
 */
import assert from 'node:assert/strict';
import { chmodSync } from 'node:fs';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { buildEval } from '../inspect/buildEval.ts';
import { generic, jsonl, resultsFile, RESULTS, sampleRecord, SAMPLES, type HostileCase } from './corpus.ts';

const ok = { id: 'q1', output: 'B', gold: 'B' };
const importArgs = (file = '{dir}') => ['import', file, '--out', '{out}', '--json'];
const importFile = (name: string) => importArgs(`{dir}/${name}`);

/** stdout of `import --json`: the runs and their tasks. */
function imported(expectTasks: string[], skipped = 0) {
  return (stdout: string) => {
    const summary = JSON.parse(stdout) as { runs: { tasks: string[] }[]; skipped: unknown[] };
    assert.deepEqual(summary.runs.flatMap((r) => r.tasks).sort(), [...expectTasks].sort());
    assert.equal(summary.skipped.length, skipped);
  };
}

/** stdout of `rescore --json`: the micro score of the first cell. */
function scored(score: number, n: number) {
  return (stdout: string) => {
    const cell = (JSON.parse(stdout) as { cells: { aggregation: string; score: number; n: number }[] }).cells.find((c) => c.aggregation === 'micro')!;
    assert.deepEqual({ score: cell.score, n: cell.n }, { score, n });
  };
}

const invalidUtf8 = Buffer.concat([Buffer.from('{"id": "q1", "output": "B\\u00e9 '), Buffer.from([0xc3, 0x28]), Buffer.from('", "gold": "B"}\n')]);
const utf16 = (text: string, le: boolean) => {
  const body = Buffer.from(text, 'utf16le');
  if (!le) for (let i = 0; i < body.length; i += 2) [body[i], body[i + 1]] = [body[i + 1]!, body[i]!];
  return Buffer.concat([Buffer.from(le ? [0xff, 0xfe] : [0xfe, 0xff]), body]);
};

async function parquet(dir: string, name: string, select: string): Promise<void> {
  const db = await DuckDBInstance.create(':memory:');
  const conn = await db.connect();
  await conn.run(`COPY (${select}) TO '${join(dir, name)}' (FORMAT parquet)`);
  conn.closeSync();
}

const encoding: HostileCase[] = [
  { name: 'invalid UTF-8 in a generic string', files: { 'bad.jsonl': invalidUtf8 }, args: importFile('bad.jsonl'), status: 2, message: /bad\.jsonl, line 1: .*not valid UTF-8/ },
  { name: 'invalid UTF-8 counted by --skip-bad', files: { 'bad.jsonl': Buffer.concat([Buffer.from(`${JSON.stringify(ok)}\n`), invalidUtf8]) }, args: [...importFile('bad.jsonl'), '--skip-bad'], status: 0, check: imported(['bad'], 1) },
  {
    name: 'invalid UTF-8 in a samples record',
    files: { [SAMPLES]: Buffer.concat([Buffer.from(jsonl([sampleRecord(0)])), Buffer.from(JSON.stringify(sampleRecord(1)).replace('q1', 'q\u00ff'), 'latin1'), Buffer.from('\n')]) },
    args: importFile(SAMPLES), status: 2, message: /line 2: .*not valid UTF-8/,
  },
  {
    name: 'invalid UTF-8 in a samples record under --skip-bad',
    files: { [SAMPLES]: Buffer.concat([Buffer.from(jsonl([sampleRecord(0)])), Buffer.from(JSON.stringify(sampleRecord(1)).replace('q1', 'q\u00ff'), 'latin1'), Buffer.from('\n')]) },
    args: [...importFile(SAMPLES), '--skip-bad'], status: 0, check: imported(['hostile'], 1),
  },
  { name: 'UTF-16 LE with a byte order mark', files: { 'u16.jsonl': utf16(generic([ok]), true) }, args: importFile('u16.jsonl'), status: 2, message: /UTF-16/ },
  { name: 'UTF-16 BE with a byte order mark', files: { 'u16be.jsonl': utf16(generic([ok]), false) }, args: importFile('u16be.jsonl'), status: 2, message: /UTF-16/ },
  { name: 'UTF-16 LE without a byte order mark', files: { 'u16nobom.jsonl': Buffer.from(generic([ok]), 'utf16le') }, args: importFile('u16nobom.jsonl'), status: 2, message: /UTF-16/ },
  { name: 'UTF-8 byte order mark at the start is read past', files: { 'bom.jsonl': `\ufeff${generic([ok])}` }, args: ['rescore', '{dir}/bom.jsonl', '--json'], status: 0, check: scored(1, 1) },
  {
    name: 'a text value starting with U+FEFF is kept: "\\ufeff8" is not "8"',
    files: { 'feff.jsonl': generic([{ id: 'q1', output: '\ufeff8', gold: '8' }, { id: 'q2', output: '8', gold: '8' }]) },
    args: ['rescore', '{dir}/feff.jsonl', '--extractors', 'exact', '--normalizers', 'none', '--engine', 'js', '--json'], status: 0, check: scored(0.5, 2),
  },
  { name: 'a NUL byte inside a JSONL file', files: { 'nul.jsonl': Buffer.from(`${JSON.stringify(ok)}\n\u0000\u0000\n`) }, args: importFile('nul.jsonl'), status: 2 },
  { name: 'binary garbage named .jsonl', files: { 'garbage.jsonl': Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 7919) % 256)) }, args: importFile('garbage.jsonl'), status: 2 },
];

const shapes: HostileCase[] = [
  { name: 'a JSON null where records are expected', files: { 'null.json': 'null' }, args: importFile('null.json'), status: 2, message: /JSON null/ },
  { name: 'an empty JSON array', files: { 'empty.json': '[]' }, args: importFile('empty.json'), status: 2, message: /empty JSON array/ },
  { name: 'a bare array of numbers', files: { 'nums.json': '[1, 2, 3]' }, args: importFile('nums.json'), status: 2, message: /array of numbers/ },
  { name: 'a bare array of strings', files: { 'strs.jsonl': '["a", "b"]\n' }, args: importFile('strs.jsonl'), status: 2, message: /array of strings|a list/ },
  { name: 'a top-level JSON string', files: { 'str.json': '"hello"' }, args: importFile('str.json'), status: 2, message: /JSON string/ },
  { name: 'a top-level JSON number', files: { 'num.json': '42' }, args: importFile('num.json'), status: 2, message: /JSON number/ },
  { name: 'a JSONL line that is null', files: { 'nullline.jsonl': `${JSON.stringify(ok)}\nnull\n` }, args: importFile('nullline.jsonl'), status: 2, message: /line 2/ },
  { name: 'a JSONL line that is a list', files: { 'listline.jsonl': `${JSON.stringify(ok)}\n[1, 2]\n` }, args: importFile('listline.jsonl'), status: 2, message: /line 2/ },
  { name: 'a truncated last line', files: { 'trunc.jsonl': `${JSON.stringify(ok)}\n{"id": "q2", "output": "A", "go` }, args: importFile('trunc.jsonl'), status: 2, message: /line 2/ },
  { name: 'an empty file', files: { 'empty.jsonl': '' }, args: importFile('empty.jsonl'), status: 2, message: /empty/ },
  { name: 'a file of blank lines', files: { 'blank.jsonl': '\n\n  \n' }, args: importFile('blank.jsonl'), status: 2, message: /empty/ },
  { name: 'JSON nested 100,000 deep', files: { 'deep.jsonl': `{"id": "q1", "output": ${'['.repeat(100_000)}${']'.repeat(100_000)}, "gold": "A"}\n` }, args: importFile('deep.jsonl'), status: 2 },
  { name: 'duplicate ids in generic records', files: { 'dup.jsonl': generic([ok, ok]) }, args: importFile('dup.jsonl'), status: 2, message: /line 2.*duplicate id 'q1'/ },
  { name: 'an id that is a list', files: { 'idlist.jsonl': generic([{ ...ok, id: ['q1'] }]) }, args: importFile('idlist.jsonl'), status: 2, message: /line 1, field 'id'/ },
  { name: "an output that is a number is read as Python's str()", files: { 'outnum.jsonl': generic([{ ...ok, output: 7, gold: '7' }]) }, args: ['rescore', '{dir}/outnum.jsonl', '--extractors', 'exact', '--normalizers', 'none', '--json'], status: 0, check: scored(1, 1) },
  { name: 'a gold that is an object', files: { 'goldobj.jsonl': generic([{ ...ok, gold: { a: 1 } }]) }, args: importFile('goldobj.jsonl'), status: 2, message: /line 1, field 'gold'/ },
  { name: 'no output field', files: { 'nooutput.jsonl': generic([{ id: 'q1', gold: 'B' }]) }, args: importFile('nooutput.jsonl'), status: 2, message: /no output field/ },
  { name: 'a 5 MB output on one line imports', files: { 'long.jsonl': generic([{ id: 'q1', output: `${'x'.repeat(5_000_000)} B`, gold: 'B' }]) }, args: importFile('long.jsonl'), status: 0, check: imported(['long']) },
  { name: 'control characters inside a string', files: { 'ctl.jsonl': '{"id": "q1", "output": "a\u0001b", "gold": "B"}\n' }, args: importFile('ctl.jsonl'), status: 2, message: /line 1/ },
  { name: 'CSV with an unterminated quote', files: { 'q.csv': 'id,output,gold\nq1,"B,B\n' }, args: importFile('q.csv'), status: 2, message: /q\.csv/ },
  { name: 'CSV separated by semicolons', files: { 'semi.csv': 'id;output;gold\nq1;B;B\n' }, args: importFile('semi.csv'), status: 2, message: /separate with ";"/ },
  { name: 'CSV without a gold column', files: { 'nogold.csv': 'id,output\nq1,B\n' }, args: importFile('nogold.csv'), status: 2, message: /no gold field/ },
  { name: 'a valid CSV imports', files: { 'good.csv': 'id,output,gold\nq1,B,B\nq2,A,B\n' }, args: ['rescore', '{dir}/good.csv', '--extractors', 'exact', '--normalizers', 'none', '--json'], status: 0, check: scored(0.5, 2) },
];

const lmevalResults: HostileCase[] = [
  { name: 'results is a list of numbers', files: { [RESULTS]: JSON.stringify({ results: [1, 2, 3] }) }, args: importFile(RESULTS), status: 2, message: /line 1, field 'results\[0\]'/ },
  { name: 'results is a list of objects without task names', files: { [RESULTS]: JSON.stringify({ results: [{ acc: 0.5 }] }) }, args: importFile(RESULTS), status: 2, message: /line 1, field 'results\[0\]/ },
  { name: 'results is a string', files: { [RESULTS]: JSON.stringify({ results: 'none', configs: {} }) }, args: importFile(RESULTS), status: 2, message: /line 1, field 'results'/ },
  { name: "a task's results are a number", files: { [RESULTS]: resultsFile({ hostile: 5 }) }, args: importFile(RESULTS), status: 2, message: /line 1, field 'results\.hostile'/ },
  // Pretty-printed (indent 2), the value is on line 4: {, "results": {, "hostile": {, "exact_match,none": "0.5".
  { name: 'a metric value that is a string', files: { [RESULTS]: resultsFile({ hostile: { 'exact_match,none': '0.5' } }, {}, 2) }, args: importFile(RESULTS), status: 2, message: /, line 4, field 'results\.hostile\.exact_match,none'.*string/ },
  { name: 'a metric value that is a list', files: { [RESULTS]: resultsFile({ hostile: { 'exact_match,none': [0.5] } }) }, args: importFile(RESULTS), status: 2, message: /line 1, field 'results\.hostile\.exact_match,none'/ },
  { name: 'configs is a list', files: { [RESULTS]: resultsFile({ hostile: { 'exact_match,none': 0.5 } }, { configs: [] }) }, args: importFile(RESULTS), status: 2, message: /line 1, field 'configs'/ },
  { name: 'config is a string', files: { [RESULTS]: resultsFile({ hostile: { 'exact_match,none': 0.5 } }, { config: 'x' }) }, args: importFile(RESULTS), status: 2, message: /line 1, field 'config'/ },
  { name: 'n-samples is a number', files: { [RESULTS]: resultsFile({ hostile: { 'exact_match,none': 0.5 } }, { 'n-samples': 3 }) }, args: importFile(RESULTS), status: 2, message: /line 1, field 'n-samples'/ },
  // Before: shown as the few-shot count ("zero"), and an effective count "twenty" replaced by one inferred from the samples.
  // Pretty-printed: results (lines 2-6), configs (7-12), versions (13-15), then "n-shot": { on 16 and its "hostile" on 17.
  { name: 'a few-shot count that is text', files: { [RESULTS]: resultsFile({ hostile: { 'exact_match,none': 0.5 } }, { 'n-shot': { hostile: 'zero' } }, 2) }, args: importFile(RESULTS), status: 2, message: /, line 17, field 'n-shot\.hostile': expected a few-shot count \(an integer from 0\), got the string "zero"/ },
  { name: 'an effective document count that is text', files: { [RESULTS]: resultsFile({ hostile: { 'exact_match,none': 0.5 } }, { 'n-samples': { hostile: { original: 20, effective: 'twenty' } } }) }, args: importFile(RESULTS), status: 2, message: /line 1, field 'n-samples\.hostile\.effective': expected a document count \(an integer from 0\), got the string "twenty"/ },
  { name: 'a truncated results file', files: { [RESULTS]: resultsFile({ hostile: { 'exact_match,none': 0.5 } }).slice(0, 40) }, args: importFile(RESULTS), status: 2, message: /malformed JSON/ },
  { name: 'results with bare NaN import (Python writes them)', files: { [RESULTS]: resultsFile({ hostile: { 'exact_match,none': 0.5 } }).replace('0.5', 'NaN') }, args: importFile(RESULTS), status: 0, check: imported(['hostile']) },
  { name: 'results with an alias string as its version', files: { [RESULTS]: resultsFile({ hostile: { 'exact_match,none': 0.5, alias: 'hostile' } }) }, args: importFile(RESULTS), status: 0, check: imported(['hostile']) },
];

const lmevalSamples: HostileCase[] = [
  { name: 'a valid samples file imports', files: { [SAMPLES]: jsonl([sampleRecord(0), sampleRecord(1, '7')]) }, args: importFile(SAMPLES), status: 0, check: imported(['hostile']) },
  { name: 'duplicate doc_id under one filter', files: { [SAMPLES]: jsonl([sampleRecord(0), sampleRecord(1), sampleRecord(1)]) }, args: importFile(SAMPLES), status: 2, message: /line 3, field 'doc_id': doc_id 1 appears twice under filter 'none' \(line 2 and line 3\)/ },
  { name: 'the same doc_id under two filters is fine', files: { [SAMPLES]: jsonl([sampleRecord(0), sampleRecord(0, '8', { filter: 'strict' })]) }, args: importFile(SAMPLES), status: 0, check: imported(['hostile']) },
  {
    name: 'records of two tasks in one samples file',
    files: { [SAMPLES]: jsonl([sampleRecord(0), sampleRecord(1), { ...sampleRecord(0), metrics: ['acc'], acc: 1.0, exact_match: undefined }]) },
    args: importFile(SAMPLES), status: 2, message: /line 3.*records of more than one task/,
  },
  { name: 'doc_id is a list', files: { [SAMPLES]: jsonl([sampleRecord([0])]) }, args: importFile(SAMPLES), status: 2, message: /line 1, field 'doc_id'/ },
  { name: 'resps is a string', files: { [SAMPLES]: jsonl([{ ...sampleRecord(0), resps: '8' }]) }, args: importFile(SAMPLES), status: 2, message: /field 'resps'/ },
  { name: 'arguments is a number', files: { [SAMPLES]: jsonl([{ ...sampleRecord(0), arguments: 3 }]) }, args: importFile(SAMPLES), status: 2, message: /field 'arguments'/ },
  { name: 'a listed metric without a value', files: { [SAMPLES]: jsonl([{ ...sampleRecord(0), exact_match: undefined }]) }, args: importFile(SAMPLES), status: 2, message: /field 'exact_match'/ },
  { name: 'a doc_hash that is not hex', files: { [SAMPLES]: jsonl([{ ...sampleRecord(0), doc_hash: 'zz' }]) }, args: importFile(SAMPLES), status: 2, message: /field 'doc_hash'/ },
  { name: 'a samples line that is null', files: { [SAMPLES]: `${jsonl([sampleRecord(0)])}null\n` }, args: importFile(SAMPLES), status: 2, message: /line 2/ },
  { name: 'a bad samples line skipped', files: { [SAMPLES]: `${jsonl([sampleRecord(0)])}{"doc_id": 1\n${jsonl([sampleRecord(2)])}` }, args: [...importFile(SAMPLES), '--skip-bad'], status: 0, check: imported(['hostile'], 1) },
  { name: 'a samples file that is an empty array', files: { [SAMPLES]: '[]' }, args: importFile(SAMPLES), status: 2, message: /empty JSON array|no records/ },
  { name: 'a log-probability that is text', files: { 'samples_mc_2024-05-01T10-00-00.000000.jsonl': jsonl([{ doc_id: 0, doc: {}, target: 0, arguments: { gen_args_0: { arg_0: 'Q', arg_1: ' A' } }, resps: [[['abc', 'True']]], filtered_resps: [['abc', 'True']], filter: 'none', metrics: ['acc'], acc: 1.0 }]) }, args: importFile('samples_mc_2024-05-01T10-00-00.000000.jsonl'), status: 2, message: /log-probability is "abc"/ },
  {
    name: 'a samples file and its results: metric strings refused in the results',
    files: { [SAMPLES]: jsonl([sampleRecord(0)]), [RESULTS]: resultsFile({ hostile: { 'exact_match,none': 'high' } }) },
    args: importArgs(), status: 2, message: /line 1, field 'results\.hostile\.exact_match,none'/, names: RESULTS,
  },
];

const parquetCases: HostileCase[] = [
  { name: 'Parquet ids that are lists', files: {}, setup: (d) => parquet(d, 'ids.parquet', "SELECT ['a', 'b'] AS id, 'B' AS output, 'B' AS gold"), args: importFile('ids.parquet'), status: 2, message: /ids\.parquet, field 'id': .*list/, names: 'ids.parquet' },
  { name: 'Parquet outputs that are structs', files: {}, setup: (d) => parquet(d, 'outs.parquet', "SELECT 'q1' AS id, {'text': 'B'} AS output, 'B' AS gold"), args: importFile('outs.parquet'), status: 2, message: /field 'output': .*struct/, names: 'outs.parquet' },
  { name: 'Parquet golds that are lists', files: {}, setup: (d) => parquet(d, 'golds.parquet', "SELECT 'q1' AS id, 'B' AS output, ['B'] AS gold"), args: importFile('golds.parquet'), status: 2, message: /field 'gold': .*list/, names: 'golds.parquet' },
  { name: 'Parquet golds that are maps', files: {}, setup: (d) => parquet(d, 'maps.parquet', "SELECT 'q1' AS id, 'B' AS output, MAP {'a': 'B'} AS gold"), args: importFile('maps.parquet'), status: 2, message: /field 'gold'/, names: 'maps.parquet' },
  { name: 'valid Parquet records score', files: {}, setup: (d) => parquet(d, 'good.parquet', "SELECT * FROM (VALUES ('q1', 'B', 'B'), ('q2', 'A', 'B')) t(id, output, gold)"), args: ['rescore', '{dir}/good.parquet', '--extractors', 'exact', '--normalizers', 'none', '--json'], status: 0, check: scored(0.5, 2) },
  { name: 'a corrupt Parquet file', files: { 'bad.parquet': Buffer.concat([Buffer.from('PAR1'), Buffer.alloc(100, 7), Buffer.from('PAR1')]) }, args: importFile('bad.parquet'), status: 2, message: /cannot read as parquet/ },
];

const folders: HostileCase[] = [
  {
    name: 'a folder with nothing importable lists every file and its reason',
    files: { 'notes.txt': 'a console log\n', 'empty.jsonl': '', 'x.json': '{"foo": 1}' },
    args: importArgs(), status: 2, names: null,
    message: /nothing importable[\s\S]*empty\.jsonl: empty file[\s\S]*notes\.txt: plain text[\s\S]*x\.json: JSON whose keys/,
  },
  {
    name: 'a lighteval results file whose config_general is not an object is refused naming the field',
    files: { 'results_2024-05-01T10-00-00.000000.json': JSON.stringify({ config_general: 'm', results: { 'leaderboard|arc:challenge|25': { acc: 0.5 } }, versions: {}, config_tasks: {}, summary_tasks: {}, summary_general: {} }) },
    args: importArgs(), status: 2, names: 'results_2024-05-01T10-00-00.000000.json', message: /line 1, field 'config_general': a lighteval results file whose config_general is missing or not an object/,
  },
  {
    name: 'a corrupt lighteval details file is refused naming the file',
    files: { 'details/m/2024-05-01T10-00-00.000000/details_leaderboard|arc:challenge|25_2024-05-01T10-00-00.000000.parquet': Buffer.concat([Buffer.from('PAR1'), Buffer.alloc(32), Buffer.from('PAR1')]) },
    args: importArgs(), status: 2, names: 'details_leaderboard', message: /not a readable Parquet file/,
  },
  {
    // Outside logs/run_evaluation/<run_id>/<model>/<instance_id>/ nothing says which evaluation a report belongs to.
    // (The case folder's name holds 'SWE-bench' too: the message is matched on what only the message says.)
    name: 'a SWE-bench report.json outside its evaluation folder is named as such',
    files: { 'report.json': JSON.stringify({ 'astropy__astropy-12907': { patch_is_None: false, patch_exists: true, patch_successfully_applied: true, resolved: true, tests_status: {} } }) },
    args: importArgs(), status: 2, names: 'report.json', message: /a SWE-bench evaluation report \(report\.json\) outside its folder logs\/run_evaluation/,
  },
  {
    // tb's TrialResults requires trial_name (it names the trial's folder and its attempt).
    name: 'a Terminal-Bench results.json whose trial has no trial_name is refused naming the field',
    // Pretty-printed: the trial lacking it opens on line 4 ({, "id", "results": [, {), the line a missing field is named at.
    files: { 'results.json': JSON.stringify({ id: 'run', results: [{ task_id: 'hello-world', is_resolved: true, failure_mode: 'unset' }], n_resolved: 1, n_unresolved: 0, accuracy: 1 }, null, 2) },
    args: importArgs(), status: 2, names: 'results.json', message: /results\.json, line 4, field 'results\[0\]\.trial_name': a Terminal-Bench trial without a string 'trial_name'/,
  },
  {
    name: 'a Terminal-Bench results.json imports as a run of its trials',
    files: { 'results.json': JSON.stringify({ id: 'run', results: [{ trial_name: 'hello-world.1-of-1.r', task_id: 'hello-world', is_resolved: true, failure_mode: 'unset' }], n_resolved: 1, n_unresolved: 0, accuracy: 1 }) },
    args: importArgs(), status: 0,
  },
  { name: 'an empty folder', files: { 'sub/.keep': '' }, args: ['import', '{dir}/sub', '--out', '{out}'], status: 2, names: 'sub', message: /nothing importable/ },
  { name: 'a missing file', files: {}, args: ['import', '{dir}/nope.jsonl', '--out', '{out}'], status: 2, names: 'nope.jsonl', message: /no such file/ },
  { name: 'an importable file beside junk imports and lists the junk', files: { 'a.jsonl': generic([ok]), 'junk.txt': 'x' }, args: importArgs(), status: 0, check: (s) => assert.match(s, /junk\.txt/) },
];

const outPaths: HostileCase[] = [
  { name: '--out under a file', files: { 'a.jsonl': generic([ok]), 'afile': 'x' }, args: ['import', '{dir}/a.jsonl', '--out', '{dir}/afile/store'], status: 2, names: 'afile', message: /not a folder|exists and is a file/ },
  { name: '--out is a file', files: { 'a.jsonl': generic([ok]), 'afile': 'x' }, args: ['import', '{dir}/a.jsonl', '--out', '{dir}/afile'], status: 2, names: 'afile', message: /is a file/ },
  { name: '--out under /proc', files: { 'a.jsonl': generic([ok]) }, args: ['import', '{dir}/a.jsonl', '--out', '/proc/lmaudit-store'], status: 2, names: '/proc/lmaudit-store', message: /cannot (create|write)/ },
  { name: '--out under /sys', files: { 'a.jsonl': generic([ok]) }, args: ['import', '{dir}/a.jsonl', '--out', '/sys/kernel/lmaudit-store'], status: 2, names: '/sys/kernel/lmaudit-store', message: /cannot (create|write)/ },
  { name: '--out under /proc/self', files: { 'a.jsonl': generic([ok]) }, args: ['import', '{dir}/a.jsonl', '--out', '/proc/self/lmaudit'], status: 2, names: '/proc/self/lmaudit', message: /cannot (create|write)/ },
  {
    name: '--out in a read-only folder',
    files: { 'a.jsonl': generic([ok]), 'ro/.keep': '' },
    setup: (d) => chmodSync(join(d, 'ro'), 0o555),
    args: ['import', '{dir}/a.jsonl', '--out', '{dir}/ro/store'], status: process.getuid?.() === 0 ? 0 : 2, names: 'ro/store', message: /cannot (create|write)/,
  },
  { name: 'prompts --out under a file', files: { afile: 'x' }, args: ['prompts', '--tasks', 'arc_easy', '--limit', '1', '--out', '{dir}/afile/p.jsonl'], status: 2, names: 'afile', message: /cannot (create|write)/ },
];

const BOMB = ['a: &a ["x","x","x","x","x","x","x","x","x"]', ...Array.from({ length: 9 }, (_, i) => `${String.fromCharCode(98 + i)}: &${String.fromCharCode(98 + i)} [${Array(9).fill(`*${String.fromCharCode(97 + i)}`).join(',')}]`)];
const tasks: HostileCase[] = [
  { name: '--apply_chat_template naming a folder', files: { 'tpl/.keep': '' }, args: ['prompts', '--tasks', 'arc_easy', '--limit', '1', '--apply_chat_template', '{dir}/tpl', '--out', '{dir}/p.jsonl'], status: 2, names: 'tpl', message: /is a folder/ },
  { name: '--apply_chat_template naming a missing file', files: {}, args: ['prompts', '--tasks', 'arc_easy', '--limit', '1', '--apply_chat_template', '{dir}/nope.jinja', '--out', '{dir}/p.jsonl'], status: 2, names: 'nope.jinja' },
  {
    name: 'a YAML alias bomb in doc_to_choice',
    files: { 'tasks/bomb.yaml': ['task: bomb', 'dataset_path: json', 'output_type: multiple_choice', 'doc_to_text: "{{q}}"', ...BOMB, 'doc_to_choice: *j', ''].join('\n') },
    args: ['prompts', '--tasks', 'bomb', '--include_path', '{dir}/tasks', '--out', '{dir}/p.jsonl'], status: 2, names: 'bomb.yaml', message: /alias/,
  },
  {
    name: 'a broken YAML file under --include_path does not block another task',
    files: {
      'tasks/broken.yaml': 'task: broken\n  bad: [indent\n',
      'tasks/good.yaml': 'task: good_local\ndataset_path: json\ndataset_kwargs:\n  data_files: {test: data.jsonl}\ntest_split: test\noutput_type: generate_until\ndoc_to_text: "{{q}}"\ndoc_to_target: "{{a}}"\n',
      'tasks/data.jsonl': '{"q": "1+1=", "a": "2"}\n',
    },
    args: ['prompts', '--tasks', 'good_local', '--include_path', '{dir}/tasks', '--out', '{dir}/p.jsonl', '--json'], status: 0,
  },
  { name: 'an unknown task', files: {}, args: ['prompts', '--tasks', 'no_such_task_xyz', '--out', '{dir}/p.jsonl'], status: 2, names: 'no_such_task_xyz' },
];

const regexes: HostileCase[] = [
  {
    name: 'a catastrophic regex on a long output ends',
    files: { 'redos.jsonl': generic([{ id: 'q1', output: `${'a'.repeat(40)}b`, gold: 'a' }, { id: 'q2', output: 'aaa', gold: 'aaa' }]) },
    args: ['rescore', '{dir}/redos.jsonl', '--extractors', 'regex:(a+)+$', '--normalizers', 'none', '--json'], status: 2, names: null,
    message: /the pattern "\(a\+\)\+\$" ran more than 2000 ms on the output "a{40}b": its nested repeats backtrack exponentially/,
  },
  {
    name: 'a catastrophic regex with a lookbehind ends',
    files: { 'redos2.jsonl': generic([{ id: 'q1', output: `x${'a'.repeat(40)}b`, gold: 'a' }]) },
    args: ['rescore', '{dir}/redos2.jsonl', '--extractors', 'regex:(?<=x)(a+)+$', '--normalizers', 'none', '--json', '--engine', 'js'], status: 2, names: null, message: /backtrack exponentially/,
  },
  { name: 'a regex Python cannot compile', files: { 'r.jsonl': generic([ok]) }, args: ['rescore', '{dir}/r.jsonl', '--extractors', 'regex:(a', '--json'], status: 2, names: null, message: /regex/ },
];

const zips: HostileCase[] = [
  { name: 'a .eval that is not a ZIP', files: { 'x.eval': 'not a zip at all' }, args: importFile('x.eval'), status: 2 },
  {
    name: 'a ZIP member declaring exactly 1 GiB is refused before it is inflated',
    files: {}, setup: async (d) => void (await buildEval(join(d, 'bomb.eval'), [{ name: 'header.json', data: Buffer.alloc(1 << 20, 32), declaredSize: 2 ** 30 }])),
    args: importFile('bomb.eval'), status: 2, names: 'bomb.eval', message: /member header\.json: member declares 1073741824 bytes/,
  },
  { name: 'a truncated .eval', files: { 'x.eval': Buffer.concat([Buffer.from('PK\u0003\u0004'), Buffer.alloc(40)]) }, args: importFile('x.eval'), status: 2 },
];

export const CASES: HostileCase[] = [...encoding, ...shapes, ...lmevalResults, ...lmevalSamples, ...parquetCases, ...folders, ...outPaths, ...tasks, ...regexes, ...zips];
