import { test } from 'node:test';
import assert from 'node:assert/strict';
import { planWork } from '../../src/run/schedule.ts';
import { generationSettings } from '../../src/run/generation.ts';
import type { BuiltTask } from '../../src/prompt/build.ts';
import { PyFloat } from '../../src/py/values.ts';
import { BadInputError } from '../../src/errors.ts';
import { repeatSeed } from '../../src/models/lm.ts';

function task(name: string, type: 'loglikelihood' | 'generate_until', args: unknown[][][], repeats = 1): BuiltTask {
  return {
    config: { task: name, repeats } as BuiltTask['config'],
    numFewshot: 0,
    fewshotAsMultiturn: false,
    evalDocCount: args.length,
    docs: args.map((a, i) => ({ task: name, doc_id: i, doc: {}, target: 0, request_type: type, arguments: a, doc_hash: '', prompt_hash: '', fewshot_doc_ids: [], system_message: null, target_delimiter_used: null, choices: null, gold: 0 })),
  };
}

test('identical requests are sent once and answered for each instance; held ones are left out; sampled repeats are separate draws, each with a seed of its own', () => {
  const mc = task('t', 'loglikelihood', [[['Q', ' a'], ['Q', ' b']], [['Q', ' a'], ['R', ' b']]]);
  const plan = planWork([mc], new Map(), new Set([`t\u00001\u00001\u00000`]));
  assert.deepEqual(plan.totals, { loglikelihood: 4 });
  assert.deepEqual(plan.held, { loglikelihood: 1 });
  assert.deepEqual(plan.items.map((i) => i.targets.map((t) => `${t.doc_id}/${t.request_idx}`)), [['0/0', '1/0'], ['0/1']]);

  const kwargs = { until: ['\n'], do_sample: true, temperature: new PyFloat(0.7) };
  const gen = task('g', 'generate_until', [[['P', kwargs]]], 3);
  const sampled = planWork([gen], new Map([['g', generationSettings(kwargs, 'g', 1234)]]), new Set());
  // The first repeat keeps the run's seed; the others, murmur3's finaliser over seed + repeat · 0x9e3779b9 (mod 2^32),
  // computed in Python: z = (1234 + r * 0x9e3779b9) & M; z = ((z ^ z >> 16) * 0x85ebca6b) & M;
  // z = ((z ^ z >> 13) * 0xc2b2ae35) & M; z ^ z >> 16, with M = 0xffffffff.
  assert.deepEqual(sampled.items.map((i) => (i.request as { settings: { seed: number } }).settings.seed), [1234, 1889054206, 3098527212]);
  // Runs at neighbouring seeds share no draw (under seed + repeat, seeds 1234 and 1235 shared 63 of 64).
  const seeds = (seed: number) => new Set(Array.from({ length: 64 }, (_, r) => repeatSeed(seed, r)));
  const a = seeds(1234);
  assert.equal([...seeds(1235)].filter((x) => a.has(x)).length, 0);
  assert.equal(a.size, 64);
  const greedy = planWork([gen], new Map([['g', generationSettings({ until: ['\n'] }, 'g', 1234)]]), new Set());
  assert.equal(greedy.items.length, 1);
  assert.equal(greedy.items[0]!.targets.length, 3);
});

test("generation settings as lm-eval's normalize_gen_kwargs reads them", () => {
  assert.deepEqual(generationSettings({ until: 'x', max_new_tokens: 7, temperature: new PyFloat(0.5), top_p: null }, 't', 0), { until: ['x'], maxGenToks: 7, doSample: true, temperature: 0.5, topP: null, topK: null, seed: 0, extra: {} });
  assert.deepEqual(generationSettings({ do_sample: false, temperature: new PyFloat(0.9), max_gen_toks: 3, max_tokens: 9, foo: 1 }, 't', 0), { until: [], maxGenToks: 3, doSample: false, temperature: 0, topP: null, topK: null, seed: null, extra: { foo: 1 } });
  assert.equal(generationSettings(null, 't', 0).maxGenToks, 256);
  assert.throws(() => generationSettings({ max_gen_toks: 'many' }, 'gsm', 0), /task 'gsm': generation kwarg max_gen_toks must be a non-negative integer/);
  // A mistyped sampling setting is refused, not dropped (dropped, top_k 'abc' drew from HF's default 50 best tokens).
  for (const key of ['top_k', 'top_p', 'seed']) {
    assert.throws(() => generationSettings({ do_sample: true, temperature: new PyFloat(0.7), [key]: 'abc' }, 'gsm', 0), (e: unknown) => e instanceof BadInputError && e.message === `field 'generation_kwargs.${key}': task 'gsm': generation kwarg ${key} must be a number, got "abc"`);
  }
});
