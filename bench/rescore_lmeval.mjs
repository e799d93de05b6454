#!/usr/bin/env node
// As-recorded rescoring of an lm-eval run against lm-eval's own scoring, in the same run:
//  - `lmaudit rescore <store> --extractors as-recorded --json` on the store of a truthfulqa_gen samples
//    file (bench/generate_lmeval_samples.py, imported as bench/import.mjs does): every item of the 12
//    metric cells recomputed through the ported process_results_gen, aggregated, stderr'd.
//  - bench/rescore_lmeval_baseline.py: lm-eval 0.4.13's own process_results_gen on every record of the
//    same file, then its own mean and stderr_for_metric. Without rouge_score installed (lm-eval's
//    truthfulqa dependency) it runs the BLEU half only and says so: the ratio is then a lower bound.
// Each side's CPU seconds (user + system) and wall time, alternated `--runs` times (default 3: the
// machine is shared); target lmaudit ≥ 3× faster (the median ratio of CPU seconds), with every value
// and stderr the baseline computed equal to lmaudit's to 1e-12 (relative). Then, for information, the
// store of 100,000 documents rescored once with its peak memory (target < 1 GiB; `--peak-docs N` for
// another size, 0 to skip), and the store of a samples file over 2 GiB (909,854 documents, the size
// bench/import.mjs --over-2gib makes; about 2.3 GiB written under bench/out/ the first time, and minutes
// to make and to rescore: `--skip-2gib` leaves it out). LMAUDIT_BENCH_PYTHON names the Python with lm-eval
// (else python3); without lm-eval the baseline row is skipped with a message.
//   --docs N        documents of the compared file (default 10,000: lm-eval's scoring takes minutes at 100,000)
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { availableParallelism, loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const args = process.argv.slice(2);
const option = (name, fallback) => (args.includes(name) ? Number(args[args.indexOf(name) + 1]) : fallback);
const docs = option('--docs', 10_000);
const runs = option('--runs', 3);
const peakDocs = option('--peak-docs', 100_000);
const python = process.env.LMAUDIT_BENCH_PYTHON ?? 'python3';
const TARGET = 3;
const SAMPLES = 'samples_truthfulqa_gen_2025-05-31T14-30-51.983293.jsonl';

function timed(cmd, cmdArgs, { mayFail = false } = {}) {
  const started = process.hrtime.bigint();
  const r = spawnSync('/usr/bin/time', ['-f', '%M %U %S', cmd, ...cmdArgs], { cwd: root, encoding: 'utf8', maxBuffer: 1 << 28 });
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const [peakKiB, user, system] = r.stderr.trim().split('\n').at(-1).split(' ').map(Number);
  if (r.status !== 0 && !mayFail) throw new Error(`${cmd} ${cmdArgs.join(' ')} failed (${r.status}):\n${r.stderr.slice(-2000)}`);
  return { status: r.status, stdout: r.stdout, stderr: r.stderr, seconds, cpu: user + system, peakMiB: peakKiB / 1024 };
}

/** The samples file and its store for `n` documents, made as bench/import.mjs makes them when absent. */
function storeFor(n) {
  const folder = join(root, `bench/out/lmeval-samples-${n}`);
  const store = join(root, `bench/out/lmeval-store-${n}`);
  if (!existsSync(join(folder, SAMPLES))) timed('python3', [join(root, 'bench/generate_lmeval_samples.py'), String(n), folder]);
  if (!existsSync(join(store, 'provenance.json'))) timed(process.execPath, ['bin/lmaudit.mjs', 'import', folder, '--out', store]);
  return { samples: join(folder, SAMPLES), store };
}

const rescore = (store) => timed(process.execPath, ['bin/lmaudit.mjs', 'rescore', store, '--extractors', 'as-recorded', '--json']);
const cellsOf = (stdout) => new Map(JSON.parse(stdout).as_recorded.flatMap((s) => s.cells).filter((c) => c.filter === 'none').map((c) => [c.metric, c]));
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const { samples, store } = storeFor(docs);
console.log(`\nas-recorded rescoring of a truthfulqa_gen run of ${docs.toLocaleString()} documents (12 metrics) against lm-eval 0.4.13's own process_results_gen + mean + stderr (${runs} runs of each, alternated)`);
const probe = spawnSync(python, ['-c', 'import lm_eval'], { encoding: 'utf8' });
let failed = false;
if (probe.status !== 0) {
  console.log(`  lm-eval baseline SKIPPED: ${python} cannot import lm_eval (set LMAUDIT_BENCH_PYTHON to a Python that has lm-eval 0.4.13)`);
} else {
  const ratios = [];
  let note = null;
  for (let run = 1; run <= runs; run++) {
    const base = timed(python, [join(root, 'bench/rescore_lmeval_baseline.py'), samples], { mayFail: true });
    if (base.status === 3) {
      console.log(`  lm-eval baseline SKIPPED: ${base.stderr.trim().split('\n')[0]}`);
      break;
    }
    if (base.status !== 0) throw new Error(`the baseline failed:\n${base.stderr.slice(-2000)}`);
    const ours = rescore(store);
    const reference = JSON.parse(base.stdout);
    note = reference.note;
    if (reference.records !== docs) throw new Error(`the baseline read ${reference.records} records, ${docs} expected`);
    const cells = cellsOf(ours.stdout);
    let worst = 0;
    for (const [metric, [value, stderr]] of Object.entries(reference.metrics)) {
      const c = cells.get(metric);
      if (c === undefined) throw new Error(`lmaudit has no ${metric} cell`);
      for (const [a, b] of [[c.value, value], [c.stderr, stderr]]) {
        const rel = Math.abs(a - b) / Math.max(1, Math.abs(b));
        worst = Math.max(worst, rel);
        if (!(rel <= 1e-12)) {
          console.log(`  ${metric}: lmaudit ${c.value} ± ${c.stderr}, lm-eval ${value} ± ${stderr}: NOT EQUAL`);
          failed = true;
        }
      }
    }
    const ratio = base.cpu / ours.cpu;
    ratios.push(ratio);
    console.log(`  run ${run}: lm-eval ${base.cpu.toFixed(2)} CPU s (${base.seconds.toFixed(2)} s wall); lmaudit ${ours.cpu.toFixed(2)} CPU s (${ours.seconds.toFixed(2)} s wall, peak ${ours.peakMiB.toFixed(0)} MiB): ${ratio.toFixed(2)}× less CPU; ${Object.keys(reference.metrics).length} metrics' values and stderrs equal (largest relative difference ${worst.toExponential(1)})`);
  }
  if (ratios.length > 0) {
    const m = median(ratios);
    if (note) console.log(`  note: ${note}`);
    console.log(`  lm-eval ÷ lmaudit CPU seconds: median ${m.toFixed(2)}× of ${ratios.map((r) => r.toFixed(2)).join(', ')} (target >= ${TARGET}×: ${m >= TARGET ? 'met' : 'MISSED'}${note ? ', against the BLEU half only' : ''})`);
    if (m < TARGET) failed = true;
  }
}
/** Rescores the store of `n` documents once and prints its peak against the 1 GiB target. */
function peakRow(n, what) {
  const r = rescore(storeFor(n).store);
  console.log(`  ${n.toLocaleString()} documents${what}: lmaudit rescore --extractors as-recorded ${r.cpu.toFixed(2)} CPU s (${r.seconds.toFixed(2)} s wall), peak ${r.peakMiB.toFixed(0)} MiB (target < 1024 MiB: ${r.peakMiB < 1024 ? 'met' : 'MISSED'})`);
  if (r.peakMiB >= 1024) failed = true;
}
if (peakDocs > 0) peakRow(peakDocs, '');
if (!args.includes('--skip-2gib')) {
  // As bench/import.mjs --over-2gib sizes it: bytes a document of the 10,000-document file, then enough documents for 2.2 GiB.
  const over2GiB = Math.ceil((2.2 * 2 ** 30) / (statSync(storeFor(10_000).samples).size / 10_000));
  peakRow(over2GiB, ` (a ${((statSync(storeFor(over2GiB).samples).size) / 2 ** 30).toFixed(2)} GiB samples file)`);
}
console.log(`  load average over the last minute when done: ${loadavg()[0].toFixed(2)} on ${availableParallelism()} cores`);
process.exitCode = failed ? 1 : 0;
