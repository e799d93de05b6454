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
import { checkAppliedSettings, describeSamplingDefaults, samplingWarpers, unsupportedAtLoad } from '../../src/models/onnx/generationConfig.ts';
import type { GenerationSettings } from '../../src/models/lm.ts';
import { UnsupportedError } from '../../src/errors.ts';
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
  assert.equal(describeSamplingDefaults(null), "a sampled request's unset temperature 1.0 (HF's default), top_k 50 (HF's default), top_p 1.0 (HF's default)");
  assert.equal(describeSamplingDefaults({ temperature: 0.6, top_k: 20, top_p: 0.95 }), "a sampled request's unset temperature 0.6 (generation_config.json), top_k 20 (generation_config.json), top_p 0.95 (generation_config.json)");
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
  ] as const) checkAppliedSettings(settings(kw), config, FILE);
  assert.deepEqual(unsupportedAtLoad({ num_beams: 4 }), { key: 'num_beams', value: 4 });
  assert.equal(unsupportedAtLoad({ num_beams: 1, repetition_penalty: 1, top_k: 20, min_p: 0.1 }), null);
});
