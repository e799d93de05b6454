/**
 * Every file in fixtures/golden-prompts (made by lm-eval's own prompt code on the
 * same data) is rebuilt with the settings its MANIFEST records, and every argument,
 * target and document must be byte-identical (compared in Python's JSON spelling, so
 * `0.0` stays a float).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { buildPrompts } from '../../src/prompt/prompts.ts';
import { dumpsPy, parsePyJson } from '../../src/py/json.ts';
import { goldenPromptText } from '../helpers/fixtures.ts';
import { runCli } from '../helpers/cli.ts';

const manifest = JSON.parse(goldenPromptText('MANIFEST.json')) as {
  limit: number;
  chat_templates: Record<string, { chat_template_sha256: string }>;
  files: { file: string; task: string; num_fewshot: number; chat_template_name: string | null; fewshot_as_multiturn: boolean }[];
};

for (const entry of manifest.files) {
  test(`golden ${entry.file}`, async () => {
    const lines = goldenPromptText(entry.file).split('\n').filter(Boolean).map((l) => parsePyJson(l) as Record<string, unknown>);
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

test('the CLI writes the same arguments (arc_easy 5-shot chat, first 3 docs) and a summary', async () => {
  const { mkdtempSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const out = `${mkdtempSync(`${tmpdir()}/lmaudit-cli-`)}/p.jsonl`;
  const r = runCli(['prompts', '--tasks', 'arc_easy', '--num_fewshot', '5', '--limit', '3', '--apply_chat_template', 'llama3', '--out', out, '--json']);
  assert.equal(r.status, 0, r.stderr);
  const summary = JSON.parse(r.stdout) as { tasks: { task: string; docs: number; fewshot_as_multiturn: boolean }[]; chat_template: { sha256: string } };
  assert.deepEqual(summary.tasks.map((t) => [t.task, t.docs, t.fewshot_as_multiturn]), [['arc_easy', 3, true]]);
  const mine = readFileSync(out, 'utf8').split('\n').filter(Boolean).map((l) => parsePyJson(l) as Record<string, unknown>);
  const golden = goldenPromptText('arc_easy.5shot.chat-llama3.jsonl').split('\n').slice(0, 3).map((l) => parsePyJson(l) as Record<string, unknown>);
  assert.deepEqual(mine.map((l) => dumpsPy(l.arguments)), golden.map((l) => dumpsPy(l.arguments)));
  assert.deepEqual(Object.keys(mine[0]!), ['task', 'doc_id', 'doc', 'target', 'arguments', 'request_type', 'doc_hash', 'prompt_hash']);
});
