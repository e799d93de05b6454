/**
 * The coercion traps of lmeval-prompts.md §5 and the YAML 1.1 / seed / gen_prefix
 * rules, each checked against what lm-eval does.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BadInputError } from '../../src/errors.ts';
import { compileChatTemplate, loadChatTemplate } from '../../src/prompt/chatTemplate.ts';
import { parseSeed } from '../../src/prompt/prompts.ts';
import { PyFloat } from '../../src/py/values.ts';
import { parseYamlText } from '../../src/tasks/yaml.ts';
import { MOCK_CHAT, buildIn, taskFolder } from './helpers.ts';

const base = (extra: string) => `task: t\ndataset_path: .\noutput_type: multiple_choice\ntest_split: test\ndoc_to_text: "{{q}}"\n${extra}`;

test('digit-only rendered targets become ints only when doc_to_choice is set; "-1" stays text', async () => {
  const docs = [{ q: 'x', t: '2', c: ['a', 'b', 'c'] }, { q: 'y', t: '00', c: ['a'] }];
  const withChoice = await buildIn(taskFolder({ 't.yaml': base('doc_to_target: "{{t}}"\ndoc_to_choice: c\n'), 'test.jsonl': docs }), 't');
  assert.deepEqual(withChoice.map((d) => d.target), [2, 0]);
  const gen = taskFolder({ 't.yaml': 'task: t\ndataset_path: .\ntest_split: test\ndoc_to_text: "{{q}}"\ndoc_to_target: "{{t}}"\n', 'test.jsonl': [{ q: 'x', t: '2' }, { q: 'y', t: '-1' }] });
  assert.deepEqual((await buildIn(gen, 't')).map((d) => d.target), ['2', '-1']);
});

test('"03" raises (leading zeros) with the task and doc named', async () => {
  const dir = taskFolder({ 't.yaml': base('doc_to_target: "{{t}}"\ndoc_to_choice: c\n'), 'test.jsonl': [{ q: 'x', t: '03', c: ['a'] }] });
  await assert.rejects(buildIn(dir, 't'), (e: unknown) => e instanceof BadInputError && /field 'doc_to_target': task 't', doc 0: .*leading zeros/.test(e.message));
});

test('a rendered [...] target becomes a list; a column name returns the raw value', async () => {
  const dir = taskFolder({
    't.yaml': 'task: t\ndataset_path: .\ntest_split: test\ndoc_to_text: "{{q}}"\ndoc_to_target: "{{tt}}"\n',
    'test.jsonl': [{ q: 'x', tt: ['a', "it's"] }, { q: 'y', tt: '[not a literal' }],
  });
  const docs = await buildIn(dir, 't');
  assert.deepEqual(docs[0]!.target, ['a', "it's"]);
  assert.equal(docs[1]!.target, '[not a literal');
  const col = taskFolder({ 't.yaml': base('doc_to_target: answer\ndoc_to_choice: choices\n'), 'test.jsonl': [{ q: 'x', answer: 1, choices: ['p', 'q'] }] });
  const [d] = await buildIn(col, 't');
  assert.equal(d!.target, 1);
  assert.deepEqual(d!.arguments, [['x', ' p'], ['x', ' q']]);
});

test('YAML 1.1 as PyYAML: yes/on are booleans, 0777 is octal, floats stay floats, single quotes keep \\n', () => {
  const v = parseYamlText("a: yes\nb: on\nc: 0777\nd: 1.0\ne: 'x\\ny'\nf: \"x\\ny\"\ng: 1:30\n", 't.yaml');
  assert.equal(v.a, true);
  assert.equal(v.b, true);
  assert.equal(v.c, 511);
  assert.ok(v.d instanceof PyFloat && v.d.value === 1);
  assert.equal(v.e, 'x\\ny');
  assert.equal(v.f, 'x\ny');
  assert.equal(v.g, 90);
});

test('--seed: one value for all, 3–4 values, None', () => {
  assert.deepEqual(parseSeed(null), { random: 0, numpy: 1234, torch: 1234, fewshot: 1234 });
  assert.deepEqual(parseSeed('42'), { random: 42, numpy: 42, torch: 42, fewshot: 42 });
  assert.deepEqual(parseSeed('0,1,2'), { random: 0, numpy: 1, torch: 2, fewshot: 1234 });
  assert.deepEqual(parseSeed('0,1,2,None'), { random: 0, numpy: 1, torch: 2, fewshot: null });
  assert.throws(() => parseSeed('1,2'), BadInputError);
});

test('the few-shot seed picks the shots; a YAML num_fewshot of 0 cannot be overridden', async () => {
  const pool = Array.from({ length: 10 }, (_, i) => ({ q: `q${i}`, a: `a${i}` }));
  const yaml = 'task: t\ndataset_path: .\ntraining_split: train\ntest_split: test\ndoc_to_text: "{{q}}"\ndoc_to_target: "{{a}}"\n';
  const dir = taskFolder({ 't.yaml': yaml, 'train.jsonl': pool, 'test.jsonl': [{ q: 'Q', a: 'A' }] });
  const at1234 = (await buildIn(dir, 't', { numFewshot: 2 }))[0]!.arguments[0]![0];
  assert.equal(at1234, 'q7 a7\n\nq1 a1\n\nQ');
  const at0 = (await buildIn(dir, 't', { numFewshot: 2, fewshotSeed: 0 }))[0]!.arguments[0]![0];
  assert.notEqual(at0, at1234);
  const locked = taskFolder({ 't.yaml': `${yaml}num_fewshot: 0\n`, 'train.jsonl': pool, 'test.jsonl': [{ q: 'Q', a: 'A' }] });
  assert.equal((await buildIn(locked, 't', { numFewshot: 5 }))[0]!.arguments[0]![0], 'Q');
});

test('gen_prefix: joined with the target delimiter, kept in chat as a continued assistant turn', async () => {
  const yaml = 'task: t\ndataset_path: .\noutput_type: multiple_choice\ntraining_split: train\ntest_split: test\ndoc_to_text: "Q: {{q}}"\ndoc_to_target: 0\ndoc_to_choice: ["A", "B"]\ngen_prefix: "The best answer is"\n';
  const dir = taskFolder({ 't.yaml': yaml, 'train.jsonl': [{ q: 'one' }], 'test.jsonl': [{ q: 'two' }] });
  const plain = (await buildIn(dir, 't', { numFewshot: 1 }))[0]!;
  assert.deepEqual(plain.arguments[0], ['Q: one The best answer is A\n\nQ: two The best answer is', ' A']);
  const chat = (await buildIn(dir, 't', { numFewshot: 1, chatTemplate: compileChatTemplate(MOCK_CHAT, { origin: 'mock' }) }))[0]!;
  // The eval turn ends with the assistant's gen_prefix and continue_final_message cuts after it.
  assert.deepEqual(chat.arguments[0], ['<|user|>Q: one<|end|><|assistant|>The best answer is A<|end|><|user|>Q: two<|end|><|assistant|>The best answer is', ' A']);
});

test('bundled chat templates load offline with their special tokens', () => {
  const llama = loadChatTemplate('llama3');
  assert.equal(llama.sha256, 'b48c47f6443892716176eb200bf4ef108f64e06ca26ed0fa8ebc0a4b3992fcb2');
  assert.equal(llama.render([{ role: 'user', content: 'hi' }], true), '<|begin_of_text|><|start_header_id|>user<|end_header_id|>\n\nhi<|eot_id|><|start_header_id|>assistant<|end_header_id|>\n\n');
  const qwen = loadChatTemplate('qwen3');
  assert.equal(qwen.render([{ role: 'user', content: 'hi' }], true), '<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\n');
});

test('fewshot_config.samples with first_n and an `is defined` target (gsm8k_cot style)', async () => {
  const yaml = `task: t
dataset_path: .
test_split: test
doc_to_text: "Q: {{question}}\\nA:"
doc_to_target: "{{answer.split('####')[-1].strip() if answer is defined else target}}"
fewshot_config:
  sampler: first_n
  samples:
    - question: s1
      target: The answer is 1.
    - question: s2
      target: The answer is 2.
num_fewshot: 2
`;
  const dir = taskFolder({ 't.yaml': yaml, 'test.jsonl': [{ question: 'Janet?', answer: 'work\n#### 18' }] });
  const [d] = await buildIn(dir, 't');
  assert.equal(d!.arguments[0]![0], 'Q: s1\nA: The answer is 1.\n\nQ: s2\nA: The answer is 2.\n\nQ: Janet?\nA:');
  assert.equal(d!.target, '18');
  assert.deepEqual(d!.fewshot_doc_ids, [0, 1]);
});

test('acc_mutual_info adds unconditional requests; loglikelihood_rolling sends the target alone', async () => {
  const mc = taskFolder({
    't.yaml': base('doc_to_target: 0\ndoc_to_choice: ["yes", "no"]\nmetric_list:\n  - metric: acc_mutual_info\n'),
    'test.jsonl': [{ q: 'Q?' }],
  });
  assert.deepEqual((await buildIn(mc, 't'))[0]!.arguments, [['Q?', ' yes'], ['Q?', ' no'], ['', ' yes'], ['', ' no']]);
  const rolling = taskFolder({
    't.yaml': 'task: t\ndataset_path: .\noutput_type: loglikelihood_rolling\ntest_split: test\ndoc_to_text: ""\ndoc_to_target: "{{page}}"\n',
    'test.jsonl': [{ page: 'A whole page.' }],
  });
  const [r] = await buildIn(rolling, 't');
  assert.deepEqual(r!.arguments, [['A whole page.']]);
  assert.equal(r!.request_type, 'loglikelihood_rolling');
});

test('chat templates from a tokenizer_config.json (named templates) or a template file; the no-system retry', async () => {
  const { writeFileSync, mkdtempSync } = await import('node:fs');
  const dir = mkdtempSync(`${(await import('node:os')).tmpdir()}/lmaudit-chat-`);
  const config = {
    bos_token: { content: '<s>', lstrip: false },
    chat_template: [
      { name: 'default', template: '{{ bos_token }}{% for m in messages %}[{{ m.role }}]{{ m.content }}{% endfor %}' },
      { name: 'tool_use', template: 'TOOLS{% for m in messages %}{{ m.content }}{% endfor %}' },
    ],
  };
  writeFileSync(`${dir}/tokenizer_config.json`, JSON.stringify(config));
  writeFileSync(`${dir}/t.jinja`, "{% if messages[0].role == 'system' %}{{ raise_exception('System role not supported') }}{% endif %}{% for m in messages %}<{{ m.role }}>{{ m.content }}{% endfor %}");
  const named = loadChatTemplate(`${dir}/tokenizer_config.json`);
  assert.equal(named.render([{ role: 'user', content: 'hi' }], true), '<s>[user]hi');
  assert.equal(loadChatTemplate(`${dir}/tokenizer_config.json:tool_use`).render([{ role: 'user', content: 'hi' }], true), 'TOOLShi');
  // lm-eval's HF model retries without system messages when the template raises.
  const strict = loadChatTemplate(`${dir}/t.jinja`);
  assert.equal(strict.render([{ role: 'system', content: 'S' }, { role: 'user', content: 'U' }], true), '<user>U');
  assert.throws(() => loadChatTemplate('nonesuch'), /Unknown chat template/);
});
