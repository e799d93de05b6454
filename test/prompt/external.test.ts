/**
 * Real lm-eval sample files from other people's runs (fixtures/external) whose
 * prompts depend on the document alone (0-shot): the rebuilt request arguments must be
 * byte-identical and, where the file records them, prompt_hash and doc_hash must match.
 * Task definitions: test/prompt/external/README.md.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { dumpsPy, parsePyJson } from '../../src/py/json.ts';
import { buildTask, type BuildOptions, type DocRequests } from '../../src/prompt/build.ts';
import { apiChatTemplate } from '../../src/prompt/chatTemplate.ts';
import { TaskIndex } from '../../src/tasks/index.ts';
import { externalFixture } from '../helpers/fixtures.ts';

const EXT = externalFixture('lm-evaluation-harness/');
const TASKS = fileURLToPath(new URL('./external/', import.meta.url));
type Sample = Record<string, unknown>;

function jsonl(file: string): Sample[] {
  const text = readFileSync(EXT + file, 'utf8');
  if (text.trimStart().startsWith('[')) return parsePyJson(text) as Sample[];
  return text.split('\n').filter(Boolean).map((l) => parsePyJson(l) as Sample);
}

/** The first request's argument tuple as the file logged it (0.4.x: gen_args_0 / arg_i; big-refactor: a bare list). */
function firstArgs(sample: Sample): unknown[] {
  const args = sample.arguments as unknown;
  if (Array.isArray(args)) return Array.isArray(args[0]) ? (args[0] as unknown[]) : args;
  const first = (args as Record<string, Record<string, unknown>>).gen_args_0!;
  return Object.keys(first).sort().map((k) => first[k]);
}

/** Documents as a local hub copy: `<root>/<dataset id>/<config>/<split>.jsonl`, in the samples' key order and float spelling. */
function hubCopy(id: string, config: string, split: string, docs: unknown[]): string {
  const root = mkdtempSync(join(tmpdir(), 'lmaudit-ext-'));
  mkdirSync(join(root, id, config), { recursive: true });
  writeFileSync(join(root, id, config, `${split}.jsonl`), docs.map((d) => `${dumpsPy(d)}\n`).join(''));
  return root;
}

async function build(task: string, options: Partial<BuildOptions> = {}, datasets?: string): Promise<DocRequests[]> {
  const previous = process.env.LMAUDIT_DATASETS;
  if (datasets) process.env.LMAUDIT_DATASETS = datasets;
  try {
    const index = new TaskIndex([TASKS]);
    const [config] = index.resolve([task]).tasks;
    return (await buildTask(config!, { roots: index.roots, ...options })).docs;
  } finally {
    if (datasets) {
      if (previous === undefined) delete process.env.LMAUDIT_DATASETS;
      else process.env.LMAUDIT_DATASETS = previous;
    }
  }
}

function compare(samples: Sample[], docs: DocRequests[], opts: { hashes: boolean; contextOnly?: boolean }): void {
  assert.ok(docs.length >= samples.length);
  let mismatched = 0;
  for (const s of samples) {
    const mine = docs[s.doc_id as number]!;
    const expected = firstArgs(s);
    const actual = mine.arguments[0]!;
    const same = opts.contextOnly ? dumpsPy(actual[0]) === dumpsPy(expected[0]) : dumpsPy(actual) === dumpsPy(expected);
    if (!same) {
      mismatched++;
      if (mismatched === 1) assert.deepEqual(actual, expected, `doc ${s.doc_id}`);
    }
    assert.equal(dumpsPy(mine.target), dumpsPy(s.target), `target of doc ${s.doc_id}`);
    if (opts.hashes) {
      assert.equal(mine.prompt_hash, s.prompt_hash, `prompt_hash of doc ${s.doc_id}`);
      assert.equal(mine.doc_hash, s.doc_hash, `doc_hash of doc ${s.doc_id}`);
    }
  }
  assert.equal(mismatched, 0);
}

test('pr3032 truthfulqa_gen: all 817 docs, arguments, prompt_hash and doc_hash', async () => {
  const samples = jsonl('pr3032-truthfulqa-gen/samples_truthfulqa_gen_2025-05-31T13-51-32.759677.jsonl');
  assert.equal(samples.length, 817);
  // truthfulqa_gen_as_run: the PR's YAML with lm-eval 0.4.8's default generation kwargs stated.
  const docs = await build('truthfulqa_gen_as_run', { genKwargs: { temperature: 0 } });
  compare(samples, docs, { hashes: true });
  const limited = jsonl('pr3032-truthfulqa-gen/samples_truthfulqa_gen_2025-05-31T14-30-51.983293.jsonl');
  compare(limited, docs, { hashes: true });
});

test('big-refactor winogrande (gpt2 default and pythia-2.8b runs): first request of each doc', async () => {
  const docs = await build('winogrande');
  compare(jsonl('bigrefactor-2023-06/_winogrande.jsonl'), docs, { hashes: false });
  compare(jsonl('bigrefactor-2023-06/pretrained=EleutherAI__pythia-2.8b_winogrande.jsonl'), docs, { hashes: false });
});

test('big-refactor trivia_qa: contexts and targets', async () => {
  const samples = jsonl('bigrefactor-2023-06/pretrained=EleutherAI__pythia-2.8b_trivia_qa_unfiltered.nocontext.jsonl');
  const root = hubCopy('trivia_qa', 'unfiltered.nocontext', 'validation', samples.map((s) => s.doc));
  // That branch did not yet add `until` to generation kwargs, so only contexts are compared.
  compare(samples, await build('trivia_qa_unfiltered.nocontext', {}, root), { hashes: false, contextOnly: true });
});

test('pr1668 wmdp_cyber through the OpenAI chat API (lm-eval 0.4.2): 100 docs', async () => {
  const samples = jsonl('pr1668-wmdp/model__gpt-3.5-turbo-0125_wmdp_cyber.jsonl');
  assert.equal(samples.length, 100);
  const root = hubCopy('cais/wmdp', 'wmdp-cyber', 'test', samples.map((s) => s.doc));
  // The run's --gen_kwargs until=.,max_gen_toks=10 merged into 0.4.2's default {until, do_sample}.
  const docs = await build('wmdp_cyber_as_run', { genKwargs: { until: '.', max_gen_toks: 10 } }, root);
  compare(samples, docs, { hashes: false });
});

test('pr3144 polymer_tg_prediction through openai-chat-completions (JSON chat prompts): 24 docs with hashes', async () => {
  const samples = jsonl('pr3144-tgpred/samples_polymer_tg_prediction_2025-06-30T19-40-09.461247.jsonl');
  const root = hubCopy('iamthomaspruyn/polymer-tg-prediction', 'default', 'train', samples.map((s) => s.doc));
  const docs = await build('polymer_tg_prediction', { chatTemplate: apiChatTemplate(), fewshotAsMultiturn: false }, root);
  compare(samples, docs, { hashes: true });
});
