/**
 * Chat templates render as lm-eval's HFLM renders them through transformers 5 (test/golden/chat_templates.json, made
 * by test/golden/chat_templates_gen.py): generation prompts, the retry without system messages, and
 * continue_final_message, which transformers 5 cuts at a marker appended to the final message. lmaudit cut after the
 * last occurrence of the message's own text (transformers 4), which differs when the template rewrites the message.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { compileChatTemplate } from '../../src/prompt/chatTemplate.ts';

const golden = JSON.parse(readFileSync(new URL('../golden/chat_templates.json', import.meta.url), 'utf8')) as {
  special_tokens: Record<string, string>;
  templates: Record<string, string>;
  cases: { template: string; messages: { role: string; content: string }[]; add_generation_prompt: boolean; rendered: string }[];
};

for (const [name, source] of Object.entries(golden.templates)) {
  test(`chat template '${name}' renders as transformers 5 renders it for lm-eval`, () => {
    const template = compileChatTemplate(source, { origin: name, tokens: golden.special_tokens });
    for (const c of golden.cases.filter((x) => x.template === name)) {
      assert.equal(template.render(c.messages, c.add_generation_prompt), c.rendered, JSON.stringify(c.messages));
    }
  });
}
