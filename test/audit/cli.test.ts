/**
 * The diff and report commands as a user runs them: exit codes (0, 1 for a
 * violated declared falsifier, 2 for bad input), --json, and --out written
 * whole or not at all.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { externalFixture } from '../helpers/fixtures.ts';
import { cliArgs } from '../helpers/cli.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const LMEVAL = externalFixture('lm-evaluation-harness/');
const ASDIV_A = `${LMEVAL}pr2236-asdiv/asdiv/meta-llama__Meta-Llama-3-8B-Instruct`;
const ASDIV_B = `${LMEVAL}pr2236-asdiv/asdiv_cot/meta-llama__Meta-Llama-3-8B-Instruct`;
const TQA = `${LMEVAL}pr3032-truthfulqa-gen`;

function lmaudit(...args: string[]) {
  const r = spawnSync(process.execPath, [...cliArgs, ...args], { cwd: ROOT, encoding: 'utf8', timeout: 120_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

test('diff --json on a real pair: exit 0 and the diff as JSON', () => {
  const r = lmaudit('diff', ASDIV_A, ASDIV_B, '--json', '--iterations', '200');
  assert.equal(r.code, 0, r.stderr);
  const json = JSON.parse(r.stdout);
  const t = json.comparisons[0].tasks[0];
  assert.equal(t.paired[0].result.n, 50);
  assert.equal(t.falsifier.status, 'holds');
  assert.equal(json.declared_falsifier, null);
});

test('diff prints a readable table by default', () => {
  const r = lmaudit('diff', ASDIV_A, ASDIV_B, '--iterations', '200');
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /batch_size\s+differs\s+"8"\s+"1"/);
  assert.match(r.stdout, /Falsifier \(holds\)/);
});

test('a declared falsifier: holds → exit 0; violated → exit 1 with the reason', () => {
  const holds = lmaudit('diff', ASDIV_A, ASDIV_B, '--falsifier', join(ROOT, 'audits/falsifiers/batch-size-invariance.yaml'), '--iterations', '200');
  assert.equal(holds.code, 0, holds.stderr);
  assert.match(holds.stdout, /Declared falsifier .* holds/);
  const violated = lmaudit('diff', TQA, TQA, '--run-a', '13-51-32', '--run-b', '14-30-51', '--falsifier', join(ROOT, 'audits/falsifiers/same-documents.yaml'), '--iterations', '200');
  assert.equal(violated.code, 1, violated.stderr);
  assert.match(violated.stderr, /is VIOLATED: truthfulqa_gen: .*the limit differs \(null vs 20\)/);
  assert.match(violated.stdout, /Falsifier \(violated\)/, 'the diff is still printed');
});

test('bad input exits 2 with a clear message', () => {
  const missing = lmaudit('diff', '/nonexistent/a', ASDIV_B);
  assert.equal(missing.code, 2);
  assert.match(missing.stderr, /\/nonexistent\/a: no such file or folder/);
  const iterations = lmaudit('diff', ASDIV_A, ASDIV_B, '--iterations', 'many');
  assert.equal(iterations.code, 2);
  assert.match(iterations.stderr, /--iterations must be an integer/);
  const dir = mkdtempSync(join(tmpdir(), 'lmaudit-falsifier-'));
  writeFileSync(join(dir, 'bad.yaml'), 'claim: x\nmust_agree: [fewshots]\n');
  const clause = lmaudit('diff', ASDIV_A, ASDIV_B, '--falsifier', join(dir, 'bad.yaml'));
  assert.equal(clause.code, 2);
  assert.match(clause.stderr, /bad\.yaml, field 'must_agree': unknown clause or field 'fewshots'/);
  writeFileSync(join(dir, 'extra.yaml'), 'claim: x\nthreshold: 2\n');
  assert.equal(lmaudit('diff', ASDIV_A, ASDIV_B, '--falsifier', join(dir, 'extra.yaml')).code, 2);
  const selector = lmaudit('diff', TQA, TQA, '--run-a', 'no-such-run');
  assert.equal(selector.code, 2);
  assert.match(selector.stderr, /no run of A matches 'no-such-run'/);
});

test('report --out writes the file whole; bad input writes nothing', () => {
  const dir = mkdtempSync(join(tmpdir(), 'lmaudit-report-'));
  const out = join(dir, 'appendix.html');
  const ok = lmaudit('report', ASDIV_A, '--against', ASDIV_B, '--out', out, '--iterations', '200');
  assert.equal(ok.code, 0, ok.stderr);
  assert.match(ok.stdout, /Wrote html report to/);
  assert.match(readFileSync(out, 'utf8'), /<\/html>\n$/);
  assert.deepEqual(readdirSync(dir), ['appendix.html'], 'no temporary file left behind');

  const bad = join(dir, 'bad.md');
  const r = lmaudit('report', '/nonexistent/run', '--out', bad);
  assert.equal(r.code, 2);
  assert.equal(existsSync(bad), false);
  const format = lmaudit('report', ASDIV_A, '--format', 'htm');
  assert.equal(format.code, 2);
  assert.match(format.stderr, /Unknown report format 'htm'\. Did you mean: html/);
  assert.deepEqual(readdirSync(dir), ['appendix.html']);
});

test('report --format md to stdout, and --json', () => {
  const md = lmaudit('report', `${TQA}/truthfulqa_gen_neo125_2025-05-31T14-30-51.983293.json`, '--format', 'md');
  assert.equal(md.code, 0, md.stderr);
  assert.match(md.stdout, /## Disclosure/);
  const json = lmaudit('report', `${TQA}/truthfulqa_gen_neo125_2025-05-31T14-30-51.983293.json`, '--json');
  assert.equal(json.code, 0, json.stderr);
  assert.equal(JSON.parse(json.stdout).report_version, 1);
});

test('report checks a declared falsifier too: violated → the report is written and the exit code is 1', () => {
  const dir = mkdtempSync(join(tmpdir(), 'lmaudit-report-f-'));
  const out = join(dir, 'appendix.md');
  const falsifier = join(ROOT, 'audits/falsifiers/same-documents.yaml');
  const r = lmaudit('report', TQA, '--against', TQA, '--run-a', '13-51-32', '--run-b', '14-30-51', '--falsifier', falsifier, '--out', out, '--iterations', '200');
  assert.equal(r.code, 1, r.stderr);
  assert.match(readFileSync(out, 'utf8'), /\*\*Declared falsifier \(violated\)\*\*/);
  const alone = lmaudit('report', ASDIV_A, '--falsifier', falsifier);
  assert.equal(alone.code, 2);
  assert.match(alone.stderr, /a declared falsifier compares two runs: give --against/);
});
