import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { importSources } from '../../../src/import/index.ts';
import { sha256Hex } from '../../../src/util/hash.ts';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

test('fixtures/lmeval: every file listed in fixtures/SOURCES.md with the sha256 it has', async () => {
  const sources = await readFile(join(ROOT, 'fixtures/SOURCES.md'), 'utf8');
  const section = sources.slice(sources.indexOf('## lmeval/'));
  const rows = [...section.matchAll(/^\| `([^`]+)` \| .* \| `([0-9a-f]{64})` \|$/gm)];
  assert.equal(rows.length, 10);
  for (const [, file, sha] of rows) assert.equal(sha256Hex(await readFile(join(ROOT, 'fixtures/lmeval', file!))), sha, file);
});

test('fixtures/lmeval imports as five runs, each results file paired with its samples', async () => {
  const { runs, unrecognised } = await importSources([join(ROOT, 'fixtures/lmeval')], { skipBad: false, fields: {} });
  assert.deepEqual(unrecognised, []);
  assert.deepEqual(runs.map((r) => r.provenance.source_format), Array(5).fill('lm-eval results+samples'));
  assert.deepEqual(runs.map((r) => Object.keys(r.provenance.tasks).sort().join(',')).sort(), ['asdiv', 'asdiv', 'boolq-seq2seq', 'truthfulqa_gen', 'wmdp,wmdp_bio,wmdp_chem,wmdp_cyber']);
});
