/**
 * What HF's `generate` takes from a model's generation_config.json, for the onnx backend: the settings
 * it applies that this backend does not (refused, so that no run silently differs from HF's), and the
 * sampling warpers a sampled request gets where it leaves one unset. HF (transformers 5.18,
 * `GenerationMixin._prepare_generation_config`) takes each setting from the call's kwargs, else from
 * generation_config.json, else from `GenerationConfig._get_default_generation_params()`: top_k 50,
 * top_p 1.0 (temperature 1.0, but lm-eval always sends one). lm-eval's HF backend passes only the task's generation kwargs, so a
 * task that samples at temperature 0.7 and says nothing of top_k draws from the 50 best tokens.
 */
import { BadInputError, UnsupportedError } from '../../errors.ts';
import { PyFloat } from '../../py/values.ts';
import type { GenerationSettings } from '../lm.ts';

type Config = Record<string, unknown> | null;

/** Keys that change HF's `generate`, greedy or sampled, that this loop does not apply, and their neutral values. */
const UNSUPPORTED_ALWAYS: Record<string, unknown> = {
  repetition_penalty: 1, no_repeat_ngram_size: 0, bad_words_ids: null, min_new_tokens: 0, min_length: 0, suppress_tokens: null, begin_suppress_tokens: null,
  forced_bos_token_id: null, forced_eos_token_id: null, encoder_repetition_penalty: 1, exponential_decay_length_penalty: null, sequence_bias: null, num_beams: 1,
};
/** Warpers HF adds only when sampling (`_get_logits_processor`), that this loop does not apply, and their neutral values. */
const UNSUPPORTED_SAMPLING: Record<string, unknown> = { min_p: null, typical_p: 1, epsilon_cutoff: 0, eta_cutoff: 0, top_h: null };

const isNeutral = (value: unknown, neutral: unknown): boolean => value === undefined || value === null || value === neutral || (Array.isArray(value) && value.length === 0);

/** generation_config.json's settings that change even greedy generation here: refused when the model loads. */
export function unsupportedAtLoad(config: Config): { key: string; value: unknown } | null {
  for (const [key, neutral] of Object.entries(UNSUPPORTED_ALWAYS)) {
    if (!isNeutral(config?.[key], neutral)) return { key, value: config![key] };
  }
  return null;
}

/**
 * Refuses a task's generation settings that HF's `generate` would apply and this loop would not: a
 * generation kwarg lm-eval passes through (`min_p`, `repetition_penalty`, …), or, for a sampled task,
 * a sampling warper generation_config.json sets.
 */
export function checkAppliedSettings(settings: GenerationSettings, config: Config, configFile: string): void {
  for (const [key, raw] of Object.entries(settings.extra)) {
    const always = key in UNSUPPORTED_ALWAYS;
    if (!always && !(key in UNSUPPORTED_SAMPLING)) continue;
    const value = raw instanceof PyFloat ? raw.value : raw;
    if (!isNeutral(value, always ? UNSUPPORTED_ALWAYS[key] : UNSUPPORTED_SAMPLING[key]) && (always || settings.doSample)) {
      throw new UnsupportedError(`generation kwarg ${key}=${JSON.stringify(value)} is passed to HF's generate by lm-eval, and the onnx backend does not apply it; remove it to run without it`);
    }
  }
  if (!settings.doSample) return;
  checkRequestWarpers(settings);
  // generation_config.json's top_k and top_p apply where the request leaves them unset: a value HF refuses is refused now.
  for (const key of WARPER_DEFAULTS) if ((key === 'top_k' ? settings.topK : settings.topP) === null) configNumber(config, key, configFile);
  for (const [key, neutral] of Object.entries(UNSUPPORTED_SAMPLING)) {
    if (!isNeutral(config?.[key], neutral) && !(key in settings.extra)) {
      throw new UnsupportedError(`${configFile} sets ${key}=${JSON.stringify(config![key])}, which HF's generate applies when sampling and this backend does not; remove it to sample without it`);
    }
  }
}

/**
 * A sampled request's own warper values that HF's warpers refuse (TemperatureLogitsWarper, TopKLogitsWarper,
 * TopPLogitsWarper raise ValueError), so that lm-eval's HF run fails: refused here before the run, not drawn
 * with. lm-eval's HF backend sends temperature 0.0 where the task sets none (`_model_generate`), so a sampled
 * request without one fails there too. A top_p above 1 adds no warper in HF and passes.
 */
