/**
 * The Hugging Face hub as lmaudit talks to it, for datasets (src/data/hub.ts) and models
 * (src/models/onnx/hubModel.ts): `HF_ENDPOINT` moves the hub (as for huggingface_hub),
 * `HF_TOKEN` is sent as a bearer token and never written anywhere, `LMAUDIT_CACHE` moves the
 * on-disk cache. A file is downloaded once, under a temporary name renamed into place, so an
 * interrupted download never looks cached. Offline (`HF_HUB_OFFLINE`, as below) nothing is asked of
 * the hub: what the cache holds is used, and what it lacks is an error that says so.
 */
import { mkdir, readFile, rm, stat } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { BadInputError } from '../errors.ts';
import { writeFileAtomic } from './atomicFile.ts';

export function hubEndpoint(): string {
  return (process.env.HF_ENDPOINT ?? 'https://huggingface.co').replace(/\/+$/, '');
}

export function cacheRoot(): string {
  return process.env.LMAUDIT_CACHE ?? join(homedir(), '.cache', 'lmaudit');
}

/** Ids, configs, splits and revisions become path segments: only the characters the hub allows. */
export function hubSegment(value: string, what: string, field: string): string {
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(value) || value.includes('..')) {
    throw new BadInputError(`not a valid Hugging Face ${what}: '${value}'`, { field });
  }
  return value;
}

/** What the hub is asked for: the switches that keep huggingface_hub and datasets off the network differ by kind. */
export type HubKind = 'model' | 'dataset';

/** The values huggingface_hub and datasets read as true (ENV_VARS_TRUE_VALUES), in any case. */
const TRUE_VALUES = new Set(['1', 'ON', 'YES', 'TRUE']);

/**
 * The variable that puts `kind` offline, as `NAME=value`, or null when online. As huggingface_hub 0.3x reads them:
 * HF_HUB_OFFLINE, or TRANSFORMERS_OFFLINE when HF_HUB_OFFLINE is unset or empty; for datasets HF_DATASETS_OFFLINE,
 * when it is set at all, decides instead (datasets/config.py).
 */
export function hubOffline(kind: HubKind): string | null {
  const env = process.env;
  const datasets = kind === 'dataset' && env.HF_DATASETS_OFFLINE !== undefined ? 'HF_DATASETS_OFFLINE' : null;
  const name = datasets ?? (env.HF_HUB_OFFLINE ? 'HF_HUB_OFFLINE' : env.TRANSFORMERS_OFFLINE ? 'TRANSFORMERS_OFFLINE' : null);
  const value = name === null ? undefined : env[name];
  return name !== null && value !== undefined && TRUE_VALUES.has(value.toUpperCase()) ? `${name}=${value}` : null;
}

function offlineError(what: string, cached: string, switchedOff: string, field: string): BadInputError {
  return new BadInputError(`${what}: not in lmaudit's cache (${cached}), and ${switchedOff} keeps lmaudit off the hub (run once without it to fill the cache)`, { field });
}

function headers(): Record<string, string> {
  const token = process.env.HF_TOKEN;
  return token ? { authorization: `Bearer ${token}` } : {};
}

/** GET with the token; `allow404` gives null for a missing file (an optional one). */
export async function hubGet(url: string, what: string, field: string, allow404 = false): Promise<Response | null> {
  let response: Response;
  try {
    response = await fetch(url, { headers: headers(), redirect: 'follow' });
  } catch (error) {
    throw new BadInputError(`${what}: the hub could not be reached at ${hubEndpoint()} (${(error as Error).message})`, { field });
  }
  if (allow404 && response.status === 404) {
    await response.body?.cancel();
    return null;
  }
  if (!response.ok) throw new BadInputError(`${what}: the hub answered ${response.status} ${response.statusText}`, { field });
  return response;
}

export async function fileExists(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isFile();
  } catch {
    return false;
  }
}

/**
 * Downloads `url` to `file` unless it is there; false when the hub has no such file and `optional` says that is fine.
 * The hub's "no such file" for an optional file is remembered beside it (`<file>.absent`), so that offline the cache
 * says which optional files the hub lacked rather than guessing; online the hub is asked again, as before.
 */
export async function downloadOnce(url: string, file: string, what: string, field: string, optional = false, kind: HubKind = 'model'): Promise<boolean> {
  if (await fileExists(file)) return true;
  const absent = `${file}.absent`;
  const offline = hubOffline(kind);
  if (offline !== null) {
    if (optional && (await fileExists(absent))) return false;
    throw offlineError(what, file, offline, field);
  }
  const response = await hubGet(url, what, field, optional);
  if (response === null) {
    await writeAtomically(absent, new Uint8Array());
    return false;
  }
  await writeAtomically(file, new Uint8Array(await response.arrayBuffer()));
  await rm(absent, { force: true });
  return true;
}

/**
 * A JSON answer of the hub (a listing), kept at `file` for when the hub is out of reach by choice: online it is asked
 * and the answer kept; offline the kept answer is read.
 */
export async function hubJsonKept(url: string, file: string, what: string, field: string, kind: HubKind): Promise<unknown> {
  const offline = hubOffline(kind);
  if (offline !== null) {
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch {
      throw offlineError(what, file, offline, field);
    }
    return JSON.parse(text) as unknown;
  }
  const text = await (await hubGet(url, what, field))!.text();
  let parsed: unknown;
  try {
    parsed = JSON.parse(text) as unknown;
  } catch {
    throw new BadInputError(`${what}: the hub's answer at ${url} is not JSON`, { field });
  }
  await writeAtomically(file, new TextEncoder().encode(text));
  return parsed;
}

/** Into the cache through the project's one atomic write (util/atomicFile.ts): an interrupted write never looks cached. */
async function writeAtomically(file: string, bytes: Uint8Array): Promise<void> {
  await mkdir(dirname(file), { recursive: true });
  await writeFileAtomic(file, bytes);
}
