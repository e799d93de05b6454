/**
 * Issue 15 part 2, "the environment is a setting": lm-eval's pretty_env_info (PyTorch's
 * collect_env report) becomes the environment disclosure item (GPUs, CPU, CUDA stack, OS,
 * library versions), shown in the settings diff and the summary; the raw text stays in the
 * key-by-key table; stores written before the item existed still open.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../helpers/cli.ts';
import { parseEnvInfo } from '../../src/import/lmeval/envInfo.ts';
import { DISCLOSURE_ITEMS } from '../../src/store/schema.ts';

const A = 'fixtures/lmeval/pr2236-asdiv/asdiv/meta-llama__Meta-Llama-3-8B-Instruct';
const TS = '2024-08-21T03-44-09.494230';
const envOf = (path: string) => JSON.parse(readFileSync(path, 'utf8')).pretty_env_info as string;

test('collect_env reports of the fixtures, read field by field (values as the texts print them)', () => {
  assert.deepEqual(parseEnvInfo(envOf(join(A, `results_${TS}.json`))), {
    gpu: '1 × NVIDIA H100 80GB HBM3',
    cpu: 'Intel(R) Xeon(R) Platinum 8470',
    accelerator: { cuda_available: true, cuda_runtime: '12.5.82', cuda_build: '12.1', nvidia_driver: '550.90.07' },
    os: 'Ubuntu 22.04.4 LTS (x86_64)',
    libraries: { torch: '2.3.1', numpy: '1.26.4', torchaudio: '2.3.1', torchvision: '0.18.1', triton: '2.3.1' },
  });
  assert.deepEqual(parseEnvInfo(envOf('fixtures/lmeval/pr3032-truthfulqa-gen/truthfulqa_gen_neo125_2025-05-31T14-30-51.983293.json')), {
    gpu: 'none (no CUDA)',
    cpu: 'Apple M2',
    accelerator: { cuda_available: false },
    os: 'macOS 15.3.2 (arm64)',
    libraries: { torch: '2.7.0', numpy: '2.2.6' },
  });
  // Several GPUs print one line each under the label; lm-eval writes an exception's text when collecting fails.
  assert.equal(parseEnvInfo('PyTorch version: 2.4.0\nGPU models and configuration: \nGPU 0: NVIDIA A100-SXM4-80GB\nGPU 1: NVIDIA A100-SXM4-80GB\nGPU 2: NVIDIA L4\nNvidia driver version: 535.1\n')!.gpu, '2 × NVIDIA A100-SXM4-80GB, 1 × NVIDIA L4');
  assert.equal(parseEnvInfo("'NoneType' object has no attribute 'splitlines'"), null);
});

function onOtherGpus(): string {
  const dir = mkdtempSync(join(tmpdir(), 'lmaudit-env-'));
  copyFileSync(join(A, `samples_asdiv_${TS}.jsonl`), join(dir, `samples_asdiv_${TS}.jsonl`));
  const json = JSON.parse(readFileSync(join(A, `results_${TS}.json`), 'utf8'));
  json.pretty_env_info = json.pretty_env_info
    .replace('GPU models and configuration: GPU 0: NVIDIA H100 80GB HBM3', 'GPU models and configuration: \nGPU 0: NVIDIA A100-SXM4-80GB\nGPU 1: NVIDIA A100-SXM4-80GB')
    .replace('[pip3] torch==2.3.1', '[pip3] torch==2.4.0');
  writeFileSync(join(dir, `results_${TS}.json`), JSON.stringify(json, null, 2));
  return dir;
}

test('diff: the environment differs in the settings diff and in the summary, raw text in the key-by-key table', () => {
  const r = runCli(['diff', A, onOtherGpus(), '--iterations', '100']);
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /: run level differs: environment\.gpu, environment\.libraries; hardware differs: GPUs 1 × NVIDIA H100 80GB HBM3 vs 2 × NVIDIA A100-SXM4-80GB; library versions differ: torch 2\.3\.1 vs 2\.4\.0$/m);
  assert.match(r.stdout, /^ {2}gpu +differs +"1 × NVIDIA H100 80GB HBM3" +"2 × NVIDIA A100-SXM4-80GB"/m);
  assert.match(r.stdout, /^pretty_env_info +differs +"PyTorch version: 2\.3\.1\\nIs debug build/m);
});

test('report: the disclosure count is of the thirteen items, environment among them', () => {
  assert.equal(DISCLOSURE_ITEMS.length, 13);
  const r = runCli(['report', 'fixtures/lmeval/pr2236-asdiv/asdiv', '--format', 'md']);
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /task asdiv: 12 of 13 disclosure items recorded/);
  assert.match(r.stdout, /^\| environment \| yes \| 5\/5 \| gpu="1 × NVIDIA H100 80GB HBM3"; cpu="Intel\(R\) Xeon\(R\) Platinum 8470"/m);
});

test('a store written before the environment item opens: the item reads unknown', () => {
  const store = join(mkdtempSync(join(tmpdir(), 'lmaudit-oldstore-')), 'store');
  assert.equal(runCli(['import', 'fixtures/lmeval/pr2236-asdiv/asdiv', '--out', store]).status, 0);
  const manifest = JSON.parse(readFileSync(join(store, 'provenance.json'), 'utf8'));
  for (const run of manifest.runs) delete run.environment;
  writeFileSync(join(store, 'provenance.json'), JSON.stringify(manifest));
  const r = runCli(['report', store, '--format', 'md']);
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /task asdiv: 11 of 13 disclosure items recorded/);
  assert.match(r.stdout, /^\| environment \| no \| 0\/5 \| not recorded \|/m);
  const d = runCli(['diff', store, 'fixtures/lmeval/pr2236-asdiv/asdiv_cot', '--iterations', '100']);
  assert.equal(d.status, 0, d.stderr);
  assert.match(d.stdout, /^environment +unknown in A +0 known +5 known/m);
});

test('diff summary: a backend setting recorded beside the library versions is called a setting, not a version', async () => {
  const { environmentSummary } = await import('../../src/report/diffText.ts');
  const libraries = (onnx: string, sharing: string, sampling: string) => ({ node: '20.20.2', 'onnxruntime-node': onnx, prefix_sharing: sharing, sampling_defaults: sampling });
  const field = (a: unknown, b: unknown) => ({ field: 'libraries', verdict: 'differs', a: { value: a }, b: { value: b } });
  const summary = (a: unknown, b: unknown) => environmentSummary({ items: [{ item: 'environment', fields: [field(a, b)] }] } as unknown as Parameters<typeof environmentSummary>[0]);
  assert.deepEqual(summary(libraries('1.30.0', 'on', 'top_k 50'), libraries('1.31.0', 'off', 'top_k 50')), ['library versions differ: onnxruntime-node 1.30.0 vs 1.31.0; backend settings differ: prefix_sharing on vs off']);
  assert.deepEqual(summary(libraries('1.30.0', 'on', 'top_k 50'), libraries('1.30.0', 'on', 'top_k 20')), ['backend settings differ: sampling_defaults top_k 50 vs top_k 20']);
  assert.deepEqual(summary({ torch: '2.3.1' }, { torch: '2.4.0', numpy: '2.2.6' }), ['library versions differ: numpy — vs 2.2.6, torch 2.3.1 vs 2.4.0']);
});
