/**
 * Reading a Hugging Face dataset split from the hub: its Parquet conversion, as
 * `datasets` reads it. The hub's API lists the split's Parquet files
 * (`GET {endpoint}/api/datasets/{id}/parquet/{config}/{split}` → a JSON list of URLs);
 * each is downloaded once into a local cache and read from there by DuckDB.
 *
 * Why not DuckDB's `hf://` paths: they need DuckDB's httpfs extension, which DuckDB
 * downloads on first use, and that download is not possible offline; Node's fetch is
 * always there. The endpoint, token and cache are src/util/hubClient.ts's.
 */
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { BadInputError } from '../errors.ts';
import { cacheRoot, downloadOnce, hubEndpoint, hubJsonKept, hubSegment } from '../util/hubClient.ts';

const FIELD = 'dataset_path';
const segment = (value: string, what: string) => hubSegment(value, what, FIELD);

/** Local paths of the split's Parquet files, downloading the ones not cached yet. */
export async function hubParquetFiles(id: string, config: string, split: string): Promise<string[]> {
  const parts = id.split('/').map((p) => segment(p, 'dataset id'));
  const what = `dataset ${id} (${config}) split '${split}'`;
  const listUrl = `${hubEndpoint()}/api/datasets/${parts.join('/')}/parquet/${segment(config, 'config')}/${segment(split, 'split')}`;
  const dir = join(cacheRoot(), 'hub', ...parts, config, split);
  // The listing is kept beside the files it names: offline (HF_DATASETS_OFFLINE, HF_HUB_OFFLINE) it says which they are.
  const listing = await hubJsonKept(listUrl, join(dir, 'listing.json'), what, FIELD, 'dataset');
  if (!Array.isArray(listing) || listing.length === 0 || !listing.every((u) => typeof u === 'string')) {
    throw new BadInputError(`${what}: the hub's Parquet listing is not a list of URLs`, { field: 'dataset_path' });
  }
  const files: string[] = [];
  for (const url of listing as string[]) {
    // Named by the URL, so a new revision (new URLs) is downloaded rather than served stale.
    const file = join(dir, `${createHash('sha256').update(url).digest('hex').slice(0, 16)}.parquet`);
    await downloadOnce(url, file, what, FIELD, false, 'dataset');
    files.push(file);
  }
  return files;
}
