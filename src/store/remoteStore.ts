/**
 * A run store at an http(s) URL when DuckDB cannot read URLs itself: DuckDB reads them
 * through its httpfs extension, which it downloads on first use, and that download is
 * impossible offline. Without the extension installed, the manifest and the store's tables
 * are fetched with Node's fetch into a temporary folder (removed at exit) and read from
 * there. The rescores/ folder cannot be listed over plain HTTP, so such a copy shows none.
 */
import { createWriteStream, rmSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { StoreError } from '../errors.ts';
import { STORE_TABLES } from './schema.ts';

export function isHttpUrl(location: string): boolean {
  return /^https?:\/\//i.test(location);
}

/** Downloads the store at `url` into a temporary folder and returns the folder. */
export async function fetchStore(url: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'lmaudit-remote-store-'));
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  const base = url.replace(/\/+$/, '');
  try {
    for (const file of ['provenance.json', ...STORE_TABLES.map((t) => `${t}.parquet`)]) {
      await download(`${base}/${file}`, join(dir, file));
    }
  } catch (error) {
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
  return dir;
}

async function download(url: string, path: string): Promise<void> {
  let response: Response;
  try {
    response = await fetch(url, { redirect: 'follow' });
  } catch (error) {
    throw new StoreError(`${url}: cannot fetch (${(error as Error).message})`, { cause: error });
  }
  if (!response.ok || response.body === null) throw new StoreError(`${url}: the server answered ${response.status} ${response.statusText}`);
  // Streamed to disk: a table may be larger than memory.
  await pipeline(Readable.fromWeb(response.body as import('node:stream/web').ReadableStream), createWriteStream(path));
}
