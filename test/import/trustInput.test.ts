/**
 * Issue 15 parts 3 and 4, the pieces the hostile corpus does not show by exit code alone:
 * text back from the store byte for byte, the streamed line reader and hash at chunk
 * edges, DuckDB's spill folder and its cleanup after a kill.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cliArgs, repoRoot, runCli } from '../helpers/cli.ts';
import { readLines } from '../../src/util/lines.ts';
import { hashCheckingUtf8 } from '../../src/util/utf8.ts';
import { queryRows } from '../../src/util/duckdb.ts';
import { BadInputError } from '../../src/errors.ts';

const dir = () => mkdtempSync(join(tmpdir(), 'lmaudit-trust-'));

test('text read from the store keeps a leading U+FEFF (lm-eval scores "\\ufeff8" against "8" as wrong)', () => {
  const d = dir();
  const file = join(d, 'feff.jsonl');
  writeFileSync(file, '{"id": "q1", "output": "\\ufeff8", "gold": "8"}\n{"id": "q2", "output": "8", "gold": "8"}\n');
  const store = join(d, 'store');
  assert.equal(runCli(['import', file, '--out', store]).status, 0);
  for (const engine of ['js', 'sql']) {
    const r = runCli(['rescore', store, '--extractors', 'exact', '--normalizers', 'none', '--engine', engine, '--json']);
    assert.equal(r.status, 0, r.stderr);
    const micro = (JSON.parse(r.stdout) as { cells: { aggregation: string; score: number; correct: number }[] }).cells.find((c) => c.aggregation === 'micro')!;
    // Python: "\ufeff8" == "8" is False, "8" == "8" is True.
    assert.deepEqual({ engine, score: micro.score, correct: micro.correct }, { engine, score: 0.5, correct: 1 });
  }
});

test('every text DuckDB hands back comes back byte for byte', async () => {
  const rows = await queryRows<{ t: string }>("SELECT chr(65279) || '8' AS t UNION ALL SELECT chr(65279) || repeat('x', 40) ORDER BY t");
  assert.deepEqual(rows.map((r) => [r.t.codePointAt(0), r.t.length]), [[0xfeff, 2], [0xfeff, 41]]);
});

async function lines(file: string, onInvalid?: (line: number, reason: string) => void): Promise<[number, string][]> {
  const out: [number, string][] = [];
  for await (const { line, text } of readLines(file, onInvalid)) out.push([line, text]);
  return out;
}

test('the line reader: CRLF, a leading BOM, lines longer than its chunk, a character across a chunk edge', async () => {
  const d = dir();
  const file = join(d, 'lines.jsonl');
  // 'é' is two bytes; placed so that it straddles the reader's 1 MiB chunk edge.
  const long = `${'a'.repeat((1 << 20) - 5)}é${'b'.repeat(3 << 20)}`;
  writeFileSync(file, `\ufeff{"a": 1}\r\n\r\n${long}\nlast "é" line`);
  const got = await lines(file);
  assert.deepEqual(got.map(([n, t]) => [n, t.length]), [[1, 8], [2, 0], [3, long.length], [4, 13]]);
  assert.equal(got[2]![1], long);
  assert.equal(got[3]![1], 'last "é" line');
});

test('the line reader refuses invalid UTF-8 naming the line, or reports it to --skip-bad', async () => {
  const d = dir();
  const file = join(d, 'bad.jsonl');
  writeFileSync(file, Buffer.concat([Buffer.from('{"a": "ok"}\n{"a": "'), Buffer.from([0xe9]), Buffer.from('"}\n{"a": "fine"}\n')]));
  await assert.rejects(lines(file), (e: unknown) => e instanceof BadInputError && e.where.line === 2 && /not valid UTF-8/.test(e.detail));
  const skipped: number[] = [];
  assert.deepEqual(await lines(file, (line) => skipped.push(line)), [[1, '{"a": "ok"}'], [3, '{"a": "fine"}']]);
  assert.deepEqual(skipped, [2]);
  // Python's open(encoding='utf-8') refuses surrogates and overlong forms too.
  for (const bytes of [[0xed, 0xa0, 0x80], [0xc0, 0xaf], [0xf4, 0x90, 0x80, 0x80]]) {
    writeFileSync(file, Buffer.concat([Buffer.from('x'), Buffer.from(bytes), Buffer.from('\n')]));
    await assert.rejects(lines(file), /line 1: not valid UTF-8/);
  }
});

test('the streamed hash and UTF-8 check agree with a whole-file sha256 and find a bad byte past a chunk edge', async () => {
  const d = dir();
  const file = join(d, 'big.jsonl');
  const good = Buffer.from(`${'{"id": "é"}\n'.repeat(800_000)}`); // 10.4 MB: two 8 MiB chunks, 'é' split at the edge somewhere
  writeFileSync(file, good);
  const whole = createHash('sha256').update(good).digest('hex');
  assert.deepEqual(await hashCheckingUtf8(file), { sha256: whole, invalidAt: null, line: null });
  const bad = Buffer.concat([good, Buffer.from([0xff]), Buffer.from('\n')]);
  writeFileSync(file, bad);
  const scan = await hashCheckingUtf8(file);
  assert.deepEqual({ invalidAt: scan.invalidAt, line: scan.line }, { invalidAt: good.length, line: 800_001 });
});

test("DuckDB spills to this process's folder in the system temp folder, not .tmp in the current directory", async () => {
  const [row] = await queryRows<{ t: string }>("SELECT current_setting('temp_directory') AS t");
  assert.equal(row!.t, join(tmpdir(), row!.t.slice(tmpdir().length + 1)));
  assert.match(row!.t.slice(tmpdir().length + 1), new RegExp(`^lmaudit-spill-${process.pid}-[0-9a-f]{8}$`));
});

test('a spill folder a killed run left behind is removed by the next run, and the run leaves none', () => {
  const d = dir();
  const temp = join(d, 'temp');
  mkdirSync(temp);
  // A process id that is gone: a child that has exited.
  const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' }).stdout;
  const abandoned = join(temp, `lmaudit-spill-${dead}-0badf00d`);
  mkdirSync(abandoned);
  writeFileSync(join(abandoned, 'duckdb_temp_storage-0.tmp'), Buffer.alloc(1024));
  const live = join(temp, `lmaudit-spill-${process.pid}-0000cafe`);
  mkdirSync(live);
  const file = join(d, 'a.jsonl');
  writeFileSync(file, '{"id": "q1", "output": "B", "gold": "B"}\n');
  // Run from the case's folder (runCli resolves tsx from its cwd).
  const r = spawnSync(process.execPath, [...cliArgs, 'rescore', file, '--json'], {
    cwd: d, encoding: 'utf8', env: { ...process.env, TMPDIR: temp },
  });
  assert.equal(r.status, 0, r.stderr);
  assert.equal(existsSync(abandoned), false);
  assert.equal(existsSync(live), true, "a running process's folder is left alone");
  assert.deepEqual(readdirSync(temp).filter((n) => n.startsWith('lmaudit-spill-')), [`lmaudit-spill-${process.pid}-0000cafe`]);
  assert.equal(existsSync(join(d, '.tmp')), false);
});
