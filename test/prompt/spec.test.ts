/**
 * The prompt vectors of lmeval-prompts.md §7 and §14 (produced by running lm-eval's own
 * code on synthetic datasets), rebuilt through YAML, the dataset loader and the builder.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compileChatTemplate } from '../../src/prompt/chatTemplate.ts';
import { buildQaTurn, messagesToText } from '../../src/prompt/context.ts';
import { pyStrOf } from '../../src/prompt/build.ts';
import { instanceRows } from '../../src/prompt/instances.ts';
import { MOCK_CHAT, buildIn, taskFolder } from './helpers.ts';

const mock = compileChatTemplate(MOCK_CHAT, { origin: 'mock' });
const ctxs = (docs: { arguments: unknown[][] }[]) => docs.map((d) => d.arguments[0]![0]);
const conts = (doc: { arguments: unknown[][] }) => doc.arguments.map((a) => a[1]);

const ARC_YAML = `task: arc_spec
dataset_path: .
output_type: multiple_choice
training_split: train
test_split: test
doc_to_text: "Question: {{question}}\\nAnswer:"
doc_to_target: "{{choices.label.index(answerKey)}}"
doc_to_choice: "{{choices.text}}"
`;
const arc = (i: number) => ({
  id: `arc-${i}`,
  question: `Which thing number ${i} is true?`,
  choices: { text: [`option a${i}`, `option b${i}`, `option c${i}`, `option d${i}`], label: ['A', 'B', 'C', 'D'] },
  answerKey: 'ABCD'[i % 4],
});
const arcDir = () =>
  taskFolder({
    'arc.yaml': ARC_YAML,
    'train.jsonl': Array.from({ length: 10 }, (_, i) => arc(i)),
    'test.jsonl': [arc(100), arc(101), arc(102), { id: 'n', question: 'Numeric labels?', choices: { text: ['one', 'two', 'three'], label: ['1', '2', '3'] }, answerKey: '2' }],
  });

test('arc 2-shot: shot draws [7,1] [0,1] [9,0] [1,9], continuations, int targets', async () => {
  const docs = await buildIn(arcDir(), 'arc_spec', { numFewshot: 2 });
  assert.deepEqual(ctxs(docs), [
    'Question: Which thing number 7 is true?\nAnswer: option d7\n\nQuestion: Which thing number 1 is true?\nAnswer: option b1\n\nQuestion: Which thing number 100 is true?\nAnswer:',
    'Question: Which thing number 0 is true?\nAnswer: option a0\n\nQuestion: Which thing number 1 is true?\nAnswer: option b1\n\nQuestion: Which thing number 101 is true?\nAnswer:',
    'Question: Which thing number 9 is true?\nAnswer: option b9\n\nQuestion: Which thing number 0 is true?\nAnswer: option a0\n\nQuestion: Which thing number 102 is true?\nAnswer:',
    'Question: Which thing number 1 is true?\nAnswer: option b1\n\nQuestion: Which thing number 9 is true?\nAnswer: option b9\n\nQuestion: Numeric labels?\nAnswer:',
  ]);
  assert.deepEqual(conts(docs[0]!), [' option a100', ' option b100', ' option c100', ' option d100']);
  assert.deepEqual(conts(docs[3]!), [' one', ' two', ' three']);
  assert.deepEqual(docs.map((d) => d.target), [0, 1, 2, 1]);
  assert.deepEqual(docs.map((d) => d.fewshot_doc_ids), [[7, 1], [0, 1], [9, 0], [1, 9]]);
  const rows = instanceRows(docs[0]!, 'run-1');
  assert.equal(rows.length, 4);
  assert.deepEqual(
    { ...rows[1], doc_json: undefined },
    {
      run_id: 'run-1', task: 'arc_spec', doc_id: '0', group: null, request_idx: 1, request_type: 'loglikelihood',
      arg_context: docs[0]!.arguments[0]![0], arg_continuation: ' option b100', gen_kwargs_json: null, doc_json: undefined,
      doc_hash: docs[0]!.doc_hash, prompt_hash: docs[0]!.prompt_hash, target: '0',
      choices_json: '["option a100", "option b100", "option c100", "option d100"]', fewshot_doc_ids: '[7, 1]',
      response_text: null,
    },
  );
});

test('arc chat: multiturn, single-turn, no leading space; plain system instruction is glued', async () => {
  const multi = await buildIn(arcDir(), 'arc_spec', { numFewshot: 2, chatTemplate: mock });
  assert.equal(
    multi[0]!.arguments[0]![0],
    '<|user|>Question: Which thing number 7 is true?\nAnswer:<|end|><|assistant|>option d7<|end|><|user|>Question: Which thing number 1 is true?\nAnswer:<|end|><|assistant|>option b1<|end|><|user|>Question: Which thing number 100 is true?\nAnswer:<|end|><|assistant|>',
  );
  assert.deepEqual(conts(multi[0]!), ['option a100', 'option b100', 'option c100', 'option d100']);
  const single = await buildIn(arcDir(), 'arc_spec', { numFewshot: 2, chatTemplate: mock, fewshotAsMultiturn: false });
  assert.equal(
    single[0]!.arguments[0]![0],
    '<|user|>Question: Which thing number 7 is true?\nAnswer: option d7\n\nQuestion: Which thing number 1 is true?\nAnswer: option b1\n\nQuestion: Which thing number 100 is true?\nAnswer:<|end|><|assistant|>',
  );
  const sys = await buildIn(arcDir(), 'arc_spec', { numFewshot: 1, systemInstruction: 'You are a careful grader.' });
  assert.equal(sys[0]!.arguments[0]![0], 'You are a careful grader.Question: Which thing number 7 is true?\nAnswer: option d7\n\nQuestion: Which thing number 100 is true?\nAnswer:');
});

const GSM_YAML = `task: gsm_spec
dataset_path: .
output_type: generate_until
training_split: train
fewshot_split: train
test_split: test
doc_to_text: "Question: {{question}}\\nAnswer:"
doc_to_target: "{{answer}}"
generation_kwargs: {until: ["Question:", "</s>", "<|im_end|>"], do_sample: false, temperature: 0.0}
`;

test('gsm8k 2-shot from a pool of 12: draws [7, 1]; kwargs keep the float', async () => {
  const dir = taskFolder({
    'g.yaml': GSM_YAML,
    'train.jsonl': Array.from({ length: 12 }, (_, i) => ({ question: `Train question ${i}?`, answer: `Step ${i}.\n#### ${i}` })),
    'test.jsonl': [{ question: 'Janet has 3 apples. How many?', answer: '3' }],
  });
  const [doc] = await buildIn(dir, 'gsm_spec', { numFewshot: 2 });
  assert.equal(doc!.arguments[0]![0], 'Question: Train question 7?\nAnswer: Step 7.\n#### 7\n\nQuestion: Train question 1?\nAnswer: Step 1.\n#### 1\n\nQuestion: Janet has 3 apples. How many?\nAnswer:');
  const { dumpsPy } = await import('../../src/py/json.ts');
  assert.equal(dumpsPy(doc!.arguments[0]![1]), '{"until": ["Question:", "</s>", "<|im_end|>"], "do_sample": false, "temperature": 0.0}');
});

test('a shot whose target is empty gets no delimiter', () => {
  const turns = [
    ...buildQaTurn({ q: 'Question: q0\nAnswer:', a: '', pyStr: pyStrOf }),
    ...buildQaTurn({ q: 'Question: q1\nAnswer:', a: 'a1', pyStr: pyStrOf }),
    ...buildQaTurn({ q: 'Question: qt\nAnswer:', fewDelim: '', pyStr: pyStrOf }),
  ];
  assert.equal(messagesToText(turns), 'Question: q0\nAnswer:Question: q1\nAnswer: a1\n\nQuestion: qt\nAnswer:');
});

test('build_qa_turn whitespace matrix (tests/test_fewshot_context.py)', () => {
  const X = '<T>';
  const t = (q: string, gp: string | null, a: string | null) => messagesToText(buildQaTurn({ q, a, genPrefix: gp, tgtDelim: X, fewDelim: '', pyStr: pyStrOf }));
  assert.equal(t('Q', null, 'A'), 'Q<T>A');
  assert.equal(t('Q', null, null), 'Q');
  assert.equal(t('Q', 'P', null), 'Q<T>P');
  assert.equal(t('Q', 'P', 'A'), 'Q<T>P A');
  assert.equal(t('Q\n', 'P', 'A'), 'Q\nP A');
  assert.equal(t('Q', '\nP', null), 'Q\nP');
  assert.equal(t('Q', 'P\n', 'A'), 'Q<T>P\nA');
  assert.equal(t('Q', 'P', '\nA'), 'Q<T>P\nA');
});

const MMLU_YAML = `task: mmlu_spec
dataset_path: .
test_split: test
fewshot_split: dev
fewshot_config:
  sampler: first_n
output_type: multiple_choice
doc_to_text: "{{question.strip()}}\\nA. {{choices[0]}}\\nB. {{choices[1]}}\\nC. {{choices[2]}}\\nD. {{choices[3]}}\\nAnswer:"
doc_to_choice: ["A", "B", "C", "D"]
doc_to_target: answer
description: "The following are multiple choice questions (with answers) about abstract\\
  \\ algebra.\\n\\n"
`;
const mmluDir = () =>
  taskFolder({
    'm.yaml': MMLU_YAML,
    'dev.jsonl': Array.from({ length: 5 }, (_, i) => ({ question: ` Dev question ${i}? `, choices: [`w${i}`, `x${i}`, `y${i}`, `z${i}`], answer: i % 4 })),
    'test.jsonl': [{ question: 'Find the degree of Q(sqrt(2)) over Q.', choices: ['0', '4', '2', '6'], answer: 2 }],
  });
const DESC = 'The following are multiple choice questions (with answers) about abstract algebra.\n\n';
const EVAL = 'Find the degree of Q(sqrt(2)) over Q.\nA. 0\nB. 4\nC. 2\nD. 6\nAnswer:';

test('mmlu: description, first_n shots, system instruction, chat system message', async () => {
  assert.equal((await buildIn(mmluDir(), 'mmlu_spec'))[0]!.arguments[0]![0], DESC + EVAL);
  const two = (await buildIn(mmluDir(), 'mmlu_spec', { numFewshot: 2 }))[0]!;
  assert.equal(two.arguments[0]![0], `${DESC}Dev question 0?\nA. w0\nB. x0\nC. y0\nD. z0\nAnswer: A\n\nDev question 1?\nA. w1\nB. x1\nC. y1\nD. z1\nAnswer: B\n\n${EVAL}`);
  assert.deepEqual(conts(two), [' A', ' B', ' C', ' D']);
  const sys = (await buildIn(mmluDir(), 'mmlu_spec', { numFewshot: 1, systemInstruction: 'SYS' }))[0]!;
  assert.equal(sys.arguments[0]![0], `SYS\n\n${DESC}Dev question 0?\nA. w0\nB. x0\nC. y0\nD. z0\nAnswer: A\n\n${EVAL}`);
  const chat = (await buildIn(mmluDir(), 'mmlu_spec', { numFewshot: 1, chatTemplate: mock }))[0]!;
  assert.equal(chat.arguments[0]![0], `<|system|>${DESC}<|end|><|user|>Dev question 0?\nA. w0\nB. x0\nC. y0\nD. z0\nAnswer:<|end|><|assistant|>A<|end|><|user|>${EVAL}<|end|><|assistant|>`);
  assert.deepEqual(conts(chat), ['A', 'B', 'C', 'D']);
});

const WINO_YAML = `task: winogrande
dataset_path: .
output_type: multiple_choice
training_split: train
validation_split: validation
doc_to_text: !function preprocess_winogrande.doc_to_text
doc_to_target: !function preprocess_winogrande.doc_to_target
doc_to_choice: !function preprocess_winogrande.doc_to_choice
`;

test('winogrande: partial evaluation, n+1 draws [24, 14, 3], chat multiturn', async () => {
  const S = 'Sarah was a much better surgeon than Maria so';
  const row = (suffix: string, answer: string) => ({ sentence: `${S} _ always got the harder cases${suffix}`, option1: 'Sarah', option2: 'Maria', answer });
  // The folder must be called `winogrande` for `!function preprocess_winogrande.*` to name the port.
  const root = taskFolder({});
  const { mkdirSync, writeFileSync } = await import('node:fs');
  mkdirSync(`${root}/winogrande`);
  writeFileSync(`${root}/winogrande/default.yaml`, WINO_YAML);
  writeFileSync(`${root}/winogrande/train.jsonl`, Array.from({ length: 30 }, (_, i) => JSON.stringify(row(` ${i}.`, i % 2 === 0 ? '1' : '2'))).join('\n'));
  writeFileSync(`${root}/winogrande/validation.jsonl`, `${JSON.stringify(row(' 900.', '1'))}\n`);
  const zero = (await buildIn(root, 'winogrande'))[0]!;
  assert.deepEqual(zero.arguments, [[`${S} Sarah`, ' always got the harder cases 900.'], [`${S} Maria`, ' always got the harder cases 900.']]);
  const two = (await buildIn(root, 'winogrande', { numFewshot: 2 }))[0]!;
  assert.equal(two.arguments[0]![0], `${S} Sarah always got the harder cases 24.\n\n${S} Sarah always got the harder cases 14.\n\n${S} Sarah`);
  assert.equal(two.arguments[1]![0], `${S} Sarah always got the harder cases 24.\n\n${S} Sarah always got the harder cases 14.\n\n${S} Maria`);
  const chat = (await buildIn(root, 'winogrande', { numFewshot: 1, chatTemplate: mock }))[0]!;
  assert.equal(chat.arguments[0]![0], `<|user|>${S} Sarah<|end|><|assistant|>always got the harder cases 24.<|end|><|user|>${S} Sarah<|end|><|assistant|>`);
  assert.equal(chat.arguments[0]![1], 'always got the harder cases 900.');
});

test('lambada: (context, " " + last word), shots from test itself with a double space', async () => {
  const dir = taskFolder({
    'l.yaml': `task: lambada_spec\ndataset_path: .\noutput_type: loglikelihood\ntest_split: test\ndoc_to_text: "{{text.split(' ')[:-1]|join(' ')}}"\ndoc_to_target: "{{' '+text.split(' ')[-1]}}"\n`,
    'test.jsonl': Array.from({ length: 6 }, (_, i) => ({ text: `the quick brown fox number ${i} jumps over the lazy dog${i}` })),
  });
  assert.deepEqual((await buildIn(dir, 'lambada_spec'))[0]!.arguments, [['the quick brown fox number 0 jumps over the lazy', ' dog0']]);
  const one = await buildIn(dir, 'lambada_spec', { numFewshot: 1 });
  assert.deepEqual(one[0]!.arguments[0], ['the quick brown fox number 3 jumps over the lazy  dog3\n\nthe quick brown fox number 0 jumps over the lazy', ' dog0']);
  assert.deepEqual(one[1]!.arguments[0], ['the quick brown fox number 0 jumps over the lazy  dog0\n\nthe quick brown fox number 1 jumps over the lazy', ' dog1']);
});

test('hellaswag: process_docs cleanup order and capitalize; n+1 draws', async () => {
  const yaml = `task: hellaswag\ndataset_path: .\noutput_type: multiple_choice\ntraining_split: train\nvalidation_split: validation\ntest_split: null\nprocess_docs: !function utils.process_docs\ndoc_to_text: "{{query}}"\ndoc_to_target: "{{label}}"\ndoc_to_choice: "choices"\n`;
  const synth = (n: number, label: string) => ({
    ind: n,
    activity_label: 'Removing ice from car',
    ctx_a: `Then, the man writes over the snow covering the window of a car, and a woman wearing winter clothes smiles. [title] then${n}`,
    ctx_b: 'THE man Starts',
    ctx: '',
    endings: [0, 1, 2, 3].map((k) => ` [step] ending  ${k} [substeps] of ${n}.  `),
    source_id: '',
    split: 'train',
    split_type: 'indomain',
    label,
  });
  const root = taskFolder({});
  const { mkdirSync, writeFileSync } = await import('node:fs');
  mkdirSync(`${root}/hellaswag`);
  writeFileSync(`${root}/hellaswag/hellaswag.yaml`, yaml);
  const real = { ind: 24, activity_label: 'Roof shingle removal', ctx_a: 'A man is sitting on a roof.', ctx_b: 'he', ctx: '', endings: ['is using wrap to wrap a pair of skis.', 'is ripping level tiles off.', "is holding a rubik's cube.", 'starts pulling up roofing on a roof.'], source_id: '', split: 'val', split_type: 'zeroshot', label: '3' };
  writeFileSync(`${root}/hellaswag/validation.jsonl`, [synth(1000, '0'), real].map((d) => JSON.stringify(d)).join('\n'));
  writeFileSync(`${root}/hellaswag/train.jsonl`, Array.from({ length: 30 }, (_, i) => JSON.stringify(synth(i, String(i % 4)))).join('\n'));
  const zero = await buildIn(root, 'hellaswag');
  const Q = (n: number) => `Removing ice from car: Then, the man writes over the snow covering the window of a car, and a woman wearing winter clothes smiles.. then${n} The man starts`;
  assert.equal(zero[0]!.arguments[0]![0], Q(1000));
  assert.deepEqual(conts(zero[0]!), ['  ending 0 of 1000.', '  ending 1 of 1000.', '  ending 2 of 1000.', '  ending 3 of 1000.']);
  assert.equal(zero[1]!.arguments[0]![0], 'Roof shingle removal: A man is sitting on a roof. He');
  assert.deepEqual(conts(zero[1]!), [' is using wrap to wrap a pair of skis.', ' is ripping level tiles off.', " is holding a rubik's cube.", ' starts pulling up roofing on a roof.']);
  assert.equal(zero[1]!.target, 3);
  const one = await buildIn(root, 'hellaswag', { numFewshot: 1 });
  assert.equal(one[0]!.arguments[0]![0], `${Q(24)}  ending 0 of 24.\n\n${Q(1000)}`);
});
