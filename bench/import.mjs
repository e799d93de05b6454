#!/usr/bin/env node
// Importing a large lm-eval samples file (for information; no issue sets a target here):
// 100,000 documents of real truthfulqa_gen records (bench/generate_lmeval_samples.py),
// `lmaudit import` timed as a fresh process with its peak resident memory. Records go into
// DuckDB as they are read, so memory stays near DuckDB's own limit (1 GB) whatever the
// file's size. Then the as-recorded rescoring of the store (every item of the 12 metric
// cells). For scale, the time Python's stdlib takes only to json.loads every line.
// `--docs N` changes the size.
import { spawnSync } from 'node:child_process';
import { existsSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const args = process.argv.slice(2);
const docs = Number(args[args.indexOf('--docs') + 1] ?? 0) || 100_000;
const folder = join(root, `bench/out/lmeval-samples-${docs}`);
const samples = join(folder, 'samples_truthfulqa_gen_2025-05-31T14-30-51.983293.jsonl');

function timed(cmd, cmdArgs) {
  const started = process.hrtime.bigint();
  const r = spawnSync('/usr/bin/time', ['-f', '%M', cmd, ...cmdArgs], { cwd: root, encoding: 'utf8', maxBuffer: 1 << 26 });
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  if (r.status !== 0) throw new Error(`${cmd} ${cmdArgs.join(' ')} failed (${r.status}):\n${r.stderr.slice(-2000)}`);
  return { seconds, peakMiB: Number(r.stderr.trim().split('\n').at(-1)) / 1024 };
}

if (!existsSync(samples)) timed('python3', [join(root, 'bench/generate_lmeval_samples.py'), String(docs), folder]);
const store = join(root, `bench/out/lmeval-store-${docs}`);
rmSync(store, { recursive: true, force: true });
const imported = timed(process.execPath, ['bin/lmaudit.mjs', 'import', folder, '--out', store]);
const asRecorded = timed(process.execPath, ['bin/lmaudit.mjs', 'rescore', store, '--extractors', 'as-recorded', '--json']);
const parse = timed('python3', ['-c', 'import json,sys\nfor line in open(sys.argv[1], encoding="utf-8"): json.loads(line)', samples]);
const mib = statSync(samples).size / 2 ** 20;
console.log(`\nimporting an lm-eval samples file of ${docs.toLocaleString()} documents (${mib.toFixed(0)} MiB)`);
console.log(`  lmaudit import                        ${imported.seconds.toFixed(2)} s, peak ${imported.peakMiB.toFixed(0)} MiB`);
console.log(`  lmaudit rescore <store> --extractors as-recorded (12 metrics, every item) ${asRecorded.seconds.toFixed(2)} s, peak ${asRecorded.peakMiB.toFixed(0)} MiB`);
console.log(`  python3: json.loads of every line only ${parse.seconds.toFixed(2)} s, peak ${parse.peakMiB.toFixed(0)} MiB (for scale)`);