function checkRequestWarpers(settings: GenerationSettings): void {
  const refuse = (key: string, value: unknown, rule: string, fix: string) =>
    new BadInputError(`generation kwarg ${key}=${value} with do_sample=True: HF's generate refuses it (${rule}), so lm-eval's HF run fails; ${fix}`, { field: `generation_kwargs.${key}` });
  const t = settings.temperature;
  if (t === null) {
    throw new BadInputError("do_sample=True without a temperature: lm-eval's HF backend then sends temperature=0.0, which HF's generate refuses (temperature must be a strictly positive float); set a temperature above 0, or do_sample=False to decode greedily", { field: 'generation_kwargs.temperature' });
  }
  if (!(t > 0)) throw refuse('temperature', t, 'temperature must be a strictly positive float', 'set a temperature above 0, or do_sample=False to decode greedily');
  const k = settings.topK;
  if (k !== null && k !== 0 && !(Number.isInteger(k) && k > 0)) throw refuse('top_k', k, 'top_k must be a strictly positive integer, or 0 for no top-k', 'set top_k to a positive integer, or 0');
  const p = settings.topP;
  if (p !== null && !(p >= 0)) throw refuse('top_p', p, 'top_p must be between 0 and 1', 'set top_p between 0 and 1');
}

export interface Warpers {
  /** The request's own (null, never reached by a run: checkRequestWarpers refuses it; the choice then takes 1). */
  temperature: number | null;
  /** null: no top-k (HF adds the warper for any top_k but 0). */
  topK: number | null;
  topP: number;
}

/**
 * HF's defaults for the warpers a sampled request may leave unset. Not the temperature: lm-eval always sends one
 * (0.0 where the task sets none, which checkRequestWarpers refuses), so generation_config.json's never applies.
 */
const HF_DEFAULTS = { top_k: 50, top_p: 1 } as const;
const WARPER_DEFAULTS = Object.keys(HF_DEFAULTS) as (keyof typeof HF_DEFAULTS)[];
/** As Python prints them (the provenance quotes HF). */
const HF_DEFAULTS_PRINTED = { top_k: '50', top_p: '1.0' } as const;

function configNumber(config: Config, key: keyof typeof HF_DEFAULTS, configFile: string): number | null {
  const v = config?.[key];
  if (v === undefined || v === null) return null;
  // HF adds no top-p warper for a top_p of 1 or more, so only a negative one is refused.
  const ok = typeof v === 'number' && (key === 'top_k' ? Number.isInteger(v) && v >= 0 : v >= 0);
  if (!ok) throw new UnsupportedError(`${configFile} sets ${key}=${JSON.stringify(v)}, which HF's generate refuses`);
  return v;
}

/** The warpers a sampled request is drawn with: its temperature, and its top_k and top_p, else generation_config.json's, else HF's defaults. */
export function samplingWarpers(settings: GenerationSettings, config: Config, configFile: string): Warpers {
  const pick = (own: number | null, key: keyof typeof HF_DEFAULTS): number => own ?? configNumber(config, key, configFile) ?? HF_DEFAULTS[key];
  const topK = pick(settings.topK, 'top_k');
  return { temperature: settings.temperature, topK: topK === 0 ? null : topK, topP: pick(settings.topP, 'top_p') };
}

/** For the provenance: where a sampled request's unset warpers come from, with their values. */
export function describeSamplingDefaults(config: Config): string {
  const parts = WARPER_DEFAULTS.map((key) => {
    const own = config?.[key];
    return own === undefined || own === null ? `${key} ${HF_DEFAULTS_PRINTED[key]} (HF's default)` : `${key} ${JSON.stringify(own)} (generation_config.json)`;
  });
  return `a sampled request's unset ${parts.join(', ')}`;
}

/**
 * The values describeSamplingDefaults wrote (a store's `harness.runtime.sampling_defaults`): what a sampled
 * request drew with for each warper it left unset. Null when the text is not one it writes.
 */
export function parseSamplingDefaults(text: unknown): Partial<Record<keyof typeof HF_DEFAULTS, number>> | null {
  if (typeof text !== 'string' || !text.startsWith("a sampled request's unset ")) return null;
  const out: Partial<Record<keyof typeof HF_DEFAULTS, number>> = {};
  for (const [, key, value] of text.matchAll(/\b(top_k|top_p) (-?[0-9][0-9.e+-]*) \(/g)) out[key as keyof typeof HF_DEFAULTS] = Number(value);
  return Object.keys(out).length > 0 ? out : null;
}
