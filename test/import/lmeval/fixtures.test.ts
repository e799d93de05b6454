import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { importSources } from '../../../src/import/index.ts';
import { sha256Hex } from '../../../src/util/hash.ts';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/** The rows `| \`file\` | … | \`sha256\` |` of one `## <folder>/` section of fixtures/SOURCES.md. */
async function listed(folder: string): Promise<[string, string][]> {
  const sources = await readFile(join(ROOT, 'fixtures/SOURCES.md'), 'utf8');
  const start = sources.indexOf(`## ${folder}/`);
  const end = sources.indexOf('\n## ', start + 1);
  const section = sources.slice(start, end === -1 ? undefined : end);
  return [...section.matchAll(/^\| `([^`]+)` \| .* \| `([0-9a-f]{64})` \|$/gm)].map((m) => [m[1]!, m[2]!]);
}

test('fixtures/lmeval and fixtures/inspect/logs: every file listed in fixtures/SOURCES.md with the sha256 it has', async () => {
  const lmeval = await listed('lmeval');
  assert.equal(lmeval.length, 10);
  for (const [file, sha] of lmeval) assert.equal(sha256Hex(await readFile(join(ROOT, 'fixtures/lmeval', file))), sha, file);
  const inspect = await listed('inspect/logs');
  assert.equal(inspect.length, 2);
  for (const [file, sha] of inspect) assert.equal(sha256Hex(await readFile(join(ROOT, 'fixtures/inspect/logs', file))), sha, file);
});

test('fixtures/lmeval imports as five runs, each results file paired with its samples', async () => {
  const { runs, unrecognised } = await importSources([join(ROOT, 'fixtures/lmeval')], { skipBad: false, fields: {} });
  assert.deepEqual(unrecognised, []);
  assert.deepEqual(runs.map((r) => r.provenance.source_format), Array(5).fill('lm-eval results+samples'));
  assert.deepEqual(runs.map((r) => Object.keys(r.provenance.tasks).sort().join(',')).sort(), ['asdiv', 'asdiv', 'boolq-seq2seq', 'truthfulqa_gen', 'wmdp,wmdp_bio,wmdp_chem,wmdp_cyber']);
});
