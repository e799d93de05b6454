// The answer type is read from every distinct gold in SQL (goldClassSql). Its rule, as first
// written in JavaScript, is the reference here: trim(), then a single letter, or a number.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { goldClassSql, detectAnswerType } from '../../src/score/sweeps.ts';
import { queryRows, sqlString } from '../../src/util/duckdb.ts';
import { runCli } from '../helpers/cli.ts';
import { fixturePath } from '../helpers/fixtures.ts';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { slowOnly } from '../helpers/slow.ts';

const LETTER = /^\(?[A-Za-z]\)?$/;
const NUMBER = /^[-+]?[$]?[0-9][0-9,]*(\.[0-9]+)?$|####\s*-?[0-9.,]+\s*$/;

/** Golds built from the characters the two rules turn on, white space of every kind included. */
function golds(count: number): string[] {
  const pieces = ['A', 'b', 'Z', '(', ')', '1', '0', '9', ',', '.', '$', '-', '+', '#', '####', ' ', '\t', '\n', '\u000b', '\r', '\u00a0',
    '\u2003', '\u3000', '\ufeff', '\u2028', '\u0085', '\u180e', '\u200b', 'é', 'x'];
  let seed = 20261130;
  const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  const out = ['', ' ', 'A', ' (B) ', 'c)', '(d', '12', '-3.5', '$1,234', '1.', '.5', '#### 42', 'so #### -7 \n', '####', 'AB', '\ufeffA\u00a0', '\u0085A', '42\u0085'];
  while (out.length < count) {
    const length = 1 + Math.floor(next() * 6);
    out.push(Array.from({ length }, () => pieces[Math.floor(next() * pieces.length)]).join(''));
  }
  return out;
}

// A slow cross-check since the plain suite passed 5 minutes on a slower 2-core machine: .ci/run runs it.
test('every gold is classed in SQL as the JavaScript rule classes it (letters, numbers), white space of every kind included', { skip: slowOnly }, async () => {
  const values = golds(4000);
  const sql = goldClassSql('g');
  const rows = await queryRows<{ i: number; letter: boolean; number: boolean }>(`
    SELECT i, ${sql.letter} AS letter, ${sql.number} AS number
    FROM (SELECT unnest(range(len(gs))) AS i, unnest(gs) AS g FROM (SELECT [${values.map(sqlString).join(', ')}] AS gs)) ORDER BY i`);
  let letters = 0;
  let numbers = 0;
  for (const row of rows) {
    const g = values[row.i]!;
    assert.equal(row.letter, LETTER.test(g.trim()), `letter: ${JSON.stringify(g)}`);
    assert.equal(row.number, NUMBER.test(g.trim()), `number: ${JSON.stringify(g)}`);
    letters += Number(row.letter);
    numbers += Number(row.number);
  }
  // Both classes are well represented, so the comparison covers each way.
  assert.ok(letters > 100 && numbers > 100, `${letters} letters, ${numbers} numbers`);
});

test('the answer type reads every gold: one free-text gold after 1,500 numbers makes the task free text', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'lmaudit-type-'));
  const records = Array.from({ length: 1500 }, (_, i) => JSON.stringify({ id: `n${i}`, output: `#### ${i}`, gold: String(i) }));
  await writeFile(join(dir, 'numbers.jsonl'), records.join('\n'));
  await writeFile(join(dir, 'mixed.jsonl'), [...records, JSON.stringify({ id: 'w', output: 'Paris', gold: 'Paris' })].join('\n'));
  const type = (file: string) => {
    const cli = runCli(['rescore', join(dir, file), '--json']);
    assert.equal(cli.status, 0, cli.stderr);
    return JSON.parse(cli.stdout).cells[0].answer_type;
  };
  assert.equal(type('numbers.jsonl'), 'numbers');
  assert.equal(type('mixed.jsonl'), 'free-text');
  assert.deepEqual(detectAnswerType({ hasLogprobs: false, maxRequests: 1 }, { count: 0, allLetters: true, allNumbers: true }).type, 'free-text');
});

test("a free-text task's reason is true of mixed golds: EEE's math_perturbed_full has numbers among them", () => {
  // The lm-eval samples EEE's converter reads: targets '3', '9', '\\dfrac{13}{9}', '-3', '5', '503', 'x \\in [-3,8]', '10',
  // '5, 7, 15, 16', '-\\frac{1}{12}' (read with Python's json): six are numbers, none a letter, so the task is free text
  // because not all of them are numbers. Before the fix the reason read 'golds are neither single letters nor numbers'.
  const cli = runCli(['rescore', fixturePath('eee/converter-inputs/lm_eval'), '--tasks', 'math_perturbed_full', '--json']);
  assert.equal(cli.status, 0, cli.stderr);
  const [scope] = JSON.parse(cli.stdout).scopes;
  assert.equal(scope.answer_type, 'free-text');
  assert.equal(scope.answer_type_why, 'the golds are neither all single letters nor all numbers');
  // No gold at all is said as such, not as golds of some other kind.
  assert.equal(detectAnswerType({ hasLogprobs: false, maxRequests: 1 }, { count: 0, allLetters: true, allNumbers: true }).why, 'no gold is recorded to read a type from');
});
