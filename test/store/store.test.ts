import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, readdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeStore } from '../../src/store/writeStore.ts';
import { openStore } from '../../src/store/readStore.ts';
import { queryRows } from '../../src/util/duckdb.ts';
import { SCHEMA_VERSION, emptyRunProvenance, type StoreManifest } from '../../src/store/schema.ts';
import { StoreError } from '../../src/errors.ts';

const manifest: StoreManifest = {
  schema_version: SCHEMA_VERSION,
  created_by: 'test',
  runs: [emptyRunProvenance({ run_id: 'r1', label: 'x', source_kind: 'generic', source_format: 'jsonl' })],
};
const instance = {
  run_id: 'r1', task: 't', doc_id: '0', group: null, request_idx: 0, request_type: 'generate_until',
  arg_context: 'Q?', arg_continuation: null, gen_kwargs_json: null, doc_json: '{}', doc_hash: 'h',
  prompt_hash: null, target: 'A', choices_json: null, fewshot_doc_ids: null, response_text: null,
};

test('a store round-trips through Parquet with the provenance in the key-value metadata', async () => {
  const dir = join(await mkdtemp(join(tmpdir(), 'lmaudit-')), 'store');
  await writeStore(dir, manifest, { instances: { rows: [instance] } });
  const store = await openStore(dir);
  assert.equal(store.manifest.runs[0]!.run_id, 'r1');
  const rows = await queryRows(`SELECT doc_id, target FROM ${store.table('instances')}`);
  assert.deepEqual(rows, [{ doc_id: '0', target: 'A' }]);
  const meta = await queryRows<{ key: string; value: string }>(
    `SELECT decode(key) AS key, decode(value) AS value FROM parquet_kv_metadata('${join(dir, 'instances.parquet')}')`,
  );
  assert.equal(meta.find((m) => m.key === 'lmaudit_schema_version')?.value, String(SCHEMA_VERSION));
  assert.equal(JSON.parse(meta.find((m) => m.key === 'lmaudit_provenance')!.value)[0].run_id, 'r1');
});

test('a bad row fails the write and leaves neither a store nor a temporary folder', async () => {
  const parent = await mkdtemp(join(tmpdir(), 'lmaudit-'));
  const dir = join(parent, 'store');
  await assert.rejects(
    writeStore(dir, manifest, { instances: { rows: [{ ...instance, request_idx: 'zero' }] } }),
    (e: unknown) => e instanceof StoreError && /request_idx/.test((e as Error).message),
  );
  assert.deepEqual(await readdir(parent), []);
});

test('an existing store is never overwritten without replace', async () => {
  const dir = join(await mkdtemp(join(tmpdir(), 'lmaudit-')), 'store');
  await writeStore(dir, manifest, { instances: { rows: [instance] } });
  await assert.rejects(writeStore(dir, manifest, {}), StoreError);
  const store = await openStore(dir);
  assert.equal((await queryRows(`SELECT count(*) AS n FROM ${store.table('instances')}`))[0]!.n, 1);
});

test('replace replaces a store, and refuses a folder that is not one, changing nothing', async () => {
  const dir = join(await mkdtemp(join(tmpdir(), 'lmaudit-')), 'store');
  await writeStore(dir, manifest, { instances: { rows: [instance] } });
  await writeStore(dir, manifest, { instances: { rows: [instance, { ...instance, doc_id: '1' }] } }, { replace: true });
  assert.equal((await queryRows(`SELECT count(*)::INTEGER AS n FROM ${(await openStore(dir)).table('instances')}`))[0]!.n, 2);
  // `--out ~ --replace` must not remove a home folder.
  const folder = await mkdtemp(join(tmpdir(), 'lmaudit-'));
  await writeFile(join(folder, 'notes.txt'), 'mine');
  await assert.rejects(
    writeStore(folder, manifest, { instances: { rows: [instance] } }, { replace: true }),
    (e: unknown) => e instanceof StoreError && e.message === `${folder}: exists and is not an lmaudit store (no provenance.json beside its tables); --replace replaces only a store, and nothing was changed`,
  );
  assert.deepEqual(await readdir(folder), ['notes.txt']);
  assert.equal(await readFile(join(folder, 'notes.txt'), 'utf8'), 'mine');
});

