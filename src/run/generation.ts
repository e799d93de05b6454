/**
 * lm-eval's `normalize_gen_kwargs` (lm_eval/models/utils.py; lmeval-scoring-and-outputs.md
 * §6.4): a request's generation kwargs as the backend receives them. `until` becomes a
 * list; the max-token aliases are read in the order max_gen_toks > max_new_tokens >
 * max_tokens > max_completion_tokens (default 256); a missing do_sample means
 * temperature > 0; do_sample false forces temperature 0.
 */
import { BadInputError } from '../errors.ts';
import type { GenerationSettings } from '../models/lm.ts';
import { PyFloat } from '../py/values.ts';
import { LMEVAL_MAX_TOKEN_KEYS, lmevalMaxTokenKey } from '../formats/lmevalGenKwargs.ts';

const MAX_KEYS = LMEVAL_MAX_TOKEN_KEYS;
const KNOWN = new Set(['until', 'do_sample', 'temperature', 'top_p', 'top_k', 'seed', ...MAX_KEYS]);
export const DEFAULT_MAX_GEN_TOKS = 256;

const num = (v: unknown): number | null => (v instanceof PyFloat ? v.value : typeof v === 'number' ? v : typeof v === 'bigint' ? Number(v) : null);

export function generationSettings(kwargs: Record<string, unknown> | null, task: string, randomSeed: number | null): GenerationSettings {
  const kw = kwargs ?? {};
  const bad = (key: string, want: string) => new BadInputError(`task '${task}': generation kwarg ${key} must be ${want}, got ${JSON.stringify(String(kw[key]))}`, { field: `generation_kwargs.${key}` });
  let until: string[] = [];
  if (typeof kw.until === 'string') until = [kw.until];
  else if (Array.isArray(kw.until)) {
    if (!kw.until.every((u) => typeof u === 'string')) throw bad('until', 'a string or a list of strings');
    until = kw.until as string[];
  } else if (kw.until !== undefined && kw.until !== null) throw bad('until', 'a string or a list of strings');
  const maxKey = lmevalMaxTokenKey(kw);
  const maxGenToks = maxKey === undefined ? DEFAULT_MAX_GEN_TOKS : num(kw[maxKey]);
  if (maxGenToks === null || !Number.isInteger(maxGenToks) || maxGenToks < 0) throw bad(maxKey!, 'a non-negative integer');
  let temperature = kw.temperature === undefined || kw.temperature === null ? null : num(kw.temperature);
  if (temperature === null && kw.temperature !== undefined && kw.temperature !== null) throw bad('temperature', 'a number');
  const doSample = kw.do_sample === undefined || kw.do_sample === null ? (temperature ?? 0) > 0 : kw.do_sample === true;
  if (!doSample) temperature = 0;
  // A value of the wrong type is refused, not dropped: dropped, the run would draw with another setting than asked.
  const number = (key: string): number | null => {
    if (kw[key] === undefined || kw[key] === null) return null;
    const value = num(kw[key]);
    if (value === null) throw bad(key, 'a number');
    return value;
  };
  const topP = number('top_p');
  const topK = number('top_k');
  const seed = number('seed') ?? (doSample ? randomSeed : null);
  const extra = Object.fromEntries(Object.entries(kw).filter(([k]) => !KNOWN.has(k)));
  return { until, maxGenToks, doSample, temperature, topP, topK, seed, extra };
}
