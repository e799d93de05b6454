/**
 * Every file in ../shared/data/golden-prompts (made by lm-eval's own prompt code on the
 * same data) is rebuilt with the settings its MANIFEST records, and every argument,
 * target and document must be byte-identical (compared in Python's JSON spelling, so
 * `0.0` stays a float).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { buildPrompts } from '../../src/prompt/prompts.ts';
import { dumpsPy, parsePyJson } from '../../src/data/pyjson.ts';

const dir = fileURLToPath(new URL('../../../shared/data/golden-prompts/', import.meta.url));
const manifest = JSON.parse(readFileSync(`${dir}MANIFEST.json`, 'utf8')) as {
  limit: number;
  chat_templates: Record<string, { chat_template_sha256: string }>;
  files: { file: string; task: string; num_fewshot: number; chat_template_name: string | null; fewshot_as_multiturn: boolean }[];
};

for (const entry of manifest.files) {
  test(`golden ${entry.file}`, async () => {
    const lines = readFileSync(dir + entry.file, 'utf8').split('\n').filter(Boolean).map((l) => parsePyJson(l) as Record<string, unknown>);
    const { built, chatTemplate } = await buildPrompts({
      tasks: [entry.task],
      numFewshot: entry.num_fewshot,
      limit: manifest.limit,
      applyChatTemplate: entry.chat_template_name,
      fewshotAsMultiturn: entry.chat_template_name ? entry.fewshot_as_multiturn : null,
    });
    assert.equal(built.length, 1);
    if (entry.chat_template_name) assert.equal(chatTemplate?.sha256, manifest.chat_templates[entry.chat_template_name]!.chat_template_sha256);
    const docs = built[0]!.docs;
    assert.equal(docs.length, lines.length);
    let mismatched = 0;
    lines.forEach((golden, i) => {
      const mine = docs[i]!;
      assert.equal(mine.doc_id, golden.doc_id);
      assert.equal(dumpsPy(mine.doc), dumpsPy(golden.doc), `doc ${i}`);
      assert.equal(dumpsPy(mine.target), dumpsPy(golden.target), `target ${i}`);
      assert.equal(mine.request_type, golden.request_type, `request_type ${i}`);
      if (dumpsPy(mine.arguments) !== dumpsPy(golden.arguments)) mismatched++;
    });
    if (mismatched > 0) {
      const i = lines.findIndex((g, k) => dumpsPy(docs[k]!.arguments) !== dumpsPy(g.arguments));
      assert.deepEqual(docs[i]!.arguments, lines[i]!.arguments, `${mismatched} of ${lines.length} docs differ; first: doc ${i}`);
    }
  });
}
