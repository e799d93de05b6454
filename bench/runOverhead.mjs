#!/usr/bin/env node
// `lmaudit run`'s harness overhead: the share of a run's wall time spent outside the inference
// calls (target: at most 10%). The dummy backend stands in for a model that takes LATENCY ms per
// batch; the run measures its own inference time and wall time (bundled CLI, --json), and this
// script also times the whole process (start-up included). Arguments: [latency_ms] [limit].
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const latency = Number(process.argv[2] ?? 100);
const limit = Number(process.argv[3] ?? 500);
const work = mkdtempSync(join(tmpdir(), 'lmaudit-bench-run-'));
try {
  const args = ['run', '--model', 'dummy', '--model_args', `latency_ms=${latency}`, '--tasks', 'arc_easy', '--limit', String(limit), '--batch_size', '8', '--out', join(work, 'store'), '--json'];
  const t0 = performance.now();
  const r = spawnSync(process.execPath, [join(root, 'bin/lmaudit.mjs'), ...args], { cwd: work, encoding: 'utf8', env: { ...process.env, LMAUDIT_PROGRESS_SECONDS: '3600' } });
  const processSeconds = (performance.now() - t0) / 1000;
  if (r.status !== 0) throw new Error(`lmaudit run failed:\n${r.stderr}`);
  const s = JSON.parse(r.stdout);
  const outside = s.wall_seconds - s.inference_seconds;
  const share = outside / s.wall_seconds;
  const shareProcess = (processSeconds - s.inference_seconds) / processSeconds;
  console.log(`run: ${s.sent} requests in batches of 8, ${latency} ms per batch (dummy backend)`);
  console.log(`inference ${s.inference_seconds.toFixed(2)} s of ${s.wall_seconds.toFixed(2)} s run wall: harness overhead ${(share * 100).toFixed(1)}% (target ≤ 10%)`);
  console.log(`whole process ${processSeconds.toFixed(2)} s (start-up included): ${(shareProcess * 100).toFixed(1)}% outside inference`);
  process.exit(share <= 0.1 ? 0 : 1);
} finally {
  rmSync(work, { recursive: true, force: true });
}
