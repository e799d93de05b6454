/**
 * `report --json`: "with --out: print a JSON summary; without: the JSON report" (its help). With --out r.md it wrote
 * the JSON report into r.md and said `"format": "json"`: --json chose the format before --out's extension did.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fixturePath } from '../helpers/fixtures.ts';
import { runCli } from '../helpers/cli.ts';

test('report --out r.md --json writes Markdown and prints a JSON summary; --json alone prints the JSON report', () => {
  const out = join(mkdtempSync(join(tmpdir(), 'report-json-')), 'r.md');
  const r = runCli(['report', fixturePath('lmeval/bigrefactor-2023-06'), '--out', out, '--json']);
  assert.equal(r.status, 0, r.stderr);
  const summary = JSON.parse(r.stdout) as { out: string; format: string; bytes: number };
  assert.equal(summary.format, 'md');
  const text = readFileSync(out, 'utf8');
  assert.ok(text.startsWith('# Audit appendix: boolq-seq2seq\n'), text.slice(0, 80));
  assert.equal(summary.bytes, Buffer.byteLength(text));
  const alone = runCli(['report', fixturePath('lmeval/bigrefactor-2023-06'), '--json']);
  assert.equal(alone.status, 0, alone.stderr);
  assert.equal((JSON.parse(alone.stdout) as { report_version: number }).report_version, 1);
});
