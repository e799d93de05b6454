/**
 * Issue 15 part 2, a hidden finding: a folder whose samples file is gzipped (as shared outputs often are) imports the
 * results alone. "No per-item records" was then said without naming the file that holds them; now the rescore names
 * every file of the run's folder it did not read, with why, and naming a compressed file is exit 2 saying what it is.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { runCli } from '../helpers/cli.ts';

const SOURCE = 'fixtures/lmeval/pr3032-truthfulqa-gen';
const RESULTS = 'truthfulqa_gen_neo125_2025-05-31T14-30-51.983293.json';
const SAMPLES = 'samples_truthfulqa_gen_2025-05-31T14-30-51.983293.jsonl';

test('a gzipped samples file beside a results file is named as not read, with the command that decompresses it', () => {
  const dir = mkdtempSync(join(tmpdir(), 'lmaudit-gz-'));
  copyFileSync(join(SOURCE, RESULTS), join(dir, RESULTS));
  writeFileSync(join(dir, `${SAMPLES}.gz`), gzipSync(readFileSync(join(SOURCE, SAMPLES))));
  const r = runCli(['rescore', dir]);
  assert.equal(r.status, 0, r.stderr);
  const lines = r.stdout.split('\n');
  const at = lines.findIndex((l) => l.includes('no per-item records imported (1 task(s) with reported numbers only)'));
  assert.ok(at >= 0, r.stdout);
  assert.equal(lines[at + 1], `  not read beside it: ${join(dir, `${SAMPLES}.gz`)} (gzip-compressed, which lmaudit does not read; decompress it first: gunzip ${SAMPLES}.gz)`);

  const named = runCli(['import', join(dir, `${SAMPLES}.gz`), '--out', join(dir, 'store')]);
  assert.equal(named.status, 2);
  assert.equal(named.stderr.trim(), `lmaudit: ${join(dir, `${SAMPLES}.gz`)}: not a file lmaudit can import: gzip-compressed, which lmaudit does not read; decompress it first: gunzip ${SAMPLES}.gz`);
});

test('zstd, bzip2 and xz are known by their magic numbers too', () => {
  const dir = mkdtempSync(join(tmpdir(), 'lmaudit-packed-'));
  const cases: [string, number[], string][] = [
    ['a.jsonl.zst', [0x28, 0xb5, 0x2f, 0xfd, 0, 0], 'zstd-compressed, which lmaudit does not read; decompress it first: unzstd a.jsonl.zst'],
    ['b.jsonl.bz2', [0x42, 0x5a, 0x68, 0x39, 0x31], 'bzip2-compressed, which lmaudit does not read; decompress it first: bunzip2 b.jsonl.bz2'],
    ['c.jsonl.xz', [0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00, 0x00], 'xz-compressed, which lmaudit does not read; decompress it first: unxz c.jsonl.xz'],
  ];
  for (const [name, bytes, reason] of cases) {
    writeFileSync(join(dir, name), Buffer.from(bytes));
    const r = runCli(['import', join(dir, name), '--out', join(dir, `store-${name}`)]);
    assert.equal(r.status, 2, name);
    assert.equal(r.stderr.trim(), `lmaudit: ${join(dir, name)}: not a file lmaudit can import: ${reason}`);
  }
});
