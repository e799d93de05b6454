import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cliArgs, repoRoot, runCli } from '../helpers/cli.ts';
import { slowTests } from '../helpers/slow.ts';
import { slowOnly } from '../helpers/slow.ts';

const dir = () => mkdtempSync(join(tmpdir(), 'lmaudit-import-'));
const good = '{"id": "q1", "output": "B", "gold": "B"}\n';

function file(name: string, text: string): string {
  const path = join(dir(), name);
  writeFileSync(path, text);
  return path;
}

test('a malformed line is exit 2 with the file and line named, and no store is written', () => {
  const path = file('bad.jsonl', `${good}{"id": "q2", "output": "A"\n`);
  const out = join(dir(), 'store');
  const r = runCli(['import', path, '--out', out]);
  assert.equal(r.status, 2);
  assert.match(r.stderr, new RegExp(`${path.replaceAll('/', '\\/')}, line 2: malformed JSON`));
  assert.equal(existsSync(out), false);
});

test('an empty file is exit 2 saying so, not a complaint about its first record', () => {
  for (const [name, text] of [['empty.jsonl', ''], ['blank.jsonl', '\n\n']]) {
    const r = runCli(['rescore', file(name!, text!)]);
    assert.equal(r.status, 2);
    assert.match(r.stderr, new RegExp(`${name!.replace('.', '\\.')}: the file is empty: no records to read`));
  }
});

test('a CSV with a header and no rows, or a Parquet file of no rows, is as empty as an empty JSONL file: exit 2, no store (it was an empty run, exit 0)', async () => {
  const csv = file('header-only.csv', 'id,output,gold\n');
  const { DuckDBInstance } = await import('@duckdb/node-api');
  const conn = await (await DuckDBInstance.create(':memory:')).connect();
  const parquet = join(dir(), 'none.parquet');
  await conn.run(`COPY (SELECT 'q1' AS id, 'A' AS output, 'A' AS gold LIMIT 0) TO '${parquet}' (FORMAT parquet)`);
  conn.closeSync();
  for (const [path, why] of [[csv, 'the file has a header line and no records'], [parquet, 'the file holds no rows: no records to read']] as const) {
    for (const skipBad of [[], ['--skip-bad']]) {
      const out = join(dir(), 'store');
      const r = runCli(['import', path, '--out', out, ...skipBad]);
      assert.equal(r.status, 2, r.stdout);
      assert.equal(r.stderr, `lmaudit: ${path}: ${why}\n`);
      assert.equal(existsSync(out), false);
    }
  }
});

test('a missing field is exit 2 naming file, line and field', () => {
  const path = file('missing.jsonl', `${good}{"id": "q2", "output": "A"}\n`);
  const r = runCli(['rescore', path]);
  assert.equal(r.status, 2);
  assert.match(r.stderr, /missing\.jsonl, line 2, field 'gold': gold answer is missing/);
});

test('a wrong type is exit 2 naming file, line and field', () => {
  const path = file('types.jsonl', `${good}{"id": "q2", "output": ["A"], "gold": "A"}\n`);
  const r = runCli(['rescore', path]);
  assert.equal(r.status, 2);
  assert.match(r.stderr, /types\.jsonl, line 2, field 'output': output is a list; expected text/);
});

test('an unreadable source and an unknown extractor are exit 2 with a clear message', () => {
  const missing = runCli(['rescore', join(dir(), 'nope.jsonl')]);
  assert.equal(missing.status, 2);
  assert.match(missing.stderr, /nope\.jsonl: no such file or folder/);
  const typo = runCli(['rescore', file('ok.jsonl', good), '--extractors', 'frist-letter']);
  assert.equal(typo.status, 2);
  assert.match(typo.stderr, /Unknown extractor 'frist-letter'\. Did you mean: first-letter/);
});

