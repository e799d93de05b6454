#!/usr/bin/env node
// The generation stage's targets, each measured against its baseline in this run:
//  1. lm-eval itself (`lm_eval --model hf`, torch on the CPU) vs `lmaudit run --model onnx` on the same
//     weights (a GPT-2-architecture model of ≥20M parameters that this bench builds), the same
//     loglikelihood requests (arc_easy, 100 documents, 5-shot): wall time of each whole process,
//     start-up included; target lmaudit ≥ 1.5× as fast, with every log-likelihood equal to 1e-4.
//  2. Prefix sharing on arc_easy 25-shot: forward-pass tokens and inference time with and without it;
//     targets ≥ 3× fewer tokens and ≥ 2× less time, equal results.
//  3. Harness overhead of the 5-shot run: the share of wall time outside inference calls; target ≤ 10%.
// Building the model and running lm-eval need a Python with torch, transformers, onnx and lm-eval
// (LMAUDIT_BENCH_PYTHON, else python3). Without one, row 1 is skipped and says so, and rows 2–3 run
// on the shipped tiny fixture model, which says so too (their targets are stated for the ≥20M model).
// Arguments: [docs] [shared-docs] [batch size].
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const docs = Number(process.argv[2] ?? 100);
const sharedDocs = Number(process.argv[3] ?? 20);
const batch = String(process.argv[4] ?? 4);
const python = process.env.LMAUDIT_BENCH_PYTHON ?? 'python3';
const work = mkdtempSync(join(tmpdir(), 'lmaudit-bench-gen-'));
const OFFLINE = { HF_DATASETS_OFFLINE: '1', HF_HUB_OFFLINE: '1', TRANSFORMERS_OFFLINE: '1', HF_HOME: join(work, 'hf-home'), TOKENIZERS_PARALLELISM: 'false' };
let failed = false;

