/**
 * Issue 15 part 2, a hidden finding: a folder whose samples file is gzipped (as shared lm-eval outputs often are) used
 * to import the results alone, and rescore said "no per-item records" without naming the file that holds them. A
 * gzipped samples file is now read as it streams (the store equals the one imported from the gunzipped file); any other
 * compressed file is named as not read, with the command that decompresses it, and naming one is exit 2.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { queryRows } from '../../src/util/duckdb.ts';
import { runCli } from '../helpers/cli.ts';

const SOURCE = 'fixtures/lmeval/pr3032-truthfulqa-gen';
const RESULTS = 'truthfulqa_gen_neo125_2025-05-31T14-30-51.983293.json';
const SAMPLES = 'samples_truthfulqa_gen_2025-05-31T14-30-51.983293.jsonl';

const rows = (store: string, table: string) =>
  queryRows<Record<string, unknown>>(`SELECT * EXCLUDE (run_id) FROM read_parquet('${join(store, `${table}.parquet`)}')`).then((r) => JSON.stringify(r, (_k, v) => (typeof v === 'bigint' ? String(v) : v)));

test('a gzipped samples file beside its results file is read as it streams: the same store as the gunzipped file gives', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'lmaudit-gz-'));
  for (const side of ['gz', 'plain']) {
    const folder = join(dir, side);
    mkdirSync(folder);
    copyFileSync(join(SOURCE, RESULTS), join(folder, RESULTS));
  }
  copyFileSync(join(SOURCE, SAMPLES), join(dir, 'plain', SAMPLES));
  writeFileSync(join(dir, 'gz', `${SAMPLES}.gz`), gzipSync(readFileSync(join(SOURCE, SAMPLES))));
  for (const side of ['gz', 'plain']) {
    const r = runCli(['import', join(dir, side), '--out', join(dir, `store-${side}`)]);
    assert.equal(r.status, 0, r.stderr);
  }
  for (const table of ['instances', 'responses', 'scores', 'filtered']) {
    assert.equal(await rows(join(dir, 'store-gz'), table), await rows(join(dir, 'store-plain'), table), table);
  }
  const n = await queryRows<{ n: number }>(`SELECT count(*)::INT AS n FROM read_parquet('${join(dir, 'store-gz', 'instances.parquet')}')`);
  assert.equal(n[0]!.n, readFileSync(join(SOURCE, SAMPLES), 'utf8').trim().split('\n').length);

  // A truncated gzip stream is a clear error naming the file, exit 2, no store.
  const whole = readFileSync(join(dir, 'gz', `${SAMPLES}.gz`));
  writeFileSync(join(dir, 'gz', `${SAMPLES}.gz`), whole.subarray(0, Math.floor(whole.length / 2)));
  const cut = runCli(['import', join(dir, 'gz'), '--out', join(dir, 'store-cut')]);
  assert.equal(cut.status, 2);
  assert.match(cut.stderr, new RegExp(`^lmaudit: ${join(dir, 'gz', SAMPLES).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\.gz: cannot read \\(unexpected end of file\\)`));
});

test('a samples file compressed some other way is named as not read beside its results, with the command that decompresses it', () => {
  const dir = mkdtempSync(join(tmpdir(), 'lmaudit-zst-'));
  copyFileSync(join(SOURCE, RESULTS), join(dir, RESULTS));
  writeFileSync(join(dir, `${SAMPLES}.zst`), Buffer.from([0x28, 0xb5, 0x2f, 0xfd, 0, 0, 0, 0]));
  const r = runCli(['rescore', dir]);
  assert.equal(r.status, 0, r.stderr);
  const lines = r.stdout.split('\n');
  const at = lines.findIndex((l) => l.includes('no per-item records imported (1 task(s) with reported numbers only)'));
  assert.ok(at >= 0, r.stdout);
  assert.equal(lines[at + 1], `  not read beside it: ${join(dir, `${SAMPLES}.zst`)} (zstd-compressed, which lmaudit does not read; decompress it first: unzstd ${join(dir, `${SAMPLES}.zst`)})`);
});

test('compressed files named on the command line: zstd, bzip2, xz, and gzip that is not lm-eval samples, are exit 2 saying what they are', () => {
  const dir = mkdtempSync(join(tmpdir(), 'lmaudit-packed-'));
  // The command names the file as given, so that it runs from where lmaudit ran (a bare name did not), quoted for the shell.
  const cases: [string, Buffer, string][] = [
    ['a.jsonl.zst', Buffer.from([0x28, 0xb5, 0x2f, 0xfd, 0, 0]), `zstd-compressed, which lmaudit does not read; decompress it first: unzstd ${join(dir, 'a.jsonl.zst')}`],
    ['b.jsonl.bz2', Buffer.from([0x42, 0x5a, 0x68, 0x39, 0x31]), `bzip2-compressed, which lmaudit does not read; decompress it first: bunzip2 ${join(dir, 'b.jsonl.bz2')}`],
    ['c.jsonl.xz', Buffer.from([0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00, 0x00]), `xz-compressed, which lmaudit does not read; decompress it first: unxz ${join(dir, 'c.jsonl.xz')}`],
    // Plain records (the generic importer's), gzipped: only lm-eval's samples reader decompresses.
    ['d.jsonl.gz', gzipSync('{"output": "A", "gold": "A"}\n'), `gzip-compressed, which lmaudit does not read; decompress it first: gunzip ${join(dir, 'd.jsonl.gz')}`],
    ["Bob's e.json.gz", gzipSync('{"results": {}}'), `gzip-compressed, which lmaudit does not read; decompress it first: gunzip '${join(dir, "Bob'\\''s e.json.gz")}'`],
  ];
  for (const [name, bytes, reason] of cases) {
    writeFileSync(join(dir, name), bytes);
    const r = runCli(['import', join(dir, name), '--out', join(dir, `store-${name}`)]);
    assert.equal(r.status, 2, name);
    assert.equal(r.stderr.trim(), `lmaudit: ${join(dir, name)}: not a file lmaudit can import: ${reason}`);
  }
  // The printed command does what it says, from a folder of its own.
  const command = /decompress it first: (.*)$/.exec(cases[4]![2])![1]!;
  const run = spawnSync('sh', ['-c', command], { cwd: tmpdir(), encoding: 'utf8' });
  assert.equal(run.status, 0, run.stderr);
  assert.equal(readFileSync(join(dir, "Bob's e.json"), 'utf8'), '{"results": {}}');
});
