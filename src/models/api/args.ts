/**
 * `--model_args` of the API backends: the arguments every one of them takes (lm-eval's
 * TemplateAPI names where it has one), checked before anything is sent, and the key, which
 * comes only from the environment.
 */
import { BadInputError, nameHint } from '../../errors.ts';
import type { ModelArgs } from '../lm.ts';
import type { HttpSettings } from './http.ts';

/** Arguments every API backend reads; each backend adds its own. */
export const COMMON_ARGS = [
  'model', 'base_url', 'num_concurrent', 'max_retries', 'timeout', 'max_requests_per_minute', 'backoff_ms', 'max_backoff_ms',
  'max_retry_after', 'record_exchanges', 'seed', 'api_key_env', 'batch_size', 'max_gen_toks',
] as const;

export function checkKnownArgs(args: ModelArgs, backend: string, own: readonly string[]): void {
  for (const key of Object.keys(args)) {
    if (/^(api_key|key|token|auth_token|bearer)$/i.test(key)) {
      throw new BadInputError(`--model_args ${key}: a key is never taken on the command line (it would be written to shell history and logs); set it in the environment (${backend === 'anthropic' ? 'ANTHROPIC_API_KEY' : 'OPENAI_API_KEY'}, or name another variable with api_key_env=NAME)`);
    }
    if (!(COMMON_ARGS as readonly string[]).includes(key) && !own.includes(key)) {
      const known = [...COMMON_ARGS, ...own].sort();
      throw new BadInputError(`--model_args ${key}: not an argument of the ${backend} backend.${nameHint(key, known)}`);
    }
  }
}

export function stringArg(args: ModelArgs, key: string): string | null {
  const v = args[key];
  if (v === undefined || v === null) return null;
  if (typeof v !== 'string' || v === '') throw new BadInputError(`--model_args ${key} must be text, got ${JSON.stringify(v)}`);
  return v;
}

export function requiredString(args: ModelArgs, key: string, backend: string, example: string): string {
  const v = stringArg(args, key);
  if (v === null) throw new BadInputError(`--model_args ${key}=… is required by the ${backend} backend (e.g. ${key}=${example})`);
  return v;
}

export function numberArg(args: ModelArgs, key: string, fallback: number, check: { integer?: boolean; min?: number; max?: number } = {}): number {
  const v = args[key];
  if (v === undefined || v === null) return fallback;
  const ok = typeof v === 'number' && Number.isFinite(v) && (!check.integer || Number.isInteger(v)) && (check.min === undefined || v >= check.min) && (check.max === undefined || v <= check.max);
  if (!ok) {
    const kind = check.integer ? 'an integer' : 'a number';
    const range = check.min !== undefined && check.max !== undefined ? ` in [${check.min}, ${check.max}]` : check.min !== undefined ? ` ≥ ${check.min}` : '';
    throw new BadInputError(`--model_args ${key} must be ${kind}${range}, got ${JSON.stringify(v)}`);
  }
  return v as number;
}

/**
 * The API root (…/v1) from `base_url`, which lm-eval gives as the endpoint itself
 * (http://host:8000/v1/completions); a root with or without /v1 is taken too.
 */
export function apiRoot(baseUrl: string): URL {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    throw new BadInputError(`--model_args base_url=${baseUrl}: not a URL (e.g. base_url=http://127.0.0.1:8000/v1/completions)`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new BadInputError(`--model_args base_url=${baseUrl}: only http and https are spoken`);
  if (url.username !== '' || url.password !== '') throw new BadInputError('--model_args base_url: credentials in the URL would be written with the run; give the key in the environment');
  let path = url.pathname.replace(/\/+$/, '');
  path = path.replace(/\/(chat\/)?completions$/, '').replace(/\/messages$/, '');
  if (!path.endsWith('/v1')) path = `${path}/v1`;
  url.pathname = `${path}/`;
  url.search = '';
  return url;
}

/** The key from the environment (OPENAI_API_KEY, ANTHROPIC_API_KEY, or api_key_env's variable); null when unset. */
export function apiKey(args: ModelArgs, fallbackVariable: string): { variable: string; key: string | null } {
  const variable = stringArg(args, 'api_key_env') ?? fallbackVariable;
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(variable)) throw new BadInputError(`--model_args api_key_env=${variable}: not an environment variable name`);
  const key = process.env[variable];
  return { variable, key: key === undefined || key === '' ? null : key };
}

export function httpSettings(args: ModelArgs): HttpSettings {
  return {
    numConcurrent: numberArg(args, 'num_concurrent', 1, { integer: true, min: 1, max: 4096 }),
    requestsPerMinute: args.max_requests_per_minute === undefined || args.max_requests_per_minute === null ? null : numberArg(args, 'max_requests_per_minute', 0, { min: 0.001 }),
    // lm-eval: timeout=300 s per request; max_retries=3 attempts in all.
    timeoutMs: numberArg(args, 'timeout', 300, { min: 0.001 }) * 1000,
    maxAttempts: numberArg(args, 'max_retries', 3, { integer: true, min: 1, max: 100 }),
    backoffMs: numberArg(args, 'backoff_ms', 500, { min: 0 }),
    maxBackoffMs: numberArg(args, 'max_backoff_ms', 8000, { min: 0 }),
    maxRetryAfterMs: numberArg(args, 'max_retry_after', 120, { min: 0 }) * 1000,
    recordSample: numberArg(args, 'record_exchanges', 0, { min: 0, max: 1 }),
    recordSeed: String(args.seed ?? 1234),
  };
}
