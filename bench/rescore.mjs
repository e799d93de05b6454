#!/usr/bin/env node
// Rescoring throughput: the four-way letter sweep over 1,000,000 generated outputs
// (bench/generate_outputs.py), lmaudit against a plain Python 3 script that loads the
// JSONL with the stdlib, then scores the four rules in loops (bench/rescore_baseline.py):
// the reference, which it measured at about 0.67 GB for 1M records. Its leaner
// variant, which scores each line as it is read (--stream, about 65 MB), is timed too and
// its ratio printed beside. All are timed as whole fresh processes (start-up, loading and
// scoring included), 5 runs each, median reported; the counts must be identical, overall
// and per group.
//   from a store: the data imported once, then `lmaudit rescore <store>` (no cache of
//                 earlier rescoring exists: every run scores from the stored outputs);
//   from JSONL:   `lmaudit rescore big.jsonl` (imported on the fly).
// `--records N` changes the size; `--memory` also rescores 10,000,000 records from a
// store and reports the peak resident memory (target: under 2 GiB). The numbers and
// free-text sweeps are timed too, for information (`--letters-only` skips them).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const out = join(root, 'bench/out');
const args = process.argv.slice(2);
const records = Number(args[args.indexOf('--records') + 1] ?? 0) || 1_000_000;
const RUNS = 5;
const SWEEP = ['--extractors', 'exact,contains,first-letter,last-letter', '--normalizers', 'strip', '--aggregations', 'micro,macro'];
const RULE_OF = { exact: 'strip-equal', contains: 'substring', 'first-letter': 'first-letter', 'last-letter': 'last-letter' };

