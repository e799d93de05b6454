#!/usr/bin/env node
// Prompt-building throughput: MMLU 5-shot over all 14,042 test documents, lmaudit's
// builder (bundled with esbuild, run in a fresh Node process) against a plain Python 3
// + Jinja2 baseline (bench/prompts/baseline.py) that renders the same templates with
// lm-eval's Jinja settings and joins the few-shot examples the same way, re-rendering
// the shots for every prompt as lm-eval does. Each side times its own building (task
// config, data reading, rendering, joining, doc/prompt hashes; not interpreter start-up
// nor the output file); both then write the same JSONL, which must be byte-identical.
// Each side runs in 3 fresh processes and builds twice in each: the first build is cold
// (Node compiles its code as it goes), the second is steady-state throughput, which is
// the headline `speedup`; the cold ratio and the CPU-time ratio (all threads: Node's
// garbage collector runs on helper threads) are reported beside it. Best of 3 counts.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = fileURLToPath(new URL('../..', import.meta.url));
const work = mkdtempSync(join(tmpdir(), 'lmaudit-bench-prompts-'));
const entry = join(root, 'bench/prompts/.entry.bundle.mjs');
const RUNS = 3;

function run(cmd, args) {
  const r = spawnSync(cmd, args, { cwd: root, encoding: 'utf8', maxBuffer: 1 << 26 });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed (${r.status}):\n${r.stderr}`);
  return JSON.parse(r.stdout.trim().split('\n').at(-1));
}

const sha = (file) => createHash('sha256').update(readFileSync(file)).digest('hex');
try {
  await build({ entryPoints: [join(root, 'bench/prompts/entry.ts')], outfile: entry, bundle: true, platform: 'node', format: 'esm', target: 'node20', packages: 'external', logLevel: 'warning' });
  const ours = join(work, 'lmaudit.jsonl');
  const theirs = join(work, 'baseline.jsonl');
  const oursRuns = [];
  const baseRuns = [];
  for (let i = 0; i < RUNS; i++) {
    oursRuns.push(run(process.execPath, [entry, ours]));
    baseRuns.push(run(process.env.PYTHON ?? 'python3', [join(root, 'bench/prompts/baseline.py'), join(root, 'tasks'), join(root, 'fixtures/benchmarks'), theirs]));
  }
  const same = sha(ours) === sha(theirs);
  const docs = readFileSync(ours, 'utf8').split('\n').filter(Boolean).length;
  const best = (runs, phase, key) => Math.min(...runs.map((r) => r[phase][key]));
  const side = (runs) => ({ cold_s: best(runs, 'cold', 'build_s'), warm_s: best(runs, 'warm', 'build_s'), warm_cpu_s: best(runs, 'warm', 'cpu_s') });
  const o = side(oursRuns);
  const b = side(baseRuns);
  const r3 = (x) => +x.toFixed(3);
  const result = {
    bench: 'prompts',
    task: 'mmlu 5-shot',
    docs,
    lmaudit: { cold_s: r3(o.cold_s), warm_s: r3(o.warm_s), warm_cpu_s: r3(o.warm_cpu_s), warm_docs_per_s: Math.round(docs / o.warm_s) },
    python_jinja2: { cold_s: r3(b.cold_s), warm_s: r3(b.warm_s), warm_cpu_s: r3(b.warm_cpu_s), warm_docs_per_s: Math.round(docs / b.warm_s) },
    speedup: +(b.warm_s / o.warm_s).toFixed(2),
    speedup_cold: +(b.cold_s / o.cold_s).toFixed(2),
    speedup_cpu: +(b.warm_cpu_s / o.warm_cpu_s).toFixed(2),
    target_speedup: 3,
    identical_bytes: same,
  };
  console.log(JSON.stringify(result));
  if (!same) process.exitCode = 1;
} finally {
  rmSync(work, { recursive: true, force: true });
  rmSync(entry, { force: true });
}