test('--skip-bad counts and reports skipped records in the denominator', () => {
  const path = file('mixed.jsonl', `${good}not json\n{"id": "q3", "output": 7}\n{"id": "q4", "output": "A", "gold": "B"}\n`);
  const r = runCli(['rescore', path, '--skip-bad', '--json']);
  assert.equal(r.status, 0, r.stderr);
  const report = JSON.parse(r.stdout);
  assert.equal(report.denominator.items_scored, 2);
  assert.equal(report.denominator.records_skipped_on_import, 2);
  assert.deepEqual(
    report.denominator.skipped.map((s: { line: number; field?: string }) => [s.line, s.field ?? null]),
    [[2, null], [3, 'gold']],
  );
  const text = runCli(['rescore', path, '--skip-bad']);
  assert.match(text.stdout, /denominator: 2 scored of 2 read; .*; 2 records skipped on import/);
});

// A slow cross-check since the plain suite passed 5 minutes on a slower 2-core machine: .ci/run runs it.
test('a kill during import leaves no store, and never damages an existing one', { skip: slowOnly }, async () => {
  const work = dir();
  const big = join(work, 'big.jsonl');
  const lines: string[] = [];
  for (let i = 0; i < 400_000; i++) lines.push(JSON.stringify({ id: `q${i}`, output: `The answer is ${'ABCD'[i % 4]}.`, gold: 'B' }));
  writeFileSync(big, `${lines.join('\n')}\n`);
  const out = join(work, 'store');
  const small = file('small.jsonl', good);
  assert.equal(runCli(['import', small, '--out', out]).status, 0);
  /** Starts an import and SIGKILLs it after `ms` unless it has finished; says whether the kill landed. */
  const killAfter = async (args: string[], ms: number): Promise<boolean> => {
    const child = spawn(process.execPath, [...cliArgs, ...args], { cwd: repoRoot, stdio: 'ignore' });
    const exited = new Promise<NodeJS.Signals | null>((resolve) => child.on('exit', (_code, signal) => resolve(signal)));
    await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, ms))]);
    child.kill('SIGKILL');
    return (await exited) === 'SIGKILL';
  };
  const items = () => {
    const r = runCli(['rescore', out, '--json']);
    assert.equal(r.status, 0, r.stderr);
    return JSON.parse(r.stdout).denominator.items_read as number;
  };
  let landed = 0;
  // Two kill points in the plain suite, four as a slow cross-check (.ci/run).
  for (const ms of slowTests ? [300, 600, 900, 1200] : [300, 900]) {
    if (await killAfter(['import', big, '--out', out, '--replace'], ms)) landed++;
    // Whole either way: the old store (1 record) unless the new one was complete before the kill.
    const held = items();
    assert.ok([1, 400_000].includes(held), 'the store is the old one or the complete new one');
    if (held === 400_000) assert.equal(runCli(['import', small, '--out', out, '--replace']).status, 0);
  }
  assert.ok(landed > 0, 'at least one kill landed while the import was running');
  // The next write to the same store clears what the killed writers left behind.
  assert.equal(runCli(['import', small, '--out', out, '--replace']).status, 0);
  const fresh = join(work, 'fresh');
  if (await killAfter(['import', big, '--out', fresh], 600)) assert.equal(existsSync(fresh), false);
  rmSync(fresh, { recursive: true, force: true });
  assert.equal(runCli(['import', small, '--out', fresh]).status, 0);
  assert.deepEqual(readdirSync(work).filter((n) => n.includes('.tmp-')), []);
});

