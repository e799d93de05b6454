#!/usr/bin/env node
// Sampled generation against greedy generation on the onnx backend, each measured against its baseline
// in this run, pairs alternated (the machine is shared; the median of the pairs' ratios is the figure):
//  1. CPU time of a generated token: `lmaudit run --tasks gsm8k --gen_kwargs do_sample=True,temperature=0.7`
//     against the same requests greedy. Both generate exactly max_gen_toks tokens a request (a stop
//     string that never appears), so each run's forward passes at batch 1 are its generated tokens;
//     the per-token figure is the inference thread's CPU time in the steps after each prefill (a forward pass of
//     one token and the choice of the next), ÷ the steps (backend counters generation_step_cpu_ms,
//     generation_steps). Target: sampled ≤ 1.3× greedy. The whole process's CPU less a 1-token run's, ÷ the
//     forward passes between, is printed beside it: the rest of the process (start-up, storing, scoring) does the
//     same work in both runs, and its noise swung that ratio 0.9–2.3× pair to pair.
//     The sampled runs set only do_sample and a temperature, so HF's default top_k 50 applies, as under lm-eval.
//  2. `repeats: 8` (a copy of gsm8k that samples 8 times a document) at --batch_size 8, the repeats
//     sharing one prefill, against --batch_size 1, each repeat its own prefill; the two runs' sampled
//     texts are required identical (the seeds are per repeat). For information.
// The model runs on one onnxruntime thread: a second one spin-waits, and its CPU time, moved by what else
// the machine runs, would swamp the difference measured.
// Arguments: [docs] [pairs] [max_gen_toks].
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const docs = Number(process.argv[2] ?? 20);
const pairs = Number(process.argv[3] ?? 5);
const maxGen = Number(process.argv[4] ?? 64);
const work = mkdtempSync(join(tmpdir(), 'lmaudit-bench-sampling-'));
const MODEL = 'fixtures/models/gpt2-tiny';
// A stop string no model output holds: every request runs to max_gen_toks (barring EOS, counted by the passes anyway).
const NEVER = '\u0001never\u0001';
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

let runs = 0;
/**
 * One `lmaudit run`, its JSON summary, and the CPU seconds (user + system) the process and its threads
 * used, from bash's `times` (the child's rusage): on a machine shared with other work, CPU time moves far
 * less than wall time does.
 */
function lmaudit(task, kwargs, batch, maxGenToks, extra = []) {
  const out = join(work, `run-${runs++}`);
  const args = ['run', '--model', 'onnx', '--model_args', `pretrained=${MODEL},threads=1`, '--include_path', join(work, 'tasks'), '--tasks', task, '--limit', String(docs), '--batch_size', String(batch), '--gen_kwargs', JSON.stringify({ max_gen_toks: maxGenToks, until: [NEVER], ...kwargs }), '--out', join(out, 'store'), '--json', ...extra];
  const script = `"$0" "$@" > "${join(work, 'summary.json')}" || exit $?; times`;
  const r = spawnSync('bash', ['-c', script, process.execPath, join(root, 'bin/lmaudit.mjs'), ...args], { cwd: root, encoding: 'utf8', env: { ...process.env, LMAUDIT_PROGRESS_SECONDS: '3600' } });
  if (r.status !== 0) throw new Error(`lmaudit ${args.join(' ')} failed (${r.status}):\n${r.stderr.slice(-3000)}`);
  // `times` prints the shell's own user/system times, then its children's: "0m1.234s 0m0.056s".
  const seconds = (t) => {
    const [, m, sec] = /^(\d+)m([\d.]+)s$/.exec(t);
    return Number(m) * 60 + Number(sec);
  };
  const [user, sys] = r.stdout.trim().split('\n').at(-1).split(/\s+/);
  return { summary: JSON.parse(readFileSync(join(work, 'summary.json'), 'utf8')), cpu: seconds(user) + seconds(sys), out };
}

/** Each document's sampled texts, in repeat order, from the run's lm-eval samples file. */
function sampledTexts(dir) {
  const lmeval = join(dir, 'lmeval');
  const files = readdirSync(lmeval, { recursive: true }).filter((f) => /samples_.*\.jsonl$/.test(String(f)));
  // A line per document and filter (gsm8k has two filters); the responses are the document's either way.
  const lines = readFileSync(join(lmeval, String(files[0])), 'utf8').trimEnd().split('\n').map((line) => {
    const s = JSON.parse(line);
    return `${s.doc_id}\t${JSON.stringify(s.resps)}`;
  });
  return [...new Set(lines)].sort();
}

