/**
 * Reading line-oriented files without holding them whole: a JSONL file may be
 * gigabytes, and a single line may be huge. Lines are yielded with their 1-based number.
 */
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { BadInputError } from '../errors.ts';

export async function* readLines(file: string): AsyncGenerator<{ line: number; text: string }> {
  const stream = createReadStream(file, { encoding: 'utf8', highWaterMark: 1 << 20 });
  stream.on('error', () => {});
  let line = 0;
  try {
    const rl = createInterface({ input: stream, crlfDelay: Infinity });
    for await (const text of rl) {
      line++;
      // A UTF-8 byte order mark (Windows tools write one) is not part of the first line.
      yield { line, text: line === 1 && text.charCodeAt(0) === 0xfeff ? text.slice(1) : text };
    }
  } catch (error) {
    throw new BadInputError(`cannot read (${(error as Error).message})`, { file }, { cause: error });
  }
}
