#!/usr/bin/env node
// `npm run demo`: lmaudit's main job on real lm-eval outputs that ship in fixtures/
// (no model, no network). Each step prints the command it runs, so the demo doubles
// as a tour. The store is written to a temporary folder and removed afterwards.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const work = mkdtempSync(join(tmpdir(), 'lmaudit-demo-'));
const store = join(work, 'store');

const STEPS = [
  ['Import every lm-eval output folder that ships in fixtures/ into one run store', ['import', 'fixtures/lmeval', '--out', store]],
  [
    "boolq-seq2seq (2023 lm-eval dev branch): lm-eval printed exact_match 0.0. Its own rule, re-applied, gives the same 0.0 ...",
    ['rescore', 'fixtures/lmeval/bigrefactor-2023-06', '--extractors', 'as-recorded'],
  ],
  [
    '... but every answer is " no"/" yes" against "no"/"yes": read with strip, most are right. The matrix shows how much the number depends on the reading',
    ['rescore', 'fixtures/lmeval/bigrefactor-2023-06'],
  ],
  [
    'asdiv (Llama-3-8B-Instruct, batch 8): the printed acc 0.92 ± 0.0387561713321444 reproduced digit for digit from the stored log-probs',
    ['rescore', 'fixtures/lmeval/pr2236-asdiv/asdiv', '--extractors', 'as-recorded'],
  ],
  [
    'wmdp_cyber (gpt-3.5-turbo): printed exact_match 1.0, reproduced, and the reason it cannot be right',
    ['rescore', 'fixtures/lmeval/pr1668-wmdp', '--extractors', 'as-recorded'],
  ],
  ['The whole store, one matrix per task', ['rescore', store]],
  [
    "An Inspect log: its own scorer (match) re-applied reproduces the log's accuracy 0.8 ± 0.1333, and the matrix reads the same answers Inspect's way and lm-eval's way side by side",
    ['rescore', 'fixtures/inspect/logs/2025-02-11T15-18-04-05-00_popularity_mj7khqpMM4GBCfVQozKgzB.eval', '--extractors', 'as-recorded,inspect-match,exact', '--normalizers', 'none,strip,lm-eval-exact-match'],
  ],
];

const DIFF_AND_REPORT = [
  [
    'asdiv at batch 8 vs batch 1: which settings differ, and does the score difference survive paired statistics?',
    ['diff', 'fixtures/lmeval/pr2236-asdiv/asdiv', 'fixtures/lmeval/pr2236-asdiv/asdiv_cot'],
  ],
  ['An audit appendix in Markdown for the batch-8 run against the batch-1 run', ['report', 'fixtures/lmeval/pr2236-asdiv/asdiv', '--against', 'fixtures/lmeval/pr2236-asdiv/asdiv_cot', '--format', 'md']],
];

// The generation stage: a short run of a fixture model (fixtures/models/, random weights: the
// scores are chance; what matters is that every request, response and setting is stored), then
// the same audit commands on the run it made.
const runStore = join(work, 'run-store');
const GENERATION = [
  [
    'Run lm-eval tasks on a local ONNX model (GPT-2 architecture, tiny, random weights): lm-eval\'s table, a store, and lm-eval\'s own results and samples files',
    ['run', '--model', 'onnx', '--model_args', 'pretrained=fixtures/models/gpt2-tiny', '--tasks', 'arc_easy,gsm8k', '--limit', '10', '--gen_kwargs', 'max_gen_toks=32', '--out', runStore, '--output_path', join(work, 'lmeval-out')],
  ],
  ['Rescore that run: the matrix of readings over its stored answers', ['rescore', runStore]],
  ['... and re-apply lm-eval\'s own rules to the stored responses: every printed number reproduced', ['rescore', runStore, '--extractors', 'as-recorded']],
];

function commandExists(name) {
  const r = spawnSync(process.execPath, ['bin/lmaudit.mjs', name, '--help'], { cwd: root, encoding: 'utf8' });
  return r.status === 0;
}

let failed = false;
try {
  const steps = [...STEPS, ...DIFF_AND_REPORT.filter(([, args]) => commandExists(args[0])), ...GENERATION];
  for (const [what, args] of steps) {
    console.log(`\n## ${what}\n$ lmaudit ${args.map((a) => (a.startsWith(work) ? a.replace(work, '$TMP') : a)).join(' ')}\n`);
    const r = spawnSync(process.execPath, ['bin/lmaudit.mjs', ...args], { cwd: root, stdio: 'inherit' });
    // Exit 1 is a finding (a violated falsifier), not a failure of the demo.
    if (r.status !== 0 && r.status !== 1) failed = true;
  }
} finally {
  if (existsSync(work)) rmSync(work, { recursive: true, force: true });
}
process.exit(failed ? 1 : 0);
