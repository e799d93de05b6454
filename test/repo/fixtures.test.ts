/**
 * The copies of other people's outputs in fixtures/external and fixtures/golden-prompts are exactly the originals
 * (but for the absolute home paths fixtures/external/copy_from_data.sh writes from ~/, in the one file it lists):
 * the rebuilt trees hold every file of SHA256SUMS (written by that script) and nothing else, and every
 * golden-prompts file decompresses to the bytes and sha256 its own MANIFEST records.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { externalFixture, filesUnder, fixturePath, goldenPromptText, originalName } from '../helpers/fixtures.ts';

const sha256 = (bytes: Buffer | string): string => createHash('sha256').update(bytes).digest('hex');

test('fixtures/external rebuilds the lm-eval, pythia, Inspect and agent-record trees byte for byte, with no file missing or extra', () => {
  const sums = readFileSync(fixturePath('external/SHA256SUMS'), 'utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => {
      const m = /^([0-9a-f]{64}) {2}(.+)$/.exec(l);
      assert.ok(m, `SHA256SUMS line: ${l}`);
      return [m[2]!, m[1]!] as const;
    });
  // 39 lm-evaluation-harness files, 2 pythia, 8 Inspect (7 logs and their SOURCES.md), 108 agent records (with
  // their SOURCES.md and MANIFEST.jsonl): the whole of each tree.
  assert.deepEqual(
    ['lm-evaluation-harness/', 'pythia/', 'inspect/', 'agents/'].map((t) => sums.filter(([f]) => f.startsWith(t)).length),
    [39, 2, 8, 108],
  );
  const root = externalFixture();
  const rebuilt = ['lm-evaluation-harness', 'pythia', 'inspect', 'agents'].flatMap((t) => filesUnder(root, `${t}/`)).sort();
  assert.deepEqual(rebuilt, sums.map(([f]) => f).sort());
  for (const [file, sum] of sums) assert.equal(sha256(readFileSync(`${root}${file}`)), sum, file);
});

test('fixtures/external stores each file once: none of its files is also in fixtures/lmeval or fixtures/inspect/logs', () => {
  const stored = (tree: string) => filesUnder(fixturePath(`external/${tree}`)).map((f) => originalName(f).name);
  const lmeval = new Set(filesUnder(fixturePath('lmeval')));
  const inspect = new Set(filesUnder(fixturePath('inspect/logs')));
  assert.deepEqual(stored('lm-evaluation-harness').filter((f) => lmeval.has(f)), []);
  assert.deepEqual(stored('inspect').filter((f) => inspect.has(f)), []);
});

test('fixtures/golden-prompts: every file in its MANIFEST, decompressed, has the bytes and sha256 recorded there', () => {
  const manifest = JSON.parse(goldenPromptText('MANIFEST.json')) as { files: { file: string; bytes: number; sha256: string; docs: number }[] };
  assert.equal(manifest.files.length, 23);
  const stored = filesUnder(fixturePath('golden-prompts')).filter((f) => f.endsWith('.jsonl.gz'));
  assert.deepEqual(stored, manifest.files.map((f) => `${f.file}.gz`).sort());
  for (const entry of manifest.files) {
    const text = goldenPromptText(entry.file);
    assert.equal(Buffer.byteLength(text), entry.bytes, entry.file);
    assert.equal(sha256(text), entry.sha256, entry.file);
    assert.equal(text.split('\n').filter((l) => l !== '').length, entry.docs, entry.file);
  }
});
