import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readChoiceDoc } from '../../../src/score/lmeval/choiceReading.ts';
import { inferredChoicesNote } from '../../../src/score/scopeTallies.ts';

const facts = { winogrande: false, targetDelimiter: ' ' };

test('a store that kept the continuations as choices (lmaudit run before it recorded doc_to_choice) is read without the delimiter', () => {
  const read = readChoiceDoc(facts, { target: '1', choices: [' Paris', ' Rome'], continuations: [' Paris', ' Rome'], doc: null }, 2);
  assert.deepEqual(read, { kind: 'read', gold: 1, choices: ['Paris', 'Rome'], choicesInferred: { removed: ' ' } });
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

test('choices inferred from continuations say which delimiter was cut, or that none was', () => {
  // No doc_to_choice recorded: a newline delimiter is cut; continuations without it are taken as they are. The note
  // said "the leading ' ' delimiter removed" in both cases.
  const nl = readChoiceDoc({ winogrande: false, targetDelimiter: '\n' }, { target: '0', choices: null, continuations: ['\nyes', '\nno'], doc: null }, 2);
  assert.deepEqual(nl, { kind: 'read', gold: 0, choices: ['yes', 'no'], choicesInferred: { removed: '\n' } });
  const bare = readChoiceDoc(facts, { target: '1', choices: null, continuations: ['yes', 'no'], doc: null }, 2);
  assert.deepEqual(bare, { kind: 'read', gold: 1, choices: ['yes', 'no'], choicesInferred: { removed: null } });
  assert.equal(inferredChoicesNote(new Map([[' ', 4]])), 'choice strings taken from the continuations with the leading " " target delimiter removed (inferred)');
  assert.equal(
    inferredChoicesNote(new Map([['\n', 3], ['', 1]])),
    'choice strings taken from the continuations 3 of 4 item(s) with the leading "\\n" target delimiter removed; 1 of 4 item(s) as recorded (the continuations do not all start with the target delimiter) (inferred)',
  );
});
