import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { BadInputError } from '../../../src/errors.ts';
import { filePieces, FIRST_PIECE_BYTES, PIECE_BYTES } from '../../../src/import/lmeval/samplesFile.ts';

interface Read {
  pieces: { bytes: Buffer; firstLine: number; lines: number }[];
  sha256: string;
}

async function read(file: string, firstBytes = PIECE_BYTES): Promise<Read> {
  const hash = createHash('sha256');
  const pieces: Read['pieces'] = [];
  for await (const p of filePieces(file, (raw) => hash.update(raw), undefined, firstBytes)) pieces.push({ ...p, bytes: Buffer.from(p.bytes) });
  return { pieces, sha256: hash.digest('hex') };
}

/** What filePieces promises of any file: the pieces are the file's bytes in order, each but the last ending a line, lines numbered as counted. */
function assertPieces(r: Read, content: Buffer, raw: Buffer): void {
  assert.deepEqual(Buffer.concat(r.pieces.map((p) => p.bytes)), content);
  assert.equal(r.sha256, createHash('sha256').update(raw).digest('hex'), 'the hash is of the file as stored');
  let line = 1;
  r.pieces.forEach((p, i) => {
    assert.ok(p.bytes.length > 0);
    if (i < r.pieces.length - 1) assert.equal(p.bytes[p.bytes.length - 1], 10, `piece ${i} ends a line`);
    assert.equal(p.firstLine, line);
    const newlines = p.bytes.toString('latin1').split('\n').length - 1;
    const lines = newlines + (p.bytes[p.bytes.length - 1] === 10 ? 0 : 1);
    assert.equal(p.lines, lines);
    line += newlines;
  });
}

test('a samples file in pieces of whole lines: empty, short, a line longer than a piece, no newline at the end, and the same file gzipped', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'lmaudit-pieces-'));
  try {
    const short = Array.from({ length: 50 }, (_, i) => `{"doc_id": ${i}, "text": "${'é'.repeat(i)}"}\n`).join('');
    const long = `{"doc_id": 0, "text": "${'x'.repeat(PIECE_BYTES + 12345)}"}\n`;
    const many = Array.from({ length: 3000 }, (_, i) => `{"doc_id": ${i}, "text": "${'y'.repeat(3000 + (i % 7))}"}\n`).join('');
    const cases: [string, string, number][] = [
      ['empty', '', 0],
      ['short', short, 1],
      ['short, no final newline', short.slice(0, -1), 1],
      ['a line longer than a piece first', long + short, 1],
      ['a line longer than a piece last, no final newline', short + long.slice(0, -1), 2],
      // about 9 MiB: three pieces, lines across each cut
      ['lines across pieces', many, 3],
    ];
    for (const [name, text, count] of cases) {
      const content = Buffer.from(text);
      const plain = join(dir, `${name}.jsonl`);
      writeFileSync(plain, content);
      const r = await read(plain);
      assert.equal(r.pieces.length, count, name);
      assertPieces(r, content, content);
      const gz = gzipSync(content);
      const zipped = join(dir, `${name}.jsonl.gz`);
      writeFileSync(zipped, gz);
      assertPieces(await read(zipped), content, gz);
      // A small first piece (reader threads take the rest): the same bytes and lines, the first piece ending within it.
      const small = await read(plain, FIRST_PIECE_BYTES);
      assertPieces(small, content, content);
      if (content.length > FIRST_PIECE_BYTES && !name.startsWith('a line longer')) assert.ok(small.pieces[0]!.bytes.length <= FIRST_PIECE_BYTES, name);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a samples file in UTF-16 is refused before any piece, plain or gzipped', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'lmaudit-pieces-'));
  try {
    const utf16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('{"doc_id": 0}\n', 'utf16le')]);
    for (const [name, bytes] of [['u16.jsonl', utf16], ['u16.jsonl.gz', gzipSync(utf16)]] as const) {
      const file = join(dir, name);
      writeFileSync(file, bytes);
      await assert.rejects(read(file), (e: Error) => e instanceof BadInputError && /UTF-16/.test(e.detail), name);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
