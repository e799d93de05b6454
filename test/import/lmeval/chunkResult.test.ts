import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { MessageChannel, receiveMessageOnPort } from 'node:worker_threads';
import { resultTransfers } from '../../../src/import/lmeval/chunkResult.ts';
import { ChunkProcessor } from '../../../src/import/lmeval/samplesChunk.ts';
import { fixturePath } from '../../helpers/fixtures.ts';

test("a reader thread's result hands its spent memory (the piece's bytes, unused spares) over with its rows, not copied", () => {
  const file = fixturePath('lmeval/pr3032-truthfulqa-gen/samples_truthfulqa_gen_2025-05-31T14-30-51.983293.jsonl');
  const text = readFileSync(file, 'utf8');
  const lines = text.trim().split('\n').length;
  // The piece's own memory (past 64 KiB, as a reader thread gets it) is read and handed back as spent; of seven spares of
  // 1 MiB, the five tables' rows (under 1 MiB each) take five and two go back as they came.
  const bytes = new Uint8Array(new ArrayBuffer(Math.max(1 << 16, Buffer.byteLength(text))));
  const used = Buffer.from(bytes.buffer).write(text);
  const pieceMemory = bytes.buffer.byteLength;
  const spares = Array.from({ length: 7 }, () => new ArrayBuffer(1 << 20));
  const result = new ChunkProcessor().process({
    bytes: bytes.subarray(0, used), firstLine: 1, lines, file, task: 'truthfulqa_gen', requestType: 'generate_until', targetDelimiter: ' ', skipBad: false, spare: [...spares],
  });
  assert.equal(result.records, 20);
  assert.ok(result.spent.includes(bytes.buffer));
  assert.equal(result.spent.filter((b) => spares.includes(b)).length, 2);

  const transfers = resultTransfers(result);
  for (const b of result.spent) assert.ok(transfers.includes(b), `a spent buffer of ${b.byteLength} bytes is not handed over`);
  const { port1, port2 } = new MessageChannel();
  port1.postMessage({ result }, transfers);
  // Handed over: detached here (a copied buffer would keep its bytes); the receiving side gets the same sizes.
  assert.deepEqual(result.spent.map((b) => b.byteLength), result.spent.map(() => 0));
  const received = (receiveMessageOnPort(port2)!.message as { result: typeof result }).result;
  assert.deepEqual(received.spent.map((b) => b.byteLength).sort((a, b) => a - b), [pieceMemory, 1 << 20, 1 << 20].sort((a, b) => a - b));
  port1.close();
});
