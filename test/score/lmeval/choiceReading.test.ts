import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readChoiceDoc } from '../../../src/score/lmeval/choiceReading.ts';

const facts = { winogrande: false, targetDelimiter: ' ' };

test('a store that kept the continuations as choices (lmaudit run before it recorded doc_to_choice) is read without the delimiter', () => {
  const read = readChoiceDoc(facts, { target: '1', choices: [' Paris', ' Rome'], continuations: [' Paris', ' Rome'], doc: null }, 2);
  assert.deepEqual(read, { kind: 'read', gold: 1, choices: ['Paris', 'Rome'], choicesInferred: true });
  // doc_to_choice recorded: taken as it is.
  const kept = readChoiceDoc(facts, { target: '0', choices: ['Paris', 'Rome'], continuations: [' Paris', ' Rome'], doc: null }, 2);
  assert.deepEqual(kept, { kind: 'read', gold: 0, choices: ['Paris', 'Rome'], choicesInferred: false });
});

test('winogrande partial evaluation: the gold is doc_to_text (answer "2" → 1), the choices the two contexts', () => {
  const doc = { sentence: 'Sarah was a better surgeon than Maria so _ got the easier cases.', option1: 'Sarah', option2: 'Maria', answer: '2' };
  const read = readChoiceDoc(facts, { target: 'got the easier cases.', choices: null, continuations: [' got the easier cases.', ' got the easier cases.'], doc }, 2);
  assert.deepEqual(read, {
    kind: 'read', gold: 1, choicesInferred: false,
    choices: ['Sarah was a better surgeon than Maria so Sarah', 'Sarah was a better surgeon than Maria so Maria'],
  });
});

test('another multiple-input task (no port for its doc_to_text): unreadable, with the reason, never scored against the continuation', () => {
  const read = readChoiceDoc(facts, { target: 'x', choices: null, continuations: [' x', ' x'], doc: { q: 1 } }, 2);
  assert.equal(read.kind, 'unreadable');
  assert.match((read as { why: string }).why, /^multiple-input task/);
});
