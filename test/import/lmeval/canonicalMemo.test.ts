import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { ChunkProcessor } from '../../../src/import/lmeval/samplesChunk.ts';
import type { ChunkJob } from '../../../src/import/lmeval/chunkResult.ts';
import { fixturePath } from '../../helpers/fixtures.ts';

// A reader thread keeps one memo a task for the whole import (canonicalMemo.ts): what it remembers of one
// piece (a short target's sha256) must not decide a check of another.
const FIRST = readFileSync(fixturePath('lmeval/pr3032-truthfulqa-gen/samples_truthfulqa_gen_2025-05-31T14-30-51.983293.jsonl'), 'utf8').split('\n')[0]!;
const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

/** The fixture's first record as document `id`, its target `target` and its recorded target_hash `hash` (the line stays as json.dumps writes it). */
function record(id: number, target: string, hash: string): string {
  const line = FIRST.replace('"doc_id": 0,', `"doc_id": ${id},`).replace('"target": " "', `"target": ${JSON.stringify(target)}`).replace(/"target_hash": "[0-9a-f]{64}"/, `"target_hash": "${hash}"`);
  assert.ok(line.includes(`"doc_id": ${id}, `) && line.includes(`"target": ${JSON.stringify(target)}, `) && line.includes(`"target_hash": "${hash}"`));
  return line;
}

function piece(lines: string[], firstLine: number): ChunkJob {
  return { bytes: Buffer.from(`${lines.join('\n')}\n`), firstLine, lines: lines.length, file: 'samples.jsonl', task: 'truthfulqa_gen', requestType: 'generate_until', targetDelimiter: ' ', skipBad: false };
}

test('one reader reading several pieces checks each target_hash against its own target: a target seen before with its right hash, thousands of distinct ones, long ones', () => {
  const processor = new ChunkProcessor();
  const wrong = '0'.repeat(64);
  // Piece 1: the target ' ' with its right hash. Piece 2: the same target with a wrong hash, then right again.
  const first = processor.process(piece([record(0, ' ', sha256(' '))], 1));
  assert.equal(first.canonicalRecords, 1);
  assert.deepEqual(first.targetBad, []);
  const second = processor.process(piece([record(1, ' ', wrong), record(2, ' ', sha256(' '))], 2));
  assert.equal(second.canonicalRecords, 2);
  assert.deepEqual(second.targetBad, ['samples.jsonl:2 doc_id 1: target_hash ≠ sha256(str(target))']);
  // More distinct short targets than the memo holds (1,024), each twice, every tenth with a wrong hash; and long targets.
  const lines: string[] = [];
  const expectedBad: string[] = [];
  for (let i = 0; i < 2 * 1500; i++) {
    const target = i % 3 === 0 ? `a long target of its own, number ${i % 1500}, past sixty-four characters ………` : ` ${i % 1500}`;
    const bad = i % 10 === 7;
    lines.push(record(10 + i, target, bad ? wrong : sha256(target)));
    if (bad) expectedBad.push(`samples.jsonl:${4 + i} doc_id ${10 + i}: target_hash ≠ sha256(str(target))`);
  }
  const third = processor.process(piece(lines, 4));
  assert.equal(third.canonicalRecords, lines.length);
  assert.deepEqual(third.targetBad, expectedBad);
});
