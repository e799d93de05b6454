/**
 * The hub loading code against a local server that speaks the Hugging Face dataset
 * Parquet API (the test starts it on 127.0.0.1; nothing leaves the machine).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage } from 'node:http';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { loadSplit } from '../../src/data/datasets.ts';
import { queryRows } from '../../src/util/duckdb.ts';
import { BadInputError } from '../../src/errors.ts';
import { hubOffline } from '../../src/util/hubClient.ts';

async function parquetFile(): Promise<Buffer> {
  const file = join(mkdtempSync(join(tmpdir(), 'lmaudit-hub-')), 'rows.parquet');
  await queryRows(`COPY (SELECT * FROM (VALUES ('What is 2+2?', 4, 0.5), ('Capital of France?', 7, 1.0)) t(question, label, score)) TO '${file}' (FORMAT parquet)`);
  return readFileSync(file);
}

test('a dataset id with no local copy is read from the hub Parquet API, cached, with the token sent and never stored', async () => {
  const bytes = await parquetFile();
  const seen: IncomingMessage[] = [];
  const server = createServer((req, res) => {
    seen.push(req);
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    if (req.url === '/api/datasets/someorg/tiny/parquet/default/test') {
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify([`${base}/files/someorg/tiny/default/test/0000.parquet`]));
    } else if (req.url === '/files/someorg/tiny/default/test/0000.parquet') {
      res.end(bytes);
    } else {
      res.statusCode = 404;
      res.end('not found');
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const cache = mkdtempSync(join(tmpdir(), 'lmaudit-cache-'));
  const saved = { endpoint: process.env.HF_ENDPOINT, cache: process.env.LMAUDIT_CACHE, token: process.env.HF_TOKEN };
  process.env.HF_ENDPOINT = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  process.env.LMAUDIT_CACHE = cache;
  process.env.HF_TOKEN = 'hf_secret_test_token';
  try {
    const ref = { path: 'someorg/tiny', name: null, kwargs: null };
    const docs = await loadSplit(ref, 'test');
    assert.equal(docs.length, 2);
    assert.equal(docs[0]!.question, 'What is 2+2?');
    assert.equal(docs[1]!.label, 7);
    assert.equal(seen.length, 2);
    assert.ok(seen.every((r) => r.headers.authorization === 'Bearer hf_secret_test_token'));
    // Cached: the second load lists the files again but downloads nothing.
    await loadSplit(ref, 'test');
    assert.deepEqual(seen.slice(2).map((r) => r.url), ['/api/datasets/someorg/tiny/parquet/default/test']);
    // The token is in no cached file or file name.
    const cached = join(cache, 'hub', 'someorg', 'tiny', 'default', 'test');
    for (const name of readdirSync(cached)) {
      assert.ok(!name.includes('hf_secret'));
      assert.ok(!readFileSync(join(cached, name)).includes('hf_secret_test_token'));
    }
    // A split the hub does not have: a clear error naming the dataset and the answer.
    await assert.rejects(
      loadSplit(ref, 'validation'),
      (e: unknown) => e instanceof BadInputError && /someorg\/tiny \(default\) split 'validation': the hub answered 404/.test(e.message),
    );
    await assert.rejects(loadSplit({ path: 'bad/../id', name: null, kwargs: null }, 'test'), BadInputError);
    // Offline, as huggingface_hub's switch says: the cached split is read without a request; one never cached is an
    // error that names the switch; HF_DATASETS_OFFLINE, once set, decides for datasets over HF_HUB_OFFLINE.
    process.env.HF_HUB_OFFLINE = '1';
    const asked = seen.length;
    assert.deepEqual((await loadSplit(ref, 'test')).map((d) => d.question), ['What is 2+2?', 'Capital of France?']);
    assert.equal(seen.length, asked);
    await assert.rejects(
      loadSplit(ref, 'train'),
      (e: unknown) => e instanceof BadInputError && /someorg\/tiny \(default\) split 'train': not in lmaudit's cache \(.*listing\.json\), and HF_HUB_OFFLINE=1 keeps lmaudit off the hub/.test(e.message),
    );
    assert.equal(seen.length, asked);
    process.env.HF_DATASETS_OFFLINE = '0';
    await assert.rejects(loadSplit(ref, 'train'), (e: unknown) => e instanceof BadInputError && /the hub answered 404/.test(e.message));
    assert.equal(seen.length, asked + 1);
  } finally {
    server.close();
    delete process.env.HF_HUB_OFFLINE;
    delete process.env.HF_DATASETS_OFFLINE;
    for (const [key, value] of [['HF_ENDPOINT', saved.endpoint], ['LMAUDIT_CACHE', saved.cache], ['HF_TOKEN', saved.token]] as const) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
  }
});

test('the offline switches are read as huggingface_hub and datasets read them', () => {
  const names = ['HF_HUB_OFFLINE', 'TRANSFORMERS_OFFLINE', 'HF_DATASETS_OFFLINE'] as const;
  const saved = names.map((n) => process.env[n]);
  // [HF_HUB_OFFLINE, TRANSFORMERS_OFFLINE, HF_DATASETS_OFFLINE] → what puts a model, a dataset offline. By hand from
  // huggingface_hub/constants.py (_is_true(HF_HUB_OFFLINE or TRANSFORMERS_OFFLINE), true values 1/ON/YES/TRUE in any
  // case) and datasets/config.py (HF_DATASETS_OFFLINE, when not None, instead of the hub's).
  const cases: [(string | undefined)[], string | null, string | null][] = [
    [[undefined, undefined, undefined], null, null],
    [['1', undefined, undefined], 'HF_HUB_OFFLINE=1', 'HF_HUB_OFFLINE=1'],
    [['yes', undefined, undefined], 'HF_HUB_OFFLINE=yes', 'HF_HUB_OFFLINE=yes'],
    [['0', '1', undefined], null, null],
    [['', '1', undefined], 'TRANSFORMERS_OFFLINE=1', 'TRANSFORMERS_OFFLINE=1'],
    [['1', undefined, '0'], 'HF_HUB_OFFLINE=1', null],
    [['1', undefined, ''], 'HF_HUB_OFFLINE=1', null],
    [[undefined, undefined, 'True'], null, 'HF_DATASETS_OFFLINE=True'],
    [['2', undefined, undefined], null, null],
  ];
  try {
    for (const [values, model, dataset] of cases) {
      names.forEach((n, i) => (values[i] === undefined ? delete process.env[n] : (process.env[n] = values[i])));
      assert.deepEqual([hubOffline('model'), hubOffline('dataset')], [model, dataset], JSON.stringify(values));
    }
  } finally {
    names.forEach((n, i) => (saved[i] === undefined ? delete process.env[n] : (process.env[n] = saved[i])));
  }
});