function timed(cmd, args, env = {}) {
  const t0 = performance.now();
  const r = spawnSync(cmd, args, { cwd: root, encoding: 'utf8', env: { ...process.env, ...env }, maxBuffer: 256 * 1024 * 1024 });
  const seconds = (performance.now() - t0) / 1000;
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed (${r.status}):\n${(r.stderr ?? '').slice(-3000)}`);
  return { seconds, stdout: r.stdout };
}

function lmaudit(model, extraArgs, out, numFewshot, limit) {
  const args = ['run', '--model', 'onnx', '--model_args', `pretrained=${model}${extraArgs}`, '--tasks', 'arc_easy', '--num_fewshot', String(numFewshot), '--limit', String(limit), '--batch_size', batch, '--output_path', out, '--out', join(out, 'store'), '--json'];
  const r = timed(process.execPath, [join(root, 'bin/lmaudit.mjs'), ...args], { LMAUDIT_PROGRESS_SECONDS: '3600' });
  return { ...r, summary: JSON.parse(r.stdout) };
}

/** Log-likelihoods by (doc_id, choice) from a samples_arc_easy_*.jsonl under `dir`. */
function samples(dir) {
  const find = (d) => readdirSync(d, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? find(join(d, e.name)) : /^samples_arc_easy.*\.jsonl$/.test(e.name) ? [join(d, e.name)] : []));
  const [file] = find(dir);
  if (file === undefined) throw new Error(`no arc_easy samples under ${dir}`);
  const out = new Map();
  for (const line of readFileSync(file, 'utf8').trimEnd().split('\n')) {
    const s = JSON.parse(line);
    s.resps.forEach((r, i) => out.set(`${s.doc_id}/${i}`, Number(r[0][0])));
  }
  return out;
}

function compare(a, b, what) {
  let worst = 0;
  for (const [k, v] of a) {
    if (!b.has(k)) throw new Error(`${what}: ${k} missing`);
    worst = Math.max(worst, Math.abs(v - b.get(k)));
  }
  if (a.size !== b.size) throw new Error(`${what}: ${a.size} vs ${b.size} log-likelihoods`);
  return worst;
}

try {
  const probe = spawnSync(python, ['-c', 'import torch, transformers, onnx, lm_eval'], { encoding: 'utf8' });
  let model = join(root, 'fixtures/models/gpt2-tiny');
  let big = false;
  if (probe.status !== 0) {
    console.log(`lm-eval row skipped: ${python} cannot import torch, transformers, onnx and lm_eval (set LMAUDIT_BENCH_PYTHON to a Python that has them)`);
    console.log('the rows below run on the shipped tiny fixture model (fixtures/models/gpt2-tiny), not the ≥20M-parameter model their targets are stated for');
  } else {
    const built = join(work, 'model');
    const b = timed(python, [join(root, 'scripts/fixtures/make_models.py'), '--bench-model', built]);
    console.log(b.stdout.trim().split('\n').slice(-1)[0]);
    model = join(built, 'onnx');
    big = true;
    const lmevalOut = join(work, 'lmeval');
    const lmevalExe = join(dirname(python), 'lm_eval');
    const cmd = existsSync(lmevalExe) ? lmevalExe : python;
    const pre = existsSync(lmevalExe) ? [] : ['-m', 'lm_eval'];
    const theirs = timed(cmd, [...pre, '--model', 'hf', '--model_args', `pretrained=${join(built, 'hf')},dtype=float32`, '--tasks', 'arc_easy', '--include_path', join(root, 'scripts/fixtures/models/tasks'), '--num_fewshot', '5', '--limit', String(docs), '--batch_size', batch, '--device', 'cpu', '--log_samples', '--output_path', lmevalOut], { ...OFFLINE, PYTHONPATH: join(root, 'scripts/fixtures/models/stubs') });
    const ours = lmaudit(model, '', join(work, 'ours5'), 5, docs);
    const worst = compare(samples(join(work, 'ours5')), samples(lmevalOut), 'lm-eval vs lmaudit');
    const ratio = theirs.seconds / ours.seconds;
    console.log(`arc_easy 5-shot, ${docs} docs (${ours.summary.sent} loglikelihood requests), batch ${batch}: lm-eval (hf, torch CPU) ${theirs.seconds.toFixed(2)} s, lmaudit run (onnx) ${ours.seconds.toFixed(2)} s (whole processes, start-up included)`);
    console.log(`ratio: ${ratio.toFixed(2)}x (target 1.5x); largest |Δ log-likelihood| ${worst.toExponential(2)} (target ≤ 1e-4)`);
    if (ratio < 1.5 || worst > 1e-4) failed = true;
    const overhead = ours.summary.harness_overhead;
    console.log(`harness overhead of that run: ${(overhead * 100).toFixed(1)}% of ${ours.summary.wall_seconds.toFixed(2)} s outside inference calls (target ≤ 10%)`);
    if (overhead > 0.1) failed = true;
  }
  const on = lmaudit(model, '', join(work, 'shared-on'), 25, sharedDocs);
  const off = lmaudit(model, ',prefix_sharing=False', join(work, 'shared-off'), 25, sharedDocs);
  const worst = compare(samples(join(work, 'shared-on')), samples(join(work, 'shared-off')), 'prefix sharing');
  const tokens = off.summary.backend_counters.forward_tokens / on.summary.backend_counters.forward_tokens;
  const time = off.summary.inference_seconds / on.summary.inference_seconds;
  console.log(`prefix sharing, arc_easy 25-shot, ${sharedDocs} docs${big ? '' : ' (tiny fixture model)'}: forward-pass tokens ${off.summary.backend_counters.forward_tokens} → ${on.summary.backend_counters.forward_tokens} (${tokens.toFixed(2)}x fewer, target 3x); inference ${off.summary.inference_seconds.toFixed(2)} s → ${on.summary.inference_seconds.toFixed(2)} s (${time.toFixed(2)}x, target 2x); largest |Δ log-likelihood| ${worst.toExponential(2)}`);
  if (tokens < 3 || time < 2 || worst > 1e-4) failed = true;
  if (!big) console.log(`harness overhead (tiny fixture model, where inference is a few ms): ${(on.summary.harness_overhead * 100).toFixed(1)}%`);
} finally {
  rmSync(work, { recursive: true, force: true });
}
process.exit(failed ? 1 : 0);
