/** Issue 28 §5: golds that are not one string, and a gold flag a source cannot honour. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadSource } from '../../src/audit/source.ts';
import { computeMatrix } from '../../src/score/matrix.ts';
import { goldAnswers } from '../../src/score/golds.ts';
import { BadInputError } from '../../src/errors.ts';
import { runCli } from '../helpers/cli.ts';
import { externalFixture, fixturePath } from '../helpers/fixtures.ts';

test("SQuAD answers ({'text': [...], 'answer_start': [...]}) are the acceptable answers; a mapping naming none is refused with the field", () => {
  assert.deepEqual(goldAnswers("{'text': ['66 million years ago', '66 Ma'], 'answer_start': [760, 801]}"), { answers: ['66 million years ago', '66 Ma'], shape: 'squad' });
  assert.deepEqual(goldAnswers("['Paris', 'paris']"), { answers: ['Paris', 'paris'], shape: 'list' });
  assert.deepEqual(goldAnswers('{not a literal'), { answers: ['{not a literal'], shape: 'one' });
  assert.throws(() => goldAnswers("{'label': 3}"), (e: unknown) => e instanceof BadInputError && e.where.field === 'target' && /names no answer/.test(e.message));
});

test('xquad (bigscience, SQuAD golds): contains finds a gold answer in 4 of 35 outputs, 3 of 5 on jeopardy, and says it took the best match', async () => {
  // Python over the examples file: sum(any(a in r['pred'] for a in r['target']['text']) for r in rows) == 4,
  // per prompt_name {'answer_the_question': 1, 'jeopardy': 3, the other five: 0}, 5 rows each.
  const { store } = await loadSource([externalFixture('lm-evaluation-harness/pr566-bigscience-xquad')], { skipBad: false, fields: {} });
  const scopes = await computeMatrix(store, { extractors: ['contains'], normalizers: ['strip'], aggregations: ['micro'] });
  const correct = Object.fromEntries(scopes.map((s) => [s.task.replace('xquad.en+', ''), s.cells[0]!.correct]));
  assert.deepEqual(correct, {
    answer_given_context_and_question: 0, answer_question_given_context: 0, answer_the_question: 1,
    given_context_answer_question_variation: 0, given_context_generate_question: 0, jeopardy: 3, read_passage: 0,
  });
  for (const s of scopes) {
    assert.equal(s.cells[0]!.n, 5);
    assert.ok(s.notes.some((n) => /^5 item\(s\) record several acceptable answers .*best match over its acceptable answers, as SQuAD's and lm-eval's metrics do/.test(n)), s.notes.join('\n'));
  }
});

test('--gold-field doc.answer on an lm-eval source (wmdp) is honoured: the index into the choices is a letter gold, the letter sweep runs, 38 of 100', async () => {
  // Python over the samples file: sum('ABCD'[r['doc']['answer']] == first letter of r['resps'][0][0]) == 38 (every output is one letter).
  const r = runCli(['rescore', fixturePath('lmeval/pr1668-wmdp'), '--extractors', 'first-letter', '--normalizers', 'strip', '--aggregations', 'micro', '--gold-field', 'doc.answer', '--json']);
  assert.equal(r.status, 0, r.stderr);
  const json = JSON.parse(r.stdout);
  assert.equal(json.scopes[0].answer_type, 'letters');
  assert.deepEqual([json.cells[0].correct, json.cells[0].n], [38, 100]);
  assert.ok(json.scopes[0].notes.some((n: string) => /^golds read from the stored document's field doc\.answer \(--gold-field\)/.test(n)));
  // Without the flag the target is the whole choice list, which every answer matches.
  const plain = JSON.parse(runCli(['rescore', fixturePath('lmeval/pr1668-wmdp'), '--extractors', 'first-letter', '--normalizers', 'strip', '--aggregations', 'micro', '--json']).stdout);
  assert.equal(plain.cells[0].correct, 100);
});

test('a field flag nothing would honour is refused with the reason (exit 2): --id-field on lm-eval, --gold-field with as-recorded or naming no field', () => {
  const wmdp = fixturePath('lmeval/pr1668-wmdp');
  const refused = (args: string[], message: RegExp) => {
    const r = runCli(['rescore', wmdp, ...args]);
    assert.equal(r.status, 2, r.stdout);
    assert.equal(r.stdout, '');
    assert.match(r.stderr, message);
    assert.doesNotMatch(r.stderr, /\n\s+at /);
  };
  refused(['--id-field', 'qid'], /--id-field qid names a field of generic records \(JSONL\/CSV\), but run lmeval-[0-9a-f]+ is a source of kind lm-eval, which records its own id; the flag would be ignored, so it is refused/);
  refused(['--extractors', 'as-recorded', '--gold-field', 'doc.answer'], /--gold-field does not apply to as-recorded/);
  refused(['--gold-field', 'doc.nope'], /no stored document of task wmdp_cyber \(run lmeval-[0-9a-f]+\) has the field doc\.nope, so it names no gold/);
  refused(['--gold-field', 'doc[0]'], /'doc\[0\]' is not a field path of the stored document/);
});
