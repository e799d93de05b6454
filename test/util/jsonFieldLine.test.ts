/**
 * The line of a field named by its path in a whole-JSON text. Each expected line is counted by hand in the text
 * written beside it (line 1 is the first line of the template literal's text).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fieldLine, withFieldLine, withRecordFieldLine } from '../../src/util/jsonFieldLine.ts';
import { BadInputError } from '../../src/errors.ts';

const PRETTY = `{
  "note": "a \\"samples\\": [ { \\"target\\": 1 } ] and a } and a ] and a \\\\",
  "samples": [
    {
      "id": 1,
      "target": "A"
    },
    {
      "id": "tricky [\\"x\\"] {",
      "input": [[1, 2], {"target": "not this one"}],
      "target":
        ["B", "C"]
    }
  ],
  "results": {"scores": [{"metrics": {"f1.micro": {"value": NaN}, "acc": {"value": -Infinity}}}]}
}`;

test('a field in a pretty-printed text: its value line, past strings with escaped quotes and brackets', () => {
  assert.equal(fieldLine(PRETTY, 'note'), 2);
  assert.equal(fieldLine(PRETTY, 'samples'), 3);
  assert.equal(fieldLine(PRETTY, 'samples[0]'), 4);
  assert.equal(fieldLine(PRETTY, 'samples[0].target'), 6);
  assert.equal(fieldLine(PRETTY, 'samples[1].id'), 9);
  assert.equal(fieldLine(PRETTY, 'samples[1].input[1].target'), 10);
  // The value starts on the line after its key.
  assert.equal(fieldLine(PRETTY, 'samples[1].target'), 12);
  assert.equal(fieldLine(PRETTY, 'samples[1].target[1]'), 12);
  // A key holding a dot, after Python's bare NaN.
  assert.equal(fieldLine(PRETTY, 'results.scores[0].metrics.f1.micro.value'), 15);
  assert.equal(fieldLine(PRETTY, 'results.scores[0].metrics.acc.value'), 15);
  assert.equal(fieldLine(PRETTY, ''), 1);
});

test('a missing field: the line of the object or list that should hold it, else none', () => {
  assert.equal(fieldLine(PRETTY, 'samples[1].output'), 8);
  assert.equal(fieldLine(PRETTY, 'samples[0].scores'), 4);
  assert.equal(fieldLine(PRETTY, 'samples[2]'), 3);
  assert.equal(fieldLine(PRETTY, 'eval'), 1);
  // Two steps missing, or a step into a value that is no container: no line rather than a wrong one.
  assert.equal(fieldLine(PRETTY, 'samples[1].output.usage'), undefined);
  assert.equal(fieldLine(PRETTY, 'samples[5].target'), undefined);
  assert.equal(fieldLine(PRETTY, 'note.x'), undefined);
  assert.equal(fieldLine(PRETTY, 'samples.x'), undefined);
});

test('a minified text is all line 1; a text that starts later counts from its first line', () => {
  const minified = JSON.stringify(JSON.parse(PRETTY.replace(/NaN|-Infinity/g, '0')));
  assert.equal(fieldLine(minified, 'samples[1].target[1]'), 1);
  assert.equal(fieldLine(minified, 'samples[1].output'), 1);
  assert.equal(fieldLine(minified, 'samples[1].target', 40), 40);
  assert.equal(fieldLine('\ufeff\r\n{"a":\r\n 1}', 'a'), 3);
});

test('a key written twice is found where JSON.parse keeps it, the last; an ambiguous path gets no line', () => {
  const twice = '{"a": {"b": 1},\n"a": {"c": 2}}';
  assert.equal(fieldLine(twice, 'a'), 2);
  assert.equal(fieldLine(twice, 'a.c'), 2);
  // JSON.parse keeps only the second "a", which has no "b": the first one's "b" is not the field.
  assert.equal(fieldLine(twice, 'a.b'), 2);
  assert.equal((JSON.parse(twice) as { a: { b?: number } }).a.b, undefined);
  const spelled = '{"x.y": {"z": 1},\n"x": {"y": {"z": 2}}}';
  assert.equal(fieldLine(spelled, 'x.y.z'), undefined);
  assert.equal(fieldLine('{"k\\u002e1": 0,\n"k.2": 1}', 'k.1'), 1);
  assert.equal(fieldLine('[\n1,\n[2,\n3]]', '[1][1]'), 4);
  assert.equal(fieldLine('[]', '[0]'), 1);
});

test('an error of this file naming a field gets its line; another file, a member, or a line already given is left', () => {
  const text = '{\n "a": [\n  1,\n  "x"\n ]\n}';
  const error = new BadInputError('expected a number, found a string', { file: 'f.json', field: 'a[1]' });
  assert.equal((withFieldLine(error, text, { file: 'f.json' }) as Error).message, "f.json, line 4, field 'a[1]': expected a number, found a string");
  for (const where of [{ file: 'g.json', field: 'a[1]' }, { file: 'f.json', member: 'm', field: 'a[1]' }, { file: 'f.json', line: 9, field: 'a[1]' }, { file: 'f.json' }]) {
    const other = new BadInputError('x', where);
    assert.equal(withFieldLine(other, text, { file: 'f.json' }), other);
  }
  const plain = new Error('boom');
  assert.equal(withFieldLine(plain, text, { file: 'f.json' }), plain);
});

test("a record's field named at the record's first line moves to its own line; records sharing a line keep theirs", () => {
  const text = '[\n  {"doc_id": 0,\n   "resps": 1},\n  {\n    "doc_id": 1,\n    "resps":\n      "x"\n  }, {"doc_id": 2}, {"doc_id": 3}\n]';
  const starts = [2, 4, 8, 8];
  const at = (line: number, field: string) => (withRecordFieldLine(new BadInputError('bad', { file: 'f.json', line, field }), text, 'f.json', starts) as BadInputError).where.line;
  assert.equal(at(2, 'resps'), 3);
  assert.equal(at(4, 'resps'), 7);
  assert.equal(at(4, 'doc_id'), 5);
  // Missing from the record: its own first line, as before.
  assert.equal(at(4, 'target'), 4);
  // Two records open on line 8: which one is meant is not known, so the line stays.
  assert.equal(at(8, 'doc_id'), 8);
  assert.equal(at(9, 'doc_id'), 9);
});

test("arrayElements: each top-level element's offset and line, strings with brackets and escaped quotes stepped over", async () => {
  const { arrayElements, fieldLine } = await import('../../src/util/jsonFieldLine.ts');
  const text = '\ufeff[\n  {"a": "x\\"]}[", "b": 1},\n  2,\n\n  {\n    "c": [1,\n 2]\n  }\n]\n';
  const elements = arrayElements(text);
  // By hand: the first object opens on line 2, the 2 on line 3, the last object on line 5.
  assert.deepEqual(elements.map((e) => e.line), [2, 3, 5]);
  assert.deepEqual(elements.map((e) => text[e.at]), ['{', '2', '{']);
  // A field looked up within its element's text, from the element's line, is where a lookup in the whole text finds it.
  const own = text.slice(elements[2]!.at);
  assert.equal(fieldLine(own, 'c', elements[2]!.line), fieldLine(text, '[2].c'));
  assert.equal(fieldLine(own, 'c', elements[2]!.line), 6);
  assert.deepEqual(arrayElements('{"a": 1}'), []);
  assert.deepEqual(arrayElements('[ ]'), []);
});
