/**
 * The Hugging Face hub as lmaudit talks to it, for datasets (src/data/hub.ts) and models
 * (src/models/onnx/hubModel.ts): `HF_ENDPOINT` moves the hub (as for huggingface_hub),
 * `HF_TOKEN` is sent as a bearer token and never written anywhere, `LMAUDIT_CACHE` moves the
 * on-disk cache. A file is downloaded once, under a temporary name renamed into place, so an
 * interrupted download never looks cached.
 */
import { mkdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { BadInputError } from '../errors.ts';

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

/** Downloads `url` to `file` unless it is there; false when the hub has no such file and `optional` says that is fine. */
export async function downloadOnce(url: string, file: string, what: string, field: string, optional = false): Promise<boolean> {
  if (await fileExists(file)) return true;
  const response = await hubGet(url, what, field, optional);
  if (response === null) return false;
  const bytes = new Uint8Array(await response.arrayBuffer());
  await mkdir(dirname(file), { recursive: true });
  const partial = `${file}.${randomBytes(4).toString('hex')}.part`;
  try {
    await writeFile(partial, bytes);
    await rename(partial, file);
  } catch (error) {
    await rm(partial, { force: true });
    throw error;
  }
  return true;
}