test('a UTF-8 byte order mark (as Windows tools write) is skipped in JSONL, a JSON array and CSV, also when a folder is walked', () => {
  const bom = '\uFEFF';
  const records = ['{"id": "q1", "output": "B", "gold": "B"}', '{"id": "q2", "output": "A", "gold": "B"}', '{"id": "q3", "output": " B ", "gold": "B"}'];
  const folder = dir();
  writeFileSync(join(folder, 'a.jsonl'), `${bom}${records.join('\n')}\n`);
  writeFileSync(join(folder, 'b.json'), `${bom}[${records.join(', ')}]`);
  writeFileSync(join(folder, 'c.csv'), `${bom}id,output,gold\nq1,B,B\nq2,A,B\nq3, B ,B\n`);
  for (const name of ['a.jsonl', 'b.json', 'c.csv']) {
    const r = runCli(['rescore', join(folder, name), '--extractors', 'exact', '--normalizers', 'none,strip', '--aggregations', 'micro', '--json']);
    assert.equal(r.status, 0, `${name}: ${r.stderr}`);
    // q1 is exact; q3 only once stripped; q2 never.
    assert.deepEqual(JSON.parse(r.stdout).cells.map((c: { normalizer: string; correct: number; n: number }) => [c.normalizer, c.correct, c.n]), [['none', 1, 3], ['strip', 2, 3]], name);
  }
  const walked = runCli(['import', folder, '--out', join(dir(), 'store'), '--json']);
  assert.equal(walked.status, 0, walked.stderr);
  const summary = JSON.parse(walked.stdout);
  assert.equal(summary.runs.length, 3);
  assert.deepEqual(summary.unrecognised, []);
});

test("a folder's record files are recognised by their first record or CSV header, whatever the JSON layout; the rest are listed with the reason", () => {
  const folder = dir();
  writeFileSync(join(folder, 'pretty.json'), JSON.stringify([{ id: 'q1', response: 'A', answer: 'A' }, { id: 'q2', response: 'B', answer: 'A' }], null, 2));
  writeFileSync(join(folder, 'one-line.json'), JSON.stringify([{ id: 'q1', completion: 'A', target: 'A' }]));
  writeFileSync(join(folder, 'quoted.csv'), '"id","model_output","label"\nq1,A,A\n');
  writeFileSync(join(folder, 'other.csv'), 'name,value\nx,1\n');
  writeFileSync(join(folder, 'config.json'), JSON.stringify({ seed: 1, model: 'x' }, null, 2));
  const r = runCli(['import', folder, '--out', join(dir(), 'store'), '--json']);
  assert.equal(r.status, 0, r.stderr);
  const summary = JSON.parse(r.stdout);
  assert.deepEqual(summary.runs.map((run: { label: string }) => run.label).sort(), ['one-line.json', 'pretty.json', 'quoted.csv']);
  assert.deepEqual(
    summary.unrecognised.map((u: { path: string; reason: string }) => [u.path.slice(folder.length + 1), u.reason]).sort(),
    [
      ['config.json', 'JSON whose keys match no known output format'],
      ['other.csv', 'CSV whose header names no output and gold columns (name the file on the command line, with --output-field and --gold-field)'],
    ],
  );
});

