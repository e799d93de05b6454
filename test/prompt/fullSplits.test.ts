/**
 * Whole eval splits (every document, not only the golden files' first 100) against an
 * independent Python rebuild (test/prompt/reference/full_splits.py: Jinja2,
 * random.Random(1234), literal_eval, lm-eval's layouts): one digest per task over the
 * arguments of all documents. This exercises the few-shot RNG over thousands of draws.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { dumpsPy } from '../../src/py/json.ts';
import { buildPrompts } from '../../src/prompt/prompts.ts';

const reference = JSON.parse(readFileSync(new URL('./reference/full_splits.json', import.meta.url), 'utf8')) as Record<string, { docs: number; sha256: string }>;

for (const [key, expected] of Object.entries(reference)) {
  const [task, shots] = key.split('.') as [string, string];
  test(`${task} ${shots}: all ${expected.docs} documents`, async () => {
    const { built } = await buildPrompts({ tasks: [task], numFewshot: Number.parseInt(shots, 10) });
    const docs = built[0]!.docs;
    assert.equal(docs.length, expected.docs);
    const hash = createHash('sha256');
    for (const d of docs) hash.update(`${dumpsPy(d.arguments)}\n`);
    assert.equal(hash.digest('hex'), expected.sha256);
  });
}
