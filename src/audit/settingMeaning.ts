/**
 * One meaning per disclosure field. Harnesses spell the same setting differently: lm-eval writes
 * `fewshot_as_multiturn: null` where lmaudit writes false, `"torch.float32"` where lmaudit writes
 * "fp32", `{"cli": {}}` for "no --gen_kwargs". The settings diff compares these meanings (and
 * keeps showing the values as recorded); each rule says why the two spellings are one setting.
 */
import { DEFAULT_AGGREGATION } from '../score/lmeval/taskScoring.ts';

export interface Meaning {
  value: unknown;
  /** Why this spelling was rewritten, shown beside the verdict; null when the value was already canonical. */
  why: string | null;
}

/** A dtype is its precision: the names PyTorch, Hugging Face's `dtype=` and ONNX tools give one precision. */
const PRECISIONS: readonly (readonly [RegExp, string])[] = [
  [/^(?:torch\.)?(?:float32|fp32|f32)$/i, 'float32'],
  [/^(?:torch\.)?(?:float16|fp16|f16|half)$/i, 'float16'],
  [/^(?:torch\.)?(?:bfloat16|bf16)$/i, 'bfloat16'],
  [/^(?:torch\.)?(?:float64|fp64|f64|double)$/i, 'float64'],
];

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);
const isEmpty = (v: unknown) => v === null || v === undefined || v === '' || (isObject(v) && Object.keys(v).length === 0);

/** The canonical meaning of `item.field`'s recorded value. */
export function settingMeaning(item: string, field: string, value: unknown): Meaning {
  const path = `${item}.${field}`;
  if (path === 'chat_template.fewshot_as_multiturn' && (value === null || value === undefined)) {
    // lm-eval 0.4.13 leaves it None unless --fewshot_as_multiturn or --apply_chat_template set it: shots are then one user turn.
    return { value: false, why: 'fewshot_as_multiturn null (not set) is false: the shots are not split into turns' };
  }
  if (path === 'model.dtype' && typeof value === 'string') {
    const precision = PRECISIONS.find(([re]) => re.test(value.trim()));
    if (precision !== undefined && precision[1] !== value) return { value: precision[1], why: `a dtype is its precision (${JSON.stringify(value)} is ${precision[1]})` };
    return { value, why: null };
  }
  if (path === 'generation.settings') return generationSettings(value);
  if (path === 'repeats.aggregation' && isObject(value)) return aggregation(value);
  return { value, why: null };
}

/**
 * The aggregation is each metric's function and bootstrap_iters. A metric_list entry without `aggregation` gets
 * the metric's registered default (lm_eval/api/metrics.py); 'arithmetic' is lmaudit's note that it adds as
 * CPython's sum does, which is lm-eval's own arithmetic, and lm-eval never writes it.
 */
function aggregation(value: Record<string, unknown>): Meaning {
  const why: string[] = [];
  const { arithmetic, ...rest } = value;
  if (arithmetic !== undefined) why.push("'arithmetic' is lmaudit's note that it sums as CPython does, lm-eval's own arithmetic");
  const perMetric = rest.per_metric;
  if (isObject(perMetric)) {
    const filled = Object.fromEntries(Object.entries(perMetric).map(([m, a]) => [m, a === null || a === undefined ? (DEFAULT_AGGREGATION[m] ?? a) : a]));
    if (Object.entries(filled).some(([m, a]) => a !== perMetric[m])) {
      why.push("a metric listed without an aggregation gets its registered default (lm-eval's metrics.py)");
      rest.per_metric = filled;
    }
  }
  return { value: rest, why: why.length > 0 ? why.join('; ') : null };
}

/**
 * lm-eval's record of the generation settings is `{task: generation_kwargs, cli: --gen_kwargs}`; an override that is
 * absent, null or empty is no override, and settings that are all absent are none.
 */
function generationSettings(value: unknown): Meaning {
  if (!isObject(value) || !('cli' in value || 'task' in value)) return { value, why: null };
  const kept = Object.fromEntries(Object.entries(value).filter(([, v]) => !isEmpty(v)));
  if (Object.keys(kept).length === Object.keys(value).length) return { value, why: null };
  const why = 'an absent --gen_kwargs override is the same as an empty one';
  return { value: Object.keys(kept).length === 0 ? null : kept, why };
}