test("CSV is read as Python's csv module reads it: quoted commas, doubled quotes and line breaks inside fields; an unterminated quote or a short row is exit 2 naming the line", () => {
  // csv.reader(open(f, newline='')) gives [['q1', 'say "B", then C', 'B'], ['q2', 'A\nor B', 'B'], ['q3', 'B', 'B']].
  const ok = file('ok.csv', 'id,output,gold\r\nq1,"say ""B"", then C",B\r\nq2,"A\nor B",B\r\nq3,B,B\r\n');
  const r = runCli(['rescore', ok, '--extractors', 'exact,contains,first-letter', '--normalizers', 'none', '--aggregations', 'micro', '--json']);
  assert.equal(r.status, 0, r.stderr);
  const correct = Object.fromEntries(JSON.parse(r.stdout).cells.map((c: { extractor: string; correct: number; n: number }) => [c.extractor, [c.correct, c.n]]));
  // exact: q3; contains: all three; first standalone A-D letter: q1 'B', q2 'A', q3 'B'.
  assert.deepEqual(correct, { exact: [1, 3], contains: [3, 3], 'first-letter': [2, 3] });

  const unterminated = file('quote.csv', 'id,output,gold\nq1,"A,A\nq2,B,B\n');
  const u = runCli(['rescore', unterminated]);
  assert.equal(u.status, 2);
  assert.match(u.stderr, /quote\.csv, line 2: cannot read as csv \(Value with unterminated quote found\.\)/);
  const semicolons = runCli(['rescore', file('semi.csv', 'id;output;gold\nq1;A;A\n')]);
  assert.equal(semicolons.status, 2);
  assert.match(semicolons.stderr, /semi\.csv, line 1: the header is one column, "id;output;gold": CSV is read with commas, as Python's csv module reads it, and this file seems to separate with ";"/);
  const short = file('short.csv', 'id,output,gold\nq1,A,A\nq2,B\n');
  const s = runCli(['rescore', short]);
  assert.equal(s.status, 2);
  assert.match(s.stderr, /short\.csv, line 3: cannot read as csv \(Expected Number of Columns: 3 Found: 2\)/);
});

test('a run store inside a folder being imported is listed once as a store, not as five unknown files', () => {
  const folder = dir();
  writeFileSync(join(folder, 'a.jsonl'), good);
  const first = runCli(['import', folder, '--out', join(folder, 'store')]);
  assert.equal(first.status, 0, first.stderr);
  const again = runCli(['import', folder, '--out', join(dir(), 'store'), '--json']);
  assert.equal(again.status, 0, again.stderr);
  const summary = JSON.parse(again.stdout);
  assert.equal(summary.runs.length, 1);
  assert.deepEqual(summary.unrecognised, [
    { path: join(folder, 'store'), reason: 'an lmaudit run store, not an output file (rescore, diff and report read it as it is)' },
  ]);
});

test("a gold recorded as a number or boolean is the text Python's str() gives it, in JSONL and in Parquet", async () => {
  // str(json.loads(...)['gold']): 1.0 -> '1.0', 2 -> '2', 1e3 -> '1000.0', true -> 'True'; so outputs 1.0, 2 and True match.
  const jsonl = file('golds.jsonl', ['{"id": 1, "output": "1.0", "gold": 1.0}', '{"id": 2, "output": "2", "gold": 2}', '{"id": 3, "output": "1e3", "gold": 1e3}', '{"id": 4, "output": "True", "gold": true}'].join('\n') + '\n');
  const exact = (path: string) => {
    const r = runCli(['rescore', path, '--extractors', 'exact', '--normalizers', 'none', '--aggregations', 'micro', '--json']);
    assert.equal(r.status, 0, r.stderr);
    const cell = JSON.parse(r.stdout).cells[0];
    return [cell.correct, cell.n];
  };
  assert.deepEqual(exact(jsonl), [3, 4]);
  // Parquet through pandas: str(True) is 'True', str(-0.0) is '-0.0', str(1e16) is '1e+16', str(1.0) is '1.0'.
  const { DuckDBInstance } = await import('@duckdb/node-api');
  const conn = await (await DuckDBInstance.create(':memory:')).connect();
  const folder = dir();
  await conn.run(`COPY (SELECT * FROM (VALUES ('q1', 'True', true), ('q2', 'true', true)) t(id, output, gold)) TO '${join(folder, 'bools.parquet')}' (FORMAT parquet)`);
  await conn.run(`COPY (SELECT * FROM (VALUES ('q1', '1.0', 1.0::DOUBLE), ('q2', '-0.0', -0.0::DOUBLE), ('q3', '1e+16', 1e16::DOUBLE), ('q4', '1', 1.0::DOUBLE)) t(id, output, gold)) TO '${join(folder, 'doubles.parquet')}' (FORMAT parquet)`);
  assert.deepEqual(exact(join(folder, 'bools.parquet')), [1, 2]);
  assert.deepEqual(exact(join(folder, 'doubles.parquet')), [3, 4]);
});

test('a file no importer claims is refused with every format import reads named (the list named only lm-eval, Inspect and records)', () => {
  const path = join(dir(), 'SOURCES.md');
  writeFileSync(path, '# Sources\n\nWhere the files came from.\n');
  const r = runCli(['import', path, '--out', join(dir(), 'store')]);
  assert.equal(r.status, 2);
  assert.equal(
    r.stderr.trim(),
    `lmaudit: ${path}: not a file lmaudit can import (documentation, not an output file); expected the output of lm-eval, Inspect, HELM, lighteval, OpenCompass, Every Eval Ever or an agent harness (SWE-bench, Terminal-Bench, Harbor, mini-swe-agent), or JSONL/CSV/Parquet records`,
  );
});
