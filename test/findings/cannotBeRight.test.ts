/**
 * Issue 15 part 2, "runs that cannot be right": rescore, diff and report flag a model driven
 * with another model's tokenizer or chat template, a degenerate run, and samples whose count
 * contradicts the results file. Real fixtures, edited copies where a case has no real example.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../helpers/cli.ts';

const ASDIV = 'fixtures/lmeval/pr2236-asdiv/asdiv/meta-llama__Meta-Llama-3-8B-Instruct';
const ASDIV_TS = '2024-08-21T03-44-09.494230';
const TQA = 'fixtures/lmeval/pr3032-truthfulqa-gen';
const TQA_SAMPLES = 'samples_truthfulqa_gen_2025-05-31T14-30-51.983293.jsonl';
const TQA_RESULTS = 'truthfulqa_gen_neo125_2025-05-31T14-30-51.983293.json';

interface Finding { run_id: string; label: string; task: string | null; kind: string; message: string }
const findings = (args: string[]): Finding[] => {
  const r = runCli(['rescore', ...args, '--json']);
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout).cannot_be_right;
};

/** asdiv (results + samples) with its results JSON edited. */
function asdivWith(edit: (json: Record<string, unknown>) => void): string {
  const dir = mkdtempSync(join(tmpdir(), 'lmaudit-cbr-'));
  copyFileSync(join(ASDIV, `samples_asdiv_${ASDIV_TS}.jsonl`), join(dir, `samples_asdiv_${ASDIV_TS}.jsonl`));
  const json = JSON.parse(readFileSync(join(ASDIV, `results_${ASDIV_TS}.json`), 'utf8'));
  edit(json);
  writeFileSync(join(dir, `results_${ASDIV_TS}.json`), JSON.stringify(json, null, 2));
  return dir;
}

/** truthfulqa_gen (20 docs) with its samples lines edited. */
function truthfulqaWith(edit: (lines: Record<string, unknown>[]) => Record<string, unknown>[]): string {
  const dir = mkdtempSync(join(tmpdir(), 'lmaudit-cbr-'));
  copyFileSync(join(TQA, TQA_RESULTS), join(dir, TQA_RESULTS));
  const lines = readFileSync(join(TQA, TQA_SAMPLES), 'utf8').split('\n').filter((l) => l !== '').map((l) => JSON.parse(l));
  writeFileSync(join(dir, TQA_SAMPLES), `${edit(lines).map((l) => JSON.stringify(l)).join('\n')}\n`);
  return dir;
}

test('real runs: every exact_match 0 (boolq-seq2seq, the leading space) and every exact_match 1 (wmdp_cyber, list targets)', () => {
  const a = findings(['fixtures/lmeval/bigrefactor-2023-06']);
  assert.deepEqual(a.map((f) => [f.task, f.kind, f.message]), [
    ['boolq-seq2seq', 'constant_scores', 'every one of the 16 per-sample exact_match,none values is 0: the scorer or the outputs are broken, or the task cannot tell models apart'],
  ]);
  const b = findings(['fixtures/lmeval/pr1668-wmdp']);
  assert.deepEqual(b.map((f) => [f.task, f.kind]), [['wmdp_cyber', 'constant_scores']]);
  assert.match(b[0]!.message, /^every one of the 100 per-sample exact_match,none values is 1/);
  // asdiv: 46 of 50 right, varied outputs, counts agree: nothing.
  assert.deepEqual(findings(['fixtures/lmeval/pr2236-asdiv']), []);
  const text = runCli(['rescore', 'fixtures/lmeval/bigrefactor-2023-06']).stdout;
  assert.match(text, /^Cannot be right \(1\):\n {2}lmeval-a6a1045467dd805e · boolq-seq2seq: every one of the 16 per-sample exact_match,none values is 0/m);
});

test("another model's tokenizer in model_args (not another checkpoint of the same family)", () => {
  const foreign = asdivWith((j) => {
    (j.config as Record<string, unknown>).model_args = 'pretrained=meta-llama/Meta-Llama-3-8B-Instruct,tokenizer=Qwen/Qwen2-7B-Instruct';
  });
  assert.deepEqual(findings([foreign]).map((f) => [f.task, f.kind, f.message]), [
    [null, 'foreign_tokenizer', "model_args name tokenizer=Qwen/Qwen2-7B-Instruct for model meta-llama/Meta-Llama-3-8B-Instruct (a Qwen tokenizer for a Llama 3 model): the model reads token ids another model's tokenizer made"],
  ]);
  const sibling = asdivWith((j) => {
    (j.config as Record<string, unknown>).model_args = 'pretrained=meta-llama/Meta-Llama-3-8B-Instruct,tokenizer=meta-llama/Meta-Llama-3-8B';
  });
  assert.deepEqual(findings([sibling]), []);
});

test("a chat template written in another family's special tokens, flagged in diff too", () => {
  const chatml = asdivWith((j) => {
    j.chat_template = "{% for message in messages %}{{'<|im_start|>' + message['role'] + '\\n' + message['content'] + '<|im_end|>\\n'}}{% endfor %}";
  });
  const f = findings([chatml]);
  assert.deepEqual(f.map((x) => [x.task, x.kind]), [['asdiv', 'foreign_chat_template']]);
  assert.equal(
    f[0]!.message,
    "the chat template writes <|im_start|>, <|im_end|> (Qwen's special tokens), which the Llama 3 tokenizer of meta-llama/Meta-Llama-3-8B-Instruct does not have unless this checkpoint added them: the template does not belong to the model",
  );
  const d = runCli(['diff', ASDIV, chatml, '--iterations', '100']);
  assert.equal(d.status, 0, d.stderr);
  assert.match(d.stdout, /^ {2}cannot be right in B: lmeval-[0-9a-f]{16} · asdiv: the chat template writes <\|im_start\|>/m);
  assert.doesNotMatch(d.stdout, /cannot be right in A/);
});