try {
  // The shipped gsm8k, and a copy that samples eight times a document (as gsm8k_cot_self_consistency does, 64 times).
  const gsm8k = readFileSync(join(root, 'tasks/gsm8k/gsm8k.yaml'), 'utf8');
  const rep8 = gsm8k.replace(/^tag:\n(  - .*\n)+/m, '').replace(/^task: gsm8k$/m, 'task: gsm8k_rep8').replace(/^repeats: 1$/m, 'repeats: 8').replace('do_sample: false', 'do_sample: true').replace('temperature: 0.0', 'temperature: 0.7');
  if (!rep8.includes('repeats: 8') || !rep8.includes('do_sample: true')) throw new Error('tasks/gsm8k/gsm8k.yaml changed shape: the repeats copy could not be made');
  const tasks = join(work, 'tasks');
  spawnSync('mkdir', ['-p', tasks]);
  writeFileSync(join(tasks, 'gsm8k_rep8.yaml'), rep8);

  console.log(`sampled vs greedy: gsm8k, ${docs} documents, ${maxGen} tokens each, batch 1, gpt2-tiny on one thread (${pairs} pairs, alternated)`);
  console.log('  a token\'s CPU time: the inference thread\'s CPU in generation\'s steps after the prefill (a forward pass of one token and');
  console.log('  its choice each), ÷ the steps (backend counters generation_step_cpu_ms, generation_steps): the figure. Beside it, the');
  console.log(`  whole process: (CPU of the run − CPU of the same run generating 1 token) ÷ the forward passes between; start-up,`);
  console.log('  storing and scoring are the same work in both runs, and their noise is most of that difference (for information)');
  const ratios = [];
  const processRatios = [];
  // top_k=0 turns HF's default top-k off: temperature alone, drawn by rejection over the whole vocabulary (for information).
  const aloneRatios = [];
  for (let p = 0; p < (process.env.BENCH_SKIP_TOKENS ? 0 : pairs); p++) {
    const perToken = {};
    const perTokenProcess = {};
    for (const [name, kwargs] of [['greedy', {}], ['sampled', { do_sample: true, temperature: 0.7 }], ['T alone', { do_sample: true, temperature: 0.7, top_k: 0 }]]) {
      const one = lmaudit('gsm8k', kwargs, 1, 1);
      const full = lmaudit('gsm8k', kwargs, 1, maxGen);
      const c = full.summary.backend_counters;
      if (typeof c.generation_step_cpu_ms !== 'number') throw new Error('no generation_step_cpu_ms counter (it needs Linux\'s /proc/thread-self/schedstat)');
      perToken[name] = c.generation_step_cpu_ms / 1000 / c.generation_steps;
      const passes = c.forward_passes - one.summary.backend_counters.forward_passes;
      perTokenProcess[name] = (full.cpu - one.cpu) / passes;
      console.log(`  ${name.padEnd(7)} ${c.generation_steps} steps: inference thread ${(perToken[name] * 1000).toFixed(3)} CPU ms a token (${(1 / perToken[name]).toFixed(0)} tokens per CPU second); process ${full.cpu.toFixed(2)} − ${one.cpu.toFixed(2)} CPU s over ${passes} passes, ${(perTokenProcess[name] * 1000).toFixed(3)} CPU ms a token`);
    }
    ratios.push(perToken.sampled / perToken.greedy);
    aloneRatios.push(perToken['T alone'] / perToken.greedy);
    processRatios.push(perTokenProcess.sampled / perTokenProcess.greedy);
    console.log(`  pair ${p + 1}: a sampled token costs ${ratios.at(-1).toFixed(3)}× a greedy one (inference thread), ${processRatios.at(-1).toFixed(3)}× (process); temperature alone (top_k=0) ${aloneRatios.at(-1).toFixed(3)}×`);
  }
  const m = median(ratios);
  if (ratios.length > 0) {
    console.log(`sampled ÷ greedy CPU time a token, inference thread: median ${m.toFixed(3)}× (${ratios.map((r) => r.toFixed(3)).join(', ')}; target ≤ 1.3×) ${m <= 1.3 ? 'MET' : 'NOT MET'}`);
    console.log(`sampled ÷ greedy CPU time a token, whole process: median ${median(processRatios).toFixed(3)}× (${processRatios.map((r) => r.toFixed(3)).join(', ')}; for information)`);
    console.log(`temperature alone (top_k=0) ÷ greedy, inference thread: median ${median(aloneRatios).toFixed(3)}× (${aloneRatios.map((r) => r.toFixed(3)).join(', ')}; for information)`);
  }

  console.log(`\nrepeats: 8 (gsm8k_rep8, do_sample, temperature 0.7), ${docs} documents, ${maxGen} tokens a repeat: batch 8 (one prefill shared by the repeats) vs batch 1 (a prefill each)`);
  const speedups = [];
  for (let p = 0; p < Math.max(1, Math.ceil(pairs / 2)); p++) {
    const separate = lmaudit('gsm8k_rep8', {}, 1, maxGen, ['--output_path', join(work, `sep-${p}`, 'lmeval')]);
    const batched = lmaudit('gsm8k_rep8', {}, 8, maxGen, ['--output_path', join(work, `bat-${p}`, 'lmeval')]);
    const a = sampledTexts(join(work, `sep-${p}`));
    const b = sampledTexts(join(work, `bat-${p}`));
    if (a.length !== docs) throw new Error(`${a.length} documents in the samples file, ${docs} expected`);
    const differs = a.findIndex((line, i) => line !== b[i]);
    if (differs >= 0) throw new Error(`the batched repeats drew other texts than the separate ones:\n${a[differs]}\n${b[differs]}`);
    speedups.push(separate.cpu / batched.cpu);
    const row = (r) => `${r.cpu.toFixed(2)} CPU s (${r.summary.inference_seconds.toFixed(2)} s of inference wall, ${r.summary.backend_counters.forward_tokens} forward tokens)`;
    console.log(`  pair ${p + 1}: separate ${row(separate)}, batched ${row(batched)}: ${speedups.at(-1).toFixed(2)}× less CPU, texts identical`);
  }
  console.log(`repeats batched vs separate: median ${median(speedups).toFixed(2)}× less CPU, whole runs (for information), ${docs * 8} sampled texts identical`);
  if (m > 1.3) process.exitCode = 1;
} finally {
  rmSync(work, { recursive: true, force: true });
}
