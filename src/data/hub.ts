/**
 * Reading a Hugging Face dataset split from the hub: its Parquet conversion, as
 * `datasets` reads it. The hub's API lists the split's Parquet files
 * (`GET {endpoint}/api/datasets/{id}/parquet/{config}/{split}` → a JSON list of URLs);
 * each is downloaded once into a local cache and read from there by DuckDB.
 *
 * Why not DuckDB's `hf://` paths: they need DuckDB's httpfs extension, which DuckDB
 * downloads on first use, and that download is not possible offline; Node's fetch is
 * always there. `HF_ENDPOINT` moves the hub (as for huggingface_hub), `HF_TOKEN` is
 * sent as a bearer token and never written anywhere, `LMAUDIT_CACHE` moves the cache.
 */
import { mkdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { createHash, randomBytes } from 'node:crypto';
import { BadInputError } from '../errors.ts';

export function hubEndpoint(): string {
  return (process.env.HF_ENDPOINT ?? 'https://huggingface.co').replace(/\/+$/, '');
}

function cacheRoot(): string {
  return process.env.LMAUDIT_CACHE ?? join(homedir(), '.cache', 'lmaudit');
}

/** Dataset ids, configs and splits become path segments: only the characters the hub allows. */
function segment(value: string, what: string): string {
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(value) || value.includes('..')) {
    throw new BadInputError(`not a valid Hugging Face ${what}: '${value}'`, { field: 'dataset_path' });
  }
  return value;
}

function headers(): Record<string, string> {
  const token = process.env.HF_TOKEN;
  return token ? { authorization: `Bearer ${token}` } : {};
}

async function get(url: string, what: string): Promise<Response> {
  let response: Response;
  try {
    response = await fetch(url, { headers: headers(), redirect: 'follow' });
  } catch (error) {
    throw new BadInputError(`${what}: the hub could not be reached at ${hubEndpoint()} (${(error as Error).message})`, { field: 'dataset_path' });
  }
  if (!response.ok) throw new BadInputError(`${what}: the hub answered ${response.status} ${response.statusText}`, { field: 'dataset_path' });
  return response;
}

/** Local paths of the split's Parquet files, downloading the ones not cached yet. */
export async function hubParquetFiles(id: string, config: string, split: string): Promise<string[]> {
  const parts = id.split('/').map((p) => segment(p, 'dataset id'));
  const what = `dataset ${id} (${config}) split '${split}'`;
  const listUrl = `${hubEndpoint()}/api/datasets/${parts.join('/')}/parquet/${segment(config, 'config')}/${segment(split, 'split')}`;
  const dir = join(cacheRoot(), 'hub', ...parts, config, split);
  const listing = (await (await get(listUrl, what)).json()) as unknown;
  if (!Array.isArray(listing) || listing.length === 0 || !listing.every((u) => typeof u === 'string')) {
    throw new BadInputError(`${what}: the hub's Parquet listing is not a list of URLs`, { field: 'dataset_path' });
  }
  await mkdir(dir, { recursive: true });
  const files: string[] = [];
  for (const url of listing as string[]) {
    // Named by the URL, so a new revision (new URLs) is downloaded rather than served stale.
    const file = join(dir, `${createHash('sha256').update(url).digest('hex').slice(0, 16)}.parquet`);
    if (!(await exists(file))) {
      const bytes = new Uint8Array(await (await get(url, what)).arrayBuffer());
      // Written under a temporary name and renamed: an interrupted download never looks cached.
      const partial = `${file}.${randomBytes(4).toString('hex')}.part`;
      try {
        await writeFile(partial, bytes);
        await rename(partial, file);
      } catch (error) {
        await rm(partial, { force: true });
        throw error;
      }
    }
    files.push(file);
  }
  return files;
}

async function exists(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isFile();
  } catch {
    return false;
  }
}