test('degenerate outputs: all empty; all the same; most without an extracted answer', () => {
  const empty = truthfulqaWith((ls) => ls.map((l) => ({ ...l, resps: [['']], filtered_resps: [''] })));
  assert.deepEqual(findings([empty]).filter((f) => f.kind !== 'constant_scores').map((f) => [f.kind, f.message]), [['empty_outputs', 'every one of the 20 outputs is empty']]);
  const same = truthfulqaWith((ls) => ls.map((l) => ({ ...l, resps: [['\nA: I have no comment.']], filtered_resps: ['\nA: I have no comment.'] })));
  assert.deepEqual(findings([same]).filter((f) => f.kind !== 'constant_scores').map((f) => [f.kind, f.message]), [
    ['identical_outputs', 'every one of the 20 outputs is the same text, "\\nA: I have no comment."'],
  ]);
  const invalid = truthfulqaWith((ls) => ls.map((l, i) => (i < 11 ? { ...l, filtered_resps: ['[invalid]'] } : l)));
  assert.deepEqual(findings([invalid]).map((f) => [f.kind, f.message]), [['no_answer_extracted', 'filter none extracted no answer from 11 of 20 outputs (lm-eval\'s "[invalid]")']]);
  const ten = truthfulqaWith((ls) => ls.map((l, i) => (i < 10 ? { ...l, filtered_resps: ['[invalid]'] } : l)));
  assert.deepEqual(findings([ten]), [], 'half is not most');
});

test('samples whose count contradicts the results file: flagged by rescore (as diff does)', () => {
  const short = truthfulqaWith((ls) => ls.slice(0, 15));
  assert.deepEqual(findings([short]).map((f) => [f.task, f.kind, f.message]), [['truthfulqa_gen', 'samples_count', 'the results claim 20 documents, the samples hold 15']]);
});

test('report: the summary leads, with the reported score ± stderr, the readings, falsifier, disclosure and findings', () => {
  const r = runCli(['report', 'fixtures/lmeval/bigrefactor-2023-06', '--format', 'md']);
  assert.equal(r.status, 0, r.stderr);
  const summaryAt = r.stdout.indexOf('**Summary**');
  assert.ok(summaryAt > 0 && summaryAt < r.stdout.indexOf('## Disclosure'));
  assert.match(r.stdout, /^\| boolq-seq2seq \| exact\\_match,none 0 ± 0 \| 0 \(exact\/lm-eval-exact-match\) – 0\.8125 \(exact\/strip\) \| unknown \(this run alone\) \| \d+ of 13 \| 1 finding \(listed below\) \| yes: 1 of 1 reported number \| $/m);
  assert.match(r.stdout, /^\*\*Cannot be right\*\*\n\n- lmeval-a6a1045467dd805e · boolq-seq2seq: every one of the 16 per-sample exact\\_match,none values is 0/m);
  const json = JSON.parse(runCli(['report', 'fixtures/lmeval/bigrefactor-2023-06', '--format', 'json']).stdout);
  assert.deepEqual(json.summary[0].reported, [{ score: 'exact_match,none', value: 0, stderr: 0 }]);
  assert.equal(json.cannotBeRight.length, 1);
});

test('HTML report: headers break between words only', () => {
  const r = runCli(['report', 'fixtures/lmeval/bigrefactor-2023-06', '--format', 'html']);
  assert.equal(r.status, 0, r.stderr);
  // Cells may break long tokens (a path, a hash); a header is short words and breaks only between them.
  assert.match(r.stdout, /thead th \{[^}]*word-break: normal; overflow-wrap: normal;/);
  assert.match(r.stdout, /<caption>Summary<\/caption>/);
});

test('report --against: the summary gives the comparison’s falsifier', () => {
  const r = runCli(['report', 'fixtures/lmeval/pr2236-asdiv/asdiv', '--against', 'fixtures/lmeval/pr2236-asdiv/asdiv_cot', '--format', 'md', '--iterations', '100']);
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /^\| asdiv \| acc,none 0\.92 ± 0\.03876 \| 0\.92 \(every scored cell\) \| holds \(against B\) \| 12 of 13 \| nothing found \| yes: 1 of 1 reported number \| $/m);
});

test('a tokenizer finding names only the special tokens foreign to the family (a Qwen3 run with an added pad token)', () => {
  // lm-eval 0.4.9.2 results of RylanSchaeffer/mem_Qwen3-93M…: eos "<|endoftext|>" (id 151643) is Qwen's own; the pad
  // token "<|pad|>" (id 151669) is not among Qwen's. Saying both were foreign was false.
  const found = findings(['fixtures/eee/converter-inputs/lm_eval']).filter((f) => f.kind === 'tokenizer_tokens');
  assert.deepEqual(found.map((f) => f.message), ['special tokens not of the Qwen tokenizer (pad_token "<|pad|>"): the tokenizer may not belong to the model']);
});
