import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { CanonicalTokens, controlBytePositions, TOKEN } from '../../src/py/canonicalJson.ts';
import { parseOrdered, pyDumps, type PyNode } from '../../src/py/orderedJson.ts';
import { externalFixture, fixturePath } from '../helpers/fixtures.ts';

// json.dumps(v, ensure_ascii=False) and json.dumps(v, indent=2, ensure_ascii=False) as CPython wrote them.
const cases = readFileSync(new URL('./canonical_cases.jsonl', import.meta.url), 'utf8')
  .trim()
  .split('\n')
  .map((l) => JSON.parse(l) as { dumps: string; indent2: string });

/** The exact reader's node for token `k`, built from the token table alone. */
function tokenNode(tokens: CanonicalTokens, k: number): PyNode {
  const kind = tokens.kind[k];
  if (kind === TOKEN.string) return { k: 'str', v: tokens.string(k) };
  if (kind === TOKEN.number) return { k: 'num', raw: tokens.slice(k) };
  if (kind === TOKEN.literal) {
    const text = tokens.slice(k);
    return text === 'null' ? { k: 'null' } : { k: 'bool', v: text === 'true' };
  }
  const children: number[] = [];
  for (let c = k + 1; c < tokens.next[k]!; c = tokens.next[c]!) children.push(c);
  if (kind === TOKEN.array) return { k: 'arr', items: children.map((c) => tokenNode(tokens, c)) };
  const entries: [string, PyNode][] = [];
  for (let j = 0; j < children.length; j += 2) entries.push([tokens.string(children[j]!), tokenNode(tokens, children[j + 1]!)]);
  return { k: 'obj', entries };
}

test("CPython's json.dumps output is canonical: its token table holds the exact reader's nodes, each member's text is its json.dumps, and indent=2 renders as CPython's", () => {
  assert.equal(cases.length, 17);
  const tokens = new CanonicalTokens();
  for (const { dumps, indent2 } of cases) {
    const exact = parseOrdered(dumps);
    assert.equal(pyDumps(exact), dumps, 'the exact path renders it back unchanged');
    assert.equal(tokens.read(dumps), true, dumps);
    assert.equal(tokens.next[0], tokens.count);
    assert.deepEqual(tokenNode(tokens, 0), exact, dumps);
    assert.equal(tokens.indented(0, 2), indent2, dumps);
    if (exact.k === 'obj') {
      let i = 0;
      for (let k = 1; k < tokens.next[0]!; k = tokens.next[k + 1]!, i++) {
        assert.equal(tokens.string(k), exact.entries[i]![0]);
        assert.equal(tokens.slice(k + 1), pyDumps(exact.entries[i]![1]));
      }
      assert.equal(i, exact.entries.length);
    }
  }
});

test('text that pyDumps would not give back unchanged is refused, so the exact reader reads it', () => {
  const refused = [
    '{"a":1}', // compact separators (JSON.stringify's)
    '{"a":  1}',
    '{"a" : 1}',
    '{"a": 1,"b": 2}',
    ' {"a": 1}',
    '{"a": 1} ',
    '{ }',
    '[ ]',
    '{"a": [1 ]}',
    '{"a": "a\\/b"}', // an escape JSON.stringify never writes
    '{"a": "\\u00e9"}', // é escaped, as ensure_ascii=True writes it
    '{"a": "\\u001F"}', // upper-case hex
    '{"a": "\\u0008"}', // \b spelt long
    '{"a": "\\ud83d\\ude00"}', // a surrogate pair escaped
    '{"a": "\\ud800"}', // a lone surrogate escaped (Python writes it raw)
    '{"a": }',
    '{"a": 01}',
    '{"a": 1.}',
    '{"a": .5}',
    '{"a": -}',
    '{"a": +1}',
    '{"a": [1, ]}',
    '{"a": "unterminated}',
    '{"a": tru}',
    '{"a": nan}',
    '{"a": 1}{"b": 2}',
    '{a: 1}',
    "{'a': 1}",
    '{"a": "x\\q"}',
  ];
  const tokens = new CanonicalTokens();
  for (const text of refused) assert.equal(tokens.read(text), false, text);
  // Nesting past the reader's bound goes to the exact reader, which bounds it too.
  assert.equal(tokens.read(`{"a": ${'['.repeat(70)}${']'.repeat(70)}}`), false);
});

