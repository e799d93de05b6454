#!/usr/bin/env node
// Prompt-building throughput: `lmaudit prompts --tasks mmlu --num_fewshot 5` (all 14,042
// test documents, the bundled CLI, start-up and data loading included) against a
// plain Python 3 + Jinja2 baseline doing the same work in the same run. The two
// outputs must be byte-identical; the ratio is baseline time / lmaudit time.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));
const work = mkdtempSync(join(tmpdir(), 'lmaudit-bench-prompts-'));
const ours = join(work, 'lmaudit.jsonl');
const theirs = join(work, 'baseline.jsonl');

function timed(cmd, args) {
  const start = process.hrtime.bigint();
  const r = spawnSync(cmd, args, { cwd: root, encoding: 'utf8', maxBuffer: 1 << 26 });
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed (${r.status}):\n${r.stderr}`);
  return seconds;
}

const sha = (file) => createHash('sha256').update(readFileSync(file)).digest('hex');
try {
  const tOurs = timed(process.execPath, [join(root, 'bin/lmaudit.mjs'), 'prompts', '--tasks', 'mmlu', '--num_fewshot', '5', '--out', ours, '--json']);
  const tBase = timed(process.env.PYTHON ?? 'python3', [join(root, 'bench/prompts/baseline.py'), join(root, 'tasks'), join(root, 'fixtures/benchmarks'), theirs]);
  const same = sha(ours) === sha(theirs);
  const lines = readFileSync(ours, 'utf8').split('\n').filter(Boolean).length;
  const ratio = tBase / tOurs;
  const result = { bench: 'prompts', task: 'mmlu 5-shot', docs: lines, lmaudit_s: +tOurs.toFixed(3), python_jinja2_s: +tBase.toFixed(3), speedup: +ratio.toFixed(2), identical_bytes: same, target_speedup: 3 };
  console.log(JSON.stringify(result));
  if (!same) process.exitCode = 1;
} finally {
  rmSync(work, { recursive: true, force: true });
}
