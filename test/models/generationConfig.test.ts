/**
 * The sampling warpers a sampled request is drawn with on the onnx backend, against HF's own choice:
 * fixtures/models/hf-sampling-warpers.json holds, for each (generation_config.json, request kwargs)
 * case, the warpers transformers 5.18's `_prepare_generation_config` and `_get_logits_processor`
 * built (scripts/fixtures/hf_sampling_warpers.py). HF adds a warper for temperature ≠ 1.0, top_k ≠ 0
 * and top_p < 1.0; the same rule is applied here to what samplingWarpers resolves.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { checkAppliedSettings, describeSamplingDefaults, parseSamplingDefaults, samplingWarpers, unsupportedAtLoad } from '../../src/models/onnx/generationConfig.ts';
import type { GenerationSettings } from '../../src/models/lm.ts';
import { BadInputError, UnsupportedError } from '../../src/errors.ts';
import { PyFloat } from '../../src/py/values.ts';

interface Case { generation_config: Record<string, unknown>; kwargs: Record<string, number | boolean>; warpers: { warper: string; value?: number }[] }
const fixture = JSON.parse(readFileSync('fixtures/models/hf-sampling-warpers.json', 'utf8')) as { cases: Case[] };
const FILE = 'model/generation_config.json';

const settings = (kw: Record<string, unknown>): GenerationSettings => ({
  until: [], maxGenToks: 8, doSample: kw.do_sample === true,
  temperature: (kw.temperature as number | undefined) ?? null, topK: (kw.top_k as number | undefined) ?? null, topP: (kw.top_p as number | undefined) ?? null,
  seed: 1, extra: (kw.extra as Record<string, unknown> | undefined) ?? {},
});

test('a sampled request gets the warpers HF builds: its own settings, else generation_config.json\'s, else top_k 50', () => {
  assert.ok(fixture.cases.length >= 9);
  for (const c of fixture.cases) {
    const w = samplingWarpers(settings(c.kwargs), c.generation_config, FILE);
    const ours = [
      ...(w.temperature !== 1 ? [{ warper: 'temperature', value: w.temperature }] : []),
      ...(w.topK !== null ? [{ warper: 'top_k', value: w.topK }] : []),
      ...(w.topP < 1 ? [{ warper: 'top_p', value: w.topP }] : []),
    ];
    assert.deepEqual(ours, c.warpers, `${JSON.stringify(c.generation_config)} ${JSON.stringify(c.kwargs)}`);
  }
});

test('the provenance names each unset warper\'s source and value', () => {
  assert.equal(describeSamplingDefaults(null), "a sampled request's unset top_k 50 (HF's default), top_p 1.0 (HF's default)");
  assert.equal(describeSamplingDefaults({ temperature: 0.6, top_k: 20, top_p: 0.95 }), "a sampled request's unset top_k 20 (generation_config.json), top_p 0.95 (generation_config.json)");
});

test('the provenance text reads back as the values it names (the EEE export fills generation_args from it)', () => {
  assert.deepEqual(parseSamplingDefaults(describeSamplingDefaults(null)), { top_k: 50, top_p: 1 });
  // A temperature in generation_config.json is never a sampled request's (lm-eval always sends one): not named.
  assert.deepEqual(parseSamplingDefaults(describeSamplingDefaults({ temperature: 0.6, top_k: 20, top_p: 0.95 })), { top_k: 20, top_p: 0.95 });
  assert.equal(parseSamplingDefaults('something else'), null);
  assert.equal(parseSamplingDefaults(undefined), null);
});

test('settings HF would apply and this backend would not are refused, each only where HF applies it', () => {
  const sampled = { do_sample: true, temperature: 0.7 };
  const refused = (kw: Record<string, unknown>, config: Record<string, unknown> | null, message: RegExp) =>
    assert.throws(() => checkAppliedSettings(settings(kw), config, FILE), (e: unknown) => e instanceof UnsupportedError && message.test(e.message));
  refused({ ...sampled, extra: { min_p: 0.1 } }, null, /generation kwarg min_p=0\.1 is passed to HF's generate/);
  refused({ do_sample: false, extra: { repetition_penalty: new PyFloat(1.2) } }, null, /repetition_penalty=1\.2/);
  refused(sampled, { typical_p: 0.9 }, /model\/generation_config\.json sets typical_p=0\.9, which HF's generate applies when sampling/);
  refused(sampled, { top_k: -1 }, /sets top_k=-1, which HF's generate refuses/);
  // Neutral values, sampling-only settings on a greedy request, and kwargs HF does not know pass.
  for (const [kw, config] of [
    [{ ...sampled, extra: { min_p: null, repetition_penalty: new PyFloat(1.0) } }, null],
    [{ do_sample: false, extra: { min_p: 0.1 } }, { typical_p: 0.9, top_k: -1 }],
    [{ ...sampled, extra: { some_backend_flag: true } }, { typical_p: 1.0, epsilon_cutoff: 0 }],
    // generation_config.json's temperature never reaches HF's warpers under lm-eval (the request always carries one),
    // and a bad top_k there is overridden by the request's own.
    [sampled, { temperature: -1 }],
    [{ ...sampled, top_k: 5 }, { top_k: -1 }],
  ] as const) checkAppliedSettings(settings(kw), config, FILE);
  assert.deepEqual(unsupportedAtLoad({ num_beams: 4 }), { key: 'num_beams', value: 4 });
});

test("a sampled request's own warper values that HF's warpers refuse are refused, naming the field; what HF takes passes", () => {
  // HF 5.18 (scripts/fixtures/hf_sampling_warpers.py's versions), generate(do_sample=True, …) on a tiny GPT-2:
  // temperature 0.0 and -1.0, top_k -1 and 2.5, top_p -0.1 raise ValueError; top_p 1.5 (no warper), top_p 0.0 and
  // top_k 0 (no warper) draw. lm-eval's HF backend sends temperature 0.0 where none is set (`_model_generate`).
  const refused = (kw: Record<string, unknown>, field: string, message: RegExp) =>
    assert.throws(() => checkAppliedSettings(settings({ do_sample: true, ...kw }), null, FILE), (e: unknown) => e instanceof BadInputError && e.where.field === `generation_kwargs.${field}` && message.test(e.message));
  refused({}, 'temperature', /do_sample=True without a temperature: lm-eval's HF backend then sends temperature=0\.0, which HF's generate refuses/);
  refused({ temperature: 0 }, 'temperature', /temperature=0 with do_sample=True: HF's generate refuses it \(temperature must be a strictly positive float\)/);
  refused({ temperature: -1 }, 'temperature', /temperature=-1 with do_sample=True/);
  refused({ temperature: 0.7, top_k: -1 }, 'top_k', /top_k=-1 with do_sample=True: HF's generate refuses it \(top_k must be a strictly positive integer, or 0 for no top-k\)/);
  refused({ temperature: 0.7, top_k: 2.5 }, 'top_k', /top_k=2\.5 with do_sample=True/);
  refused({ temperature: 0.7, top_p: -0.1 }, 'top_p', /top_p=-0\.1 with do_sample=True: HF's generate refuses it \(top_p must be between 0 and 1\)/);
  for (const kw of [{ temperature: 0.7, top_p: 1.5 }, { temperature: 0.7, top_p: 0 }, { temperature: 0.7, top_k: 0 }]) checkAppliedSettings(settings({ do_sample: true, ...kw }), null, FILE);
  // A greedy request builds no warper in HF: nothing to refuse.
  checkAppliedSettings(settings({ do_sample: false, temperature: 0, top_k: -1, top_p: -0.1 }), null, FILE);
  // generation_config.json's top_p above 1 adds no warper in HF either (it was refused as one HF refuses).
  assert.equal(samplingWarpers(settings({ do_sample: true, temperature: 0.7 }), { top_p: 1.5 }, FILE).topP, 1.5);
  assert.throws(() => samplingWarpers(settings({ do_sample: true, temperature: 0.7 }), { top_p: -0.5 }, FILE), /sets top_p=-0\.5, which HF's generate refuses/);
  assert.equal(unsupportedAtLoad({ num_beams: 1, repetition_penalty: 1, top_k: 20, min_p: 0.1 }), null);
});
