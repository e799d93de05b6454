/**
 * A model named by a Hugging Face id (`org/name`) rather than a folder: its files are downloaded
 * once from `{HF_ENDPOINT}/{id}/resolve/{revision}/{file}` into `{LMAUDIT_CACHE}/models/{id}/{revision}/`
 * and the folder is then read like any local export. The cache is keyed by the revision's name,
 * so `main` is not refreshed when the repository moves; the provenance holds every file's sha256,
 * which says which bytes were used whatever the name.
 */
import { join } from 'node:path';
import { BadInputError } from '../../errors.ts';
import { cacheRoot, downloadOnce, hubEndpoint, hubSegment } from '../../util/hubClient.ts';
import { graphCandidates, normaliseDtype } from './modelFolder.ts';

const FIELD = 'pretrained';

/** `org/name` or `name`, as the hub spells repository ids. */
export const looksLikeHubId = (value: string): boolean => /^([A-Za-z0-9][A-Za-z0-9._-]*\/)?[A-Za-z0-9][A-Za-z0-9._-]*$/.test(value) && !value.includes('..');

export async function downloadHubModel(id: string, revision: string, dtypeArg: string | null, modelFile: string | null): Promise<string> {
  const parts = id.split('/').map((p) => hubSegment(p, 'model id', FIELD));
  const rev = hubSegment(revision, 'revision', 'revision');
  const dir = join(cacheRoot(), 'models', ...parts, rev);
  const url = (file: string) => `${hubEndpoint()}/${parts.join('/')}/resolve/${rev}/${file}`;
  const what = `model ${id}@${rev}`;
  for (const file of ['config.json', 'tokenizer.json']) await downloadOnce(url(file), join(dir, file), `${what} ${file}`, FIELD);
  for (const file of ['tokenizer_config.json', 'generation_config.json']) await downloadOnce(url(file), join(dir, file), `${what} ${file}`, FIELD, true);
  const tried = modelFile !== null ? [modelFile] : graphCandidates(normaliseDtype(dtypeArg));
  let graph: string | null = null;
  for (const file of tried) {
    if (await downloadOnce(url(file), join(dir, file), `${what} ${file}`, FIELD, true)) {
      graph = file;
      break;
    }
  }
  if (graph === null) throw new BadInputError(`${what}: the hub has none of ${tried.join(', ')}`, { field: FIELD });
  // External weights (graphs over 2 GB): <file>_data, <file>_data_1, … until the first that is missing.
  for (let i = 0; ; i++) {
    const chunk = `${graph}_data${i === 0 ? '' : `_${i}`}`;
    if (!(await downloadOnce(url(chunk), join(dir, chunk), `${what} ${chunk}`, FIELD, true))) break;
  }
  return dir;
}