function timed(cmd, cmdArgs) {
  const started = process.hrtime.bigint();
  const r = spawnSync('/usr/bin/time', ['-f', '%M', cmd, ...cmdArgs], { cwd: root, encoding: 'utf8', maxBuffer: 1 << 28 });
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  if (r.status !== 0) throw new Error(`${cmd} ${cmdArgs.join(' ')} failed (${r.status}):\n${r.stderr.slice(-2000)}`);
  const peakKiB = Number(r.stderr.trim().split('\n').at(-1));
  return { seconds, peakMiB: peakKiB / 1024, stdout: r.stdout };
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

function ensureRecords(n) {
  const file = join(out, `outputs-${n}.jsonl`);
  if (!existsSync(file)) {
    console.log(`generating ${n.toLocaleString()} outputs → ${file}`);
    timed('python3', [join(root, 'bench/generate_outputs.py'), String(n), file]);
  }
  return file;
}

function importStore(file, n) {
  const store = join(out, `store-${n}`);
  rmSync(store, { recursive: true, force: true });
  const r = timed(process.execPath, ['bin/lmaudit.mjs', 'import', file, '--out', store]);
  return { store, seconds: r.seconds, peakMiB: r.peakMiB };
}

/** Checks lmaudit's cells against the baseline's counts, overall and per group. */
function checkCounts(baseline, report) {
  let checked = 0;
  for (const cell of report.cells) {
    const rule = RULE_OF[cell.extractor];
    if (cell.aggregation === 'micro') {
      if (cell.correct !== baseline.overall[rule].correct || cell.n !== baseline.n) {
        throw new Error(`count mismatch for ${rule}: lmaudit ${cell.correct}/${cell.n}, baseline ${baseline.overall[rule].correct}/${baseline.n}`);
      }
      checked++;
    } else {
      for (const g of cell.groups) {
        const b = baseline.groups[g.group][rule];
        if (g.correct !== b.correct || g.n !== b.n) throw new Error(`count mismatch for ${rule} in ${g.group}`);
        checked++;
      }
    }
  }
  return checked;
}

mkdirSync(out, { recursive: true });
const spawnBuild = spawnSync(process.execPath, ['scripts/build.mjs'], { cwd: root, stdio: 'inherit' });
if (spawnBuild.status !== 0) process.exit(1);
const file = ensureRecords(records);
const imported = importStore(file, records);

const baseTimes = [];
const streamTimes = [];
const storeTimes = [];
const jsonlTimes = [];
let baseline;
let fromStore;
let fromJsonl;
for (let i = 0; i < RUNS; i++) {
  const b = timed('python3', [join(root, 'bench/rescore_baseline.py'), file]);
  baseTimes.push(b.seconds);
  baseline = { ...JSON.parse(b.stdout), peakMiB: b.peakMiB };
  const streamed = timed('python3', [join(root, 'bench/rescore_baseline.py'), file, '--stream']);
  streamTimes.push(streamed.seconds);
  if (streamed.stdout !== b.stdout) throw new Error('the two baseline variants disagree');
  baseline.streamPeakMiB = streamed.peakMiB;
  const s = timed(process.execPath, ['bin/lmaudit.mjs', 'rescore', imported.store, '--json', ...SWEEP]);
  storeTimes.push(s.seconds);
  fromStore = { report: JSON.parse(s.stdout), peakMiB: s.peakMiB };
  const j = timed(process.execPath, ['bin/lmaudit.mjs', 'rescore', file, '--json', ...SWEEP]);
  jsonlTimes.push(j.seconds);
  fromJsonl = { report: JSON.parse(j.stdout), peakMiB: j.peakMiB };
}
const checked = checkCounts(baseline, fromStore.report) + checkCounts(baseline, fromJsonl.report);
const base = median(baseTimes);
console.log(`\nrescoring ${records.toLocaleString()} outputs, four-way letter sweep, micro + macro over 57 groups, with standard errors`);
console.log(`  counts identical to the baseline: ${checked} (cell, group) counts checked`);
const streamBase = median(streamTimes);
const runs = (times) => `(runs: ${times.map((t) => t.toFixed(2)).join(', ')})`;
const line = (label, text) => console.log(`  ${label.padEnd(62)}${text}`);
line('baseline: python3 stdlib json + re, loops (load, then score)', `${base.toFixed(3)} s  ${runs(baseTimes)}, peak ${baseline.peakMiB.toFixed(0)} MiB`);
line('the same, scoring each line as it is read (--stream)', `${streamBase.toFixed(3)} s  ${runs(streamTimes)}, peak ${baseline.streamPeakMiB.toFixed(0)} MiB`);
line('import once into a store (not in the ratio)', `${imported.seconds.toFixed(3)} s, peak ${imported.peakMiB.toFixed(0)} MiB`);
line('lmaudit rescore <store>', `${median(storeTimes).toFixed(3)} s  ${runs(storeTimes)}, peak ${fromStore.peakMiB.toFixed(0)} MiB`);
line('lmaudit rescore <jsonl> (import on the fly)', `${median(jsonlTimes).toFixed(3)} s  ${runs(jsonlTimes)}, peak ${fromJsonl.peakMiB.toFixed(0)} MiB`);
console.log(`  ratio from store: ${(base / median(storeTimes)).toFixed(2)}x (target 10x); against --stream ${(streamBase / median(storeTimes)).toFixed(2)}x`);
console.log(`  ratio from JSONL: ${(base / median(jsonlTimes)).toFixed(2)}x (target 3x); against --stream ${(streamBase / median(jsonlTimes)).toFixed(2)}x`);

// A seeded bootstrap needs every item's values in JS (CPython's random draws the resamples); timed for
// information, so that a cost that grows faster than the items shows here (20 replicates).
{
  const boot = timed(process.execPath, ['bin/lmaudit.mjs', 'rescore', imported.store, '--json', ...SWEEP, '--bootstrap', '20']);
  line('lmaudit rescore <store> --bootstrap 20 (no target)', `${boot.seconds.toFixed(3)} s, peak ${boot.peakMiB.toFixed(0)} MiB`);
  // Every item's readings written out (the per-item engine, then a Parquet file of items × cells rows), as
  // `rescore --out x.parquet` does and the viewer's task page needs.
  const out = join(root, 'bench/out', `rescores-${process.pid}.parquet`);
  rmSync(out, { force: true });
  try {
    const perItem = timed(process.execPath, ['bin/lmaudit.mjs', 'rescore', imported.store, '--json', ...SWEEP, '--out', out]);
    line('lmaudit rescore <store> --out x.parquet (no target)', `${perItem.seconds.toFixed(3)} s, peak ${perItem.peakMiB.toFixed(0)} MiB`);
  } finally {
    rmSync(out, { force: true });
  }
}

// The other default sweeps (no Python baseline: the target is the letter sweep). Each runs
// in DuckDB and is checked against the per-item JS engine on the same data.
if (!args.includes('--letters-only')) {
  console.log(`\nthe other default sweeps, ${records.toLocaleString()} outputs from JSONL (bulk engine vs the per-item JS engine; results required identical)`);
  for (const kind of ['numbers', 'free-text']) {
    const file = join(out, `${kind}-${records}.jsonl`);
    if (!existsSync(file)) timed('python3', [join(root, 'bench/generate_other_outputs.py'), kind, String(records), file]);
    const bulk = timed(process.execPath, ['bin/lmaudit.mjs', 'rescore', file, '--json']);
    const js = timed(process.execPath, ['bin/lmaudit.mjs', 'rescore', file, '--json', '--engine', 'js']);
    const [a, b] = [JSON.parse(bulk.stdout), JSON.parse(js.stdout)];
    if (JSON.stringify(a.cells) !== JSON.stringify(b.cells) || JSON.stringify(a.flips) !== JSON.stringify(b.flips)) {
      throw new Error(`${kind}: the bulk and JS engines disagree`);
    }
    console.log(`  ${kind.padEnd(9)} sweep (${a.cells.length / 2} cells)  engine ${a.scopes[0].engine}: ${bulk.seconds.toFixed(3)} s, peak ${bulk.peakMiB.toFixed(0)} MiB; JS engine ${js.seconds.toFixed(3)} s`);
  }
}

if (args.includes('--memory')) {
  const big = 10_000_000;
  const bigFile = ensureRecords(big);
  const bigStore = importStore(bigFile, big);
  const r = timed(process.execPath, ['bin/lmaudit.mjs', 'rescore', bigStore.store, '--json', ...SWEEP]);
  console.log(`\n  10,000,000 records: import ${bigStore.seconds.toFixed(1)} s (peak ${bigStore.peakMiB.toFixed(0)} MiB); rescore from store ${r.seconds.toFixed(1)} s, peak ${r.peakMiB.toFixed(0)} MiB (target < 2048 MiB)`);
}
