/**
 * Noise that is not a setting. Two records of the same configuration still
 * differ in timestamps, in where files lived, in the memory address Python
 * printed for a function, in dict key order and in how a number was spelled.
 * Each rule rewrites a value into a canonical form; a difference that vanishes
 * under the rules is reported as `same`, with the rules that made it vanish.
 */

export interface NoiseRule {
  readonly name: string;
  /** Shown to the reader next to a verdict the rule decided. */
  readonly description: string;
}

export const NOISE_RULES = {
  timestamp: { name: 'timestamp', description: 'dates and times (ISO stamps, file-name stamps) are when a run happened, not how' },
  absolute_path: { name: 'absolute_path', description: 'absolute paths compare by their last component (the folder a file sat in is not a setting)' },
  function_address: { name: 'function_address', description: "'<function f at 0x…>' compares by the function name (the address is a memory location)" },
  key_order: { name: 'key_order', description: 'objects compare with their keys sorted (dict order is not a setting)' },
  number_format: { name: 'number_format', description: "numbers compare by value: 1 = 1.0 = '1' = 1e0" },
  torch_dtype: { name: 'torch_dtype', description: "'torch.float32' = 'float32' (the prefix is how PyTorch prints a dtype)" },
  hub_id_case: { name: 'hub_id_case', description: 'Hugging Face Hub model ids compare without letter case (the Hub resolves them case-insensitively)' },
  provider_prefix: {
    name: 'provider_prefix',
    description: `agent model names compare without a LiteLLM provider prefix naming the model maker's own API (${'anthropic/, openai/, gemini/, mistral/, deepseek/, xai/'}): 'anthropic/claude-sonnet-4-20250514' sends 'claude-sonnet-4-20250514' to Anthropic; the rest must match exactly (another date or version is another model)`,
  },
} as const satisfies Record<string, NoiseRule>;
export type NoiseRuleName = keyof typeof NOISE_RULES;

export interface Canonical {
  /** Canonical JSON text of the value. */
  text: string;
  /** Rules that changed something on the way. */
  rules: Set<NoiseRuleName>;
}

const ISO_STAMP = /\d{4}-\d{2}-\d{2}[T _]\d{2}[:-]\d{2}[:-]\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:?\d{2})?/g;
const FUNCTION_ADDRESS = /<(function|bound method|built-in function|lambda)\s+([^<>]*?)\s+at\s+0x[0-9a-fA-F]+>/g;
const ABSOLUTE_PATH = /^(?:\/|[A-Za-z]:[\\/]|~\/)(?:[^\s,]*[\\/])+([^\s\\/,]+)$/;
/**
 * LiteLLM's routes to a model maker's own API: the id after the prefix is the maker's model id, sent as it is. Hosts
 * that serve other makers' models (openrouter/, together_ai/, bedrock/, azure/ deployments, vertex_ai/) are left
 * out: the same name there need not be the same weights or snapshot.
 */
const FIRST_PARTY_PREFIX = /^(?:anthropic|openai|gemini|mistral|deepseek|xai)\/([^/\s]+)$/;
const NUMERIC_STRING = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;
/** Keys whose values are clock readings in lm-eval and Inspect records. */
const TIME_KEYS = new Set(['date', 'start_time', 'end_time', 'total_evaluation_time_seconds', 'started_at', 'completed_at', 'created', 'timestamp']);

export interface CanonicalOptions {
  /** Apply the Hub-id case rule (only to model ids). */
  hubId?: boolean;
  /** Apply the provider-prefix rule (only to the model names agent runs record). */
  providerPrefix?: boolean;
  /**
   * The value names what was loaded (a model's weights, a dataset): its folders are part of what it names, so the
   * absolute-path rule does not apply. '/sft/lr1e-5/checkpoint-500' and '/sft/lr1e-6/checkpoint-500' are two models.
   */
  loadedFrom?: boolean;
  /** Rules switched off (used to find which rules a `same` verdict needed). */
  disabled?: ReadonlySet<NoiseRuleName>;
}

