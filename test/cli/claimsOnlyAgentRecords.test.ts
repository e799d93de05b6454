import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runCli } from '../helpers/cli.ts';
import { externalFixture } from '../helpers/fixtures.ts';

// Harbor's seal0 adapter parity record: no trials, one claim, accuracy original "0.339 ± 0.030" vs harbor
// "0.333 ± 0.036". `ls` listed it as "—" (nothing reported: its claims are text, and only numbers were shown), and
// `rescore` printed one blank line (the run was counted as an agent run with trials, and had none to sweep).
const PARITY = externalFixture('agents/harbor-evolving-skills/adapters/seal0');
const JOB = externalFixture('agents/harbor-terminal-bench-experiments/configs/tb1-5/terminus-2/job.yaml');

test('ls shows a parity record\'s claims, which are text, instead of "—"', () => {
  const r = runCli(['ls', PARITY]);
  assert.equal(r.status, 0, r.stderr);
  const row = r.stdout.split('\n').find((l) => l.startsWith('  seal0 '))!;
  assert.match(row, /^ {2}seal0 +0 +0 +0:claude-code@2\.1\.81\+2\.1\.86:claude-haiku-4-5:SealQA \(seal_0\):accuracy \{"benchmark_name":"SealQA \(seal_0\)","metric":"accuracy","original":"0\.339 ± 0\.030","harbor":"0\.333 ± 0\.036",/);
  const json = JSON.parse(runCli(['ls', PARITY, '--json']).stdout);
  assert.equal(json.runs[0].tasks[0].reported_other[0].value.harbor, '0.333 ± 0.036');
});

test('rescore of agent records without trials says there is nothing to rescore, and why', () => {
  const parity = runCli(['rescore', PARITY]);
  assert.equal(parity.status, 0, parity.stderr);
  assert.match(parity.stdout, /^run harbor-[0-9a-f]{16} \(seal0\/parity_experiment\.json\): no per-item records imported \(1 task\(s\) with reported numbers only\), so nothing to rescore; `lmaudit diff` and `lmaudit report` still compare what it reported\n$/);
  const job = runCli(['rescore', JOB]);
  assert.equal(job.status, 0, job.stderr);
  assert.match(job.stdout, /^run harbor-[0-9a-f]{16} \(terminus-2\/job\.yaml\): no per-item records and no reported numbers imported \(settings only\), so nothing to rescore; `lmaudit diff` and `lmaudit report` still compare its settings\n$/);
});