test('a repeated key is kept twice, as the exact reader keeps it', () => {
  const text = '{"a": 1, "a": {"b": [2, "x"]}}';
  const tokens = new CanonicalTokens();
  assert.equal(tokens.read(text), true);
  assert.deepEqual(tokenNode(tokens, 0), parseOrdered(text));
});

test('every record of the real lm-eval samples files in the fixtures is canonical and reads as the exact reader reads it', () => {
  const files = [
    fixturePath('lmeval/pr3032-truthfulqa-gen/samples_truthfulqa_gen_2025-05-31T14-30-51.983293.jsonl'),
    fixturePath('lmeval/pr2236-asdiv/asdiv/meta-llama__Meta-Llama-3-8B-Instruct/samples_asdiv_2024-08-21T03-44-09.494230.jsonl'),
    externalFixture('lm-evaluation-harness/pr3144-tgpred/samples_polymer_tg_prediction_2025-06-30T19-40-09.461247.jsonl'),
    externalFixture('lm-evaluation-harness/pr3032-truthfulqa-gen/samples_truthfulqa_gen_2025-05-31T13-51-32.759677.jsonl'),
    fixturePath('models/lmeval-reference/qwen3-tiny/chat/samples_gsm8k_2026-12-02T01-57-08.844863.jsonl'),
    fixturePath('models/lmeval-reference/gpt2-tiny/plain/samples_mmlu_abstract_algebra_2026-12-02T01-45-53.923896.jsonl'),
  ];
  let records = 0;
  const tokens = new CanonicalTokens();
  for (const file of files) {
    const bytes = readFileSync(file);
    const text = (file.endsWith('.gz') ? gunzipSync(bytes) : bytes).toString('utf8');
    for (const line of text.split('\n')) {
      if (line === '') continue;
      records++;
      assert.equal(tokens.read(line), true, `${file}: a record lm-eval wrote is canonical`);
      const exact = parseOrdered(line) as Extract<PyNode, { k: 'obj' }>;
      assert.deepEqual(tokenNode(tokens, 0), exact);
      let k = 1;
      while (!tokens.is(k, 'doc')) k = tokens.next[k + 1]!;
      assert.equal(tokens.indented(k + 1, 2), pyDumps(exact.entries.find(([key]) => key === 'doc')![1], 2));
    }
  }
  // Records per file, as `wc -l` counts them: 20 + 50 + 24 + 817 + 40 + 20.
  assert.equal(records, 971);
});

test('control bytes are found at every position and alignment, multi-byte UTF-8 never taken for one', () => {
  const text = Buffer.from('é😀\u0001ab\nc\u001fd\u007f\u0080 \u2028', 'utf8');
  for (let offset = 0; offset < 4; offset++) {
    const padded = Buffer.concat([Buffer.alloc(offset, 0x41), text, Buffer.from('xyz')]);
    const found = controlBytePositions(padded, 0, padded.length);
    const expected = [...padded].flatMap((b, i) => (b < 0x20 ? [i] : []));
    assert.deepEqual(found, expected);
    assert.deepEqual(controlBytePositions(padded, offset + 1, padded.length - 1), expected.filter((i) => i >= offset + 1 && i < padded.length - 1));
  }
});

test('a long escaped string that recurs (a prompt a request) reads as the exact reader reads it, and so does one that only begins the same', () => {
  const prompt = `Q: "x"\n${'shot\\ \n'.repeat(60)}A:`;
  const values = [prompt, prompt, `${prompt}"`, `${prompt}\\`, prompt.slice(0, -1), `${prompt}\n`, prompt, 'short "\n"', prompt];
  const tokens = new CanonicalTokens();
  // Twice: the second line begins with the string the first ended with.
  for (const line of [values, [...values].reverse()]) {
    const text = pyDumps({ k: 'obj', entries: line.map((v, i): [string, PyNode] => [`k${i}`, { k: 'str', v }]) });
    assert.equal(tokens.read(text), true);
    assert.deepEqual(tokenNode(tokens, 0), parseOrdered(text));
  }
  // Not canonical however it begins: a recurring string followed by what json.dumps never writes.
  assert.equal(tokens.read(`[${JSON.stringify(prompt)}, ${JSON.stringify(prompt)}x]`), false);
});