/** The canonical form of a recorded value and the noise rules applied to reach it. */
export function canonicalize(value: unknown, options: CanonicalOptions = {}): Canonical {
  const rules = new Set<NoiseRuleName>();
  const walked = walk(value, rules, options);
  return { text: JSON.stringify(walked) ?? 'null', rules };
}

function walk(value: unknown, rules: Set<NoiseRuleName>, options: CanonicalOptions): unknown {
  if (typeof value === 'string') return canonicalString(value, rules, options);
  if (typeof value === 'number') return canonicalNumber(value);
  if (Array.isArray(value)) return value.map((v) => walk(v, rules, options));
  if (value !== null && typeof value === 'object') {
    const keys = Object.keys(value);
    const on = (r: NoiseRuleName) => !options.disabled?.has(r);
    const sorted = on('key_order') ? [...keys].sort() : keys;
    if (keys.some((k, i) => k !== sorted[i])) rules.add('key_order');
    const out: Record<string, unknown> = {};
    for (const key of sorted) {
      if (TIME_KEYS.has(key) && on('timestamp')) {
        rules.add('timestamp');
        out[key] = '<time>';
        continue;
      }
      out[key] = walk((value as Record<string, unknown>)[key], rules, options);
    }
    return out;
  }
  return value ?? null;
}

function canonicalNumber(n: number): unknown {
  // JSON has no NaN/Infinity; keep them distinguishable from null.
  return Number.isFinite(n) ? n : `<${String(n)}>`;
}

function canonicalString(s: string, rules: Set<NoiseRuleName>, options: CanonicalOptions): unknown {
  const on = (r: NoiseRuleName) => !options.disabled?.has(r);
  if (on('number_format') && NUMERIC_STRING.test(s.trim())) {
    rules.add('number_format');
    return Number(s);
  }
  let out = s;
  const stamped = on('timestamp') ? out.replace(ISO_STAMP, '<time>') : out;
  if (stamped !== out) {
    rules.add('timestamp');
    out = stamped;
  }
  const unaddressed = !on('function_address') ? out : out.replace(FUNCTION_ADDRESS, (_m, kind: string, name: string) => `<${kind} ${name}>`);
  if (unaddressed !== out) {
    rules.add('function_address');
    out = unaddressed;
  }
  const path = on('absolute_path') && !options.loadedFrom ? ABSOLUTE_PATH.exec(out) : null;
  if (path !== null) {
    rules.add('absolute_path');
    out = `…/${path[1]}`;
  }
  const dtype = on('torch_dtype') ? /^torch\.([a-z0-9]+)$/.exec(out) : null;
  if (dtype !== null) {
    rules.add('torch_dtype');
    out = dtype[1]!;
  }
  const routed = options.providerPrefix && on('provider_prefix') ? FIRST_PARTY_PREFIX.exec(out) : null;
  if (routed !== null) {
    rules.add('provider_prefix');
    out = routed[1]!;
  }
  if (options.hubId && on('hub_id_case') && /^[\w.-]+\/[\w.-]+$/.test(out) && out !== out.toLowerCase()) {
    rules.add('hub_id_case');
    out = out.toLowerCase();
  }
  return out;
}

/** Compares two values under the noise rules. `rules` lists those that were needed to make them equal. */
export function compareValues(a: unknown, b: unknown, options: CanonicalOptions = {}): { equal: boolean; rules: NoiseRuleName[] } {
  const ca = canonicalize(a, options);
  const cb = canonicalize(b, options);
  if (ca.text !== cb.text) return { equal: false, rules: [] };
  if (rawText(a) === rawText(b)) return { equal: true, rules: [] };
  // A rule was needed when switching it off alone makes the two differ again.
  const candidates = [...new Set([...ca.rules, ...cb.rules])].sort() as NoiseRuleName[];
  const needed = candidates.filter((rule) => {
    const off = { ...options, disabled: new Set([rule]) };
    return canonicalize(a, off).text !== canonicalize(b, off).text;
  });
  return { equal: true, rules: needed.length > 0 ? needed : candidates };
}

function rawText(value: unknown): string {
  return JSON.stringify(value) ?? 'undefined';
}
