import { test } from 'node:test';
import assert from 'node:assert/strict';
import { joinDocs, type DocRecord } from '../../src/audit/itemJoin.ts';
import { agreeingDigits, describeDifferences } from '../../src/audit/itemDifferences.ts';
import { attributeFlips } from '../../src/audit/flips.ts';

function doc(id: string, o: { hash?: string; content?: string | null; texts?: string[]; prompt?: string; text?: string; acc?: number }): DocRecord {
  return {
    docId: id,
    docHash: o.hash ?? `h${id}`,
    content: o.content ?? null,
    texts: o.texts ?? [],
    prompt: o.prompt ?? `Q${id}`,
    promptHash: null,
    requests: [{ context: o.prompt ?? `Q${id}`, continuation: null }],
    target: 'x',
    responses: o.text === undefined ? [] : [{ requestIdx: 0, repeat: 0, text: o.text, logprob: null, isGreedy: null }],
    scores: new Map(o.acc === undefined ? [] : [['acc,none', o.acc]]),
  };
}

test('join: doc_hash first; document content when the hashes come from different schemes; doc_id last', () => {
  const a = [doc('0', { hash: 'a', content: '{"q":1}' }), doc('1', { hash: 'b', content: '{"q":2}' })];
  const sameHash = joinDocs(a, [doc('7', { hash: 'b' }), doc('8', { hash: 'a' })]);
  assert.equal(sameHash.key, 'doc_hash');
  assert.deepEqual(sameHash.pairs.map(([x, y]) => [x.docId, y.docId]), [['0', '8'], ['1', '7']]);
  // B hashed its documents another way: content still pairs them, doc_id would pair them wrongly.
  const content = joinDocs(a, [doc('1', { hash: 'zz', content: '{"q":1}' }), doc('0', { hash: 'yy', content: '{"q":2}' })]);
  assert.equal(content.key, 'doc_content');
  assert.deepEqual(content.pairsByKey, { doc_hash: 0, doc_content: 2, doc_text: 0, doc_id: 2 });
  assert.deepEqual(content.pairs.map(([x, y]) => [x.docId, y.docId]), [['0', '1'], ['1', '0']]);
  const ids = joinDocs([doc('0', { hash: 'p' }), doc('1', { hash: 'q' })], [doc('1', { hash: 'r' }), doc('2', { hash: 's' })]);
  assert.equal(ids.key, 'doc_id');
  assert.deepEqual([ids.pairs.length, ids.onlyA.map((d) => d.docId), ids.onlyB.map((d) => d.docId)], [1, ['0'], ['2']]);
});

test('join across harnesses: a shared long text field pairs documents; doc_id is not tried', () => {
  const question = 'Which of the following is the body cavity that contains the pituitary gland?';
  const inspect = [doc('1', { hash: 'sha-of-input', texts: [question] }), doc('2', { hash: 'x', texts: ['Another question, long enough to count'] })];
  const lmeval = [doc('0', { hash: 'sha-of-json', texts: ['anatomy', question].filter((t) => t.length >= 20) }), doc('1', { hash: 'y', texts: ['Unrelated question text of some length'] })];
  const joined = joinDocs(inspect, lmeval, { crossHarness: true });
  assert.equal(joined.key, 'doc_text');
  assert.deepEqual(joined.pairs.map(([x, y]) => [x.docId, y.docId]), [['1', '0']]);
  assert.equal(joined.pairsByKey.doc_id, 0);
  // Within one harness, the same ids would have paired 1 with 1.
  assert.equal(joinDocs(inspect, lmeval).pairsByKey.doc_id, 1);
});

test('differences: prompt diffs are unified diffs of the first request', () => {
  const d = describeDifferences([[doc('0', { prompt: 'line 1\nline 2\n' }), doc('0', { prompt: 'line 1\nline two\n' })]]);
  assert.equal(d.promptsDiffer, 1);
  assert.match(d.promptExamples[0]!.patch, /^-line 2$/m);
  assert.match(d.promptExamples[0]!.patch, /^\+line two$/m);
  assert.equal(agreeingDigits(-4.831231594085693, -4.8404436111450195), 2);
  assert.equal(agreeingDigits(1, 1.5), 1);
  assert.equal(agreeingDigits(0.01, 0.1), 0);
});

test('flip attribution: prompt before response before extraction', () => {
  const pairs: [DocRecord, DocRecord][] = [
    [doc('0', { prompt: 'P', text: 'A', acc: 1 }), doc('0', { prompt: 'P2', text: 'B', acc: 0 })], // prompt changed
    [doc('1', { text: 'A', acc: 1 }), doc('1', { text: 'B', acc: 0 })], // same prompt, new answer
    [doc('2', { text: ' 7', acc: 0 }), doc('2', { text: ' 7', acc: 1 })], // same answer, read differently
    [doc('3', { text: 'A', acc: 1 }), doc('3', { text: 'A', acc: 1 })], // no flip
  ];
  const f = attributeFlips(pairs, 'acc,none');
  assert.deepEqual([f.flips, f.lost, f.gained], [3, 2, 1]);
  assert.deepEqual(f.byCause, { prompt: 1, response: 1, extraction: 1, unknown: 0 });
  assert.equal(f.examples.extraction[0]!.detail, 'A: " 7"; B: " 7"');
});

test('loadDocs reads documents in id order (numeric ids by value), and with `first` only that many', async () => {
  const { mkdtempSync, writeFileSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const { join } = await import('node:path');
  const { loadSource } = await import('../../src/audit/source.ts');
  const { loadDocs } = await import('../../src/audit/itemJoin.ts');
  const file = join(mkdtempSync(join(tmpdir(), 'lmaudit-docs-')), 'ids.jsonl');
  const ids = ['10', '2', '33', '1', '2b'];
  writeFileSync(file, ids.map((id) => JSON.stringify({ id, output: `out ${id}`, gold: 'A' })).join('\n') + '\n');
  const { store } = await loadSource([file], { skipBad: false, fields: {} });
  const run = store.manifest.runs[0]!;
  const task = Object.keys(run.tasks)[0]!;
  const all = await loadDocs(store, run.run_id, task);
  assert.deepEqual(all.map((d) => d.docId), ['1', '2', '10', '33', '2b']);
  const first = await loadDocs(store, run.run_id, task, { first: 3 });
  assert.deepEqual(first.map((d) => d.docId), ['1', '2', '10']);
  assert.deepEqual(first.map((d) => d.responses[0]!.text), ['out 1', 'out 2', 'out 10']);
});