test('a manifest field of the wrong type is named, with an English reason', async () => {
  const dir = join(await mkdtemp(join(tmpdir(), 'lmaudit-')), 'store');
  await writeStore(dir, manifest, { instances: { rows: [instance] } });
  const path = join(dir, 'provenance.json');
  const json = JSON.parse(await readFile(path, 'utf8'));
  json.runs[0].label = 7;
  await writeFile(path, JSON.stringify(json));
  await assert.rejects(openStore(dir), (e: unknown) => {
    assert.ok(e instanceof StoreError);
    assert.equal((e as Error).message, `${path}: field 'runs.0.label': Invalid input: expected string, received number`);
    return true;
  });
});

test("a record note written without evidence reads back with an empty list (the schema's default)", async () => {
  const dir = join(await mkdtemp(join(tmpdir(), 'lmaudit-')), 'store');
  const noted = structuredClone(manifest);
  noted.runs[0]!.notes = [{ task: null, kind: 'k', message: 'm' } as never];
  await writeStore(dir, noted, { instances: { rows: [instance] } });
  assert.deepEqual((await openStore(dir)).manifest.runs[0]!.notes, [{ task: null, kind: 'k', message: 'm', evidence: [] }]);
});

test('a store at an http URL is read (fetched into a temporary copy when DuckDB has no httpfs extension, as offline)', async () => {
  const { createServer } = await import('node:http');
  const { readFile: read } = await import('node:fs/promises');
  const dir = join(await mkdtemp(join(tmpdir(), 'lmaudit-')), 'store');
  await writeStore(dir, manifest, { instances: { rows: [instance, { ...instance, doc_id: '1', target: 'B' }] } });
  const server = createServer((req, res) => {
    read(join(dir, decodeURIComponent(req.url!.replace(/^\/store\//, ''))))
      .then((bytes) => res.end(bytes))
      .catch(() => {
        res.statusCode = 404;
        res.end();
      });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const port = (server.address() as { port: number }).port;
    const store = await openStore(`http://127.0.0.1:${port}/store/`);
    assert.equal(store.location, `http://127.0.0.1:${port}/store/`);
    assert.equal(store.local, false);
    assert.equal(store.manifest.runs[0]!.run_id, 'r1');
    assert.deepEqual(await queryRows(`SELECT doc_id, target FROM ${store.table('instances')} ORDER BY doc_id`), [{ doc_id: '0', target: 'A' }, { doc_id: '1', target: 'B' }]);
    await assert.rejects(openStore(`http://127.0.0.1:${port}/missing/`), (e: unknown) => e instanceof StoreError && /missing\/provenance\.json: (the server answered 404|cannot read)/.test((e as Error).message));
  } finally {
    server.close();
  }
});

test('a version 1 store (before instances.response_text) still opens, its items joined from responses, with the same scores; an unknown version is refused', async () => {
  const { cp, rm } = await import('node:fs/promises');
  const { runCli } = await import('../helpers/cli.ts');
  const { computeMatrix } = await import('../../src/score/matrix.ts');
  const records = new URL('../score/fixtures/letter_cases.jsonl', import.meta.url).pathname;
  const parent = await mkdtemp(join(tmpdir(), 'lmaudit-v1-'));
  const current = join(parent, 'v2');
  assert.equal(runCli(['import', records, '--out', current]).status, 0);
  // The same store as version 1 wrote it: no response_text column, schema_version 1.
  const old = join(parent, 'v1');
  await cp(current, old, { recursive: true });
  await rm(join(old, 'instances.parquet'));
  await queryRows(`COPY (SELECT * EXCLUDE (response_text) FROM read_parquet('${join(current, 'instances.parquet')}'))
    TO '${join(old, 'instances.parquet')}' (FORMAT parquet, COMPRESSION zstd)`);
  const manifest = JSON.parse(await readFile(join(old, 'provenance.json'), 'utf8'));
  await writeFile(join(old, 'provenance.json'), JSON.stringify({ ...manifest, schema_version: 1 }));

  const v1 = await openStore(old);
  assert.equal(v1.items, undefined);
  const v2 = await openStore(current);
  assert.notEqual(v2.items, undefined);
  const cells = async (store: typeof v1) => (await computeMatrix(store, { flipsLimit: 50 })).map((s) => [s.cells.map((c) => [c.extractor, c.normalizer, c.aggregation, c.correct, c.n, c.stderr]), s.flips]);
  assert.deepEqual(await cells(v1), await cells(v2));

  await writeFile(join(old, 'provenance.json'), JSON.stringify({ ...manifest, schema_version: 3 }));
  await assert.rejects(openStore(old), (e: unknown) => e instanceof StoreError && /schema_version 3, this lmaudit reads 1 and 2/.test((e as Error).message));
});
