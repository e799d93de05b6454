/**
 * The `lmaudit prompts` pipeline as a library call: resolve task names, build every
 * request, and give one record per document (the same records feed `lmaudit run` and
 * the store's instances table).
 */
import { closeSync, fsyncSync, openSync, renameSync, rmSync, writeSync, writevSync } from 'node:fs';
import { BadInputError } from '../errors.ts';
import { dumpsPy, dumpsPyParts } from '../py/json.ts';
import { TaskIndex, type GroupNode } from '../tasks/index.ts';
import { temporaryNameFor } from '../util/atomicFile.ts';
import { buildTask, type BuiltTask, type DocRequests } from './build.ts';
import { loadChatTemplate, type ChatTemplate } from './chatTemplate.ts';

export interface PromptOptions {
  tasks: string[];
  includePaths?: string[];
  numFewshot?: number | null;
  limit?: number | null;
  applyChatTemplate?: string | null;
  /** A chat template already loaded (e.g. the model's own, for `lmaudit run --apply_chat_template`); wins over applyChatTemplate. */
  chatTemplate?: ChatTemplate | null;
  fewshotAsMultiturn?: boolean | null;
  systemInstruction?: string | null;
  /** lm-eval's `--seed`: one value for all four seeds, or 3–4 comma-separated; `None` means unseeded. */
  seed?: string | null;
  genKwargs?: Record<string, unknown> | null;
}

export interface Seeds {
  random: number | null;
  numpy: number | null;
  torch: number | null;
  fewshot: number | null;
}

/** lm-eval's `--seed` parsing (default "0,1234,1234,1234"). */
export function parseSeed(text: string | null | undefined): Seeds {
  const defaults = [0, 1234, 1234, 1234];
  if (text === null || text === undefined) return { random: 0, numpy: 1234, torch: 1234, fewshot: 1234 };
  const parts = text.split(',').map((s) => s.trim());
  const value = (s: string): number | null => {
    if (s === 'None') return null;
    if (!/^-?\d+$/.test(s)) throw new BadInputError(`--seed values must be integers or None, got '${s}'`, { field: 'seed' });
    return Number(s);
  };
  if (parts.length === 1) {
    const v = value(parts[0]!);
    return { random: v, numpy: v, torch: v, fewshot: v };
  }
  if (parts.length < 3 || parts.length > 4) throw new BadInputError('--seed takes one value or 3–4 comma-separated values', { field: 'seed' });
  const [r, n, t, f] = [0, 1, 2, 3].map((i) => (parts[i] === undefined ? defaults[i]! : value(parts[i]!)));
  return { random: r!, numpy: n!, torch: t!, fewshot: f! };
}

export async function buildPrompts(options: PromptOptions): Promise<{ built: BuiltTask[]; groups: GroupNode[]; chatTemplate: ChatTemplate | null; seeds: Seeds }> {
  const index = TaskIndex.withShipped(options.includePaths ?? []);
  const resolved = index.resolve(options.tasks);
  const chatTemplate = options.chatTemplate ?? (options.applyChatTemplate ? loadChatTemplate(options.applyChatTemplate) : null);
  const seeds = parseSeed(options.seed);
  const built: BuiltTask[] = [];
  for (const config of resolved.tasks) {
    built.push(
      await buildTask(config, {
        roots: index.roots,
        numFewshot: options.numFewshot,
        limit: options.limit,
        chatTemplate,
        fewshotAsMultiturn: options.fewshotAsMultiturn,
        systemInstruction: options.systemInstruction,
        fewshotSeed: seeds.fewshot,
        genKwargs: options.genKwargs,
      }),
    );
  }
  return { built, groups: resolved.groups, chatTemplate, seeds };
}

/** One output line, in Python's JSON spelling (floats keep `1.0`; key order as the dataset). */
export function promptLine(record: DocRequests): string {
  return dumpsPy(lineValue(record));
}

function lineValue(record: DocRequests): Record<string, unknown> {
  return {
    task: record.task,
    doc_id: record.doc_id,
    doc: record.doc,
    target: record.target,
    arguments: record.arguments,
    request_type: record.request_type,
    doc_hash: record.doc_hash,
    prompt_hash: record.prompt_hash,
  };
}

const LONG = 1024;

/**
 * Writes every record as one line. Multiple-choice lines repeat one long context per
 * choice, so each long escaped string is UTF-8 encoded once and its buffer reused;
 * output goes out in large synchronous vectored writes, to a temporary name renamed into place once complete (a
 * reader, or a run stopped half-way, never sees half a file; an earlier file stays until the new one is whole).
 */
export function writePromptFile(built: readonly BuiltTask[], file: string): number {
  const temporary = temporaryNameFor(file);
  const fd = openSync(temporary, 'w');
  let complete = false;
  let lines = 0;
  let buffers: Buffer[] = [];
  let size = 0;
  let pending = '';
  let lastPart = '';
  let lastBuffer = Buffer.alloc(0);
  const flushPending = (): void => {
    if (pending === '') return;
    const b = Buffer.from(pending, 'utf8');
    buffers.push(b);
    size += b.length;
    pending = '';
  };
  try {
    for (const task of built) {
      for (const record of task.docs) {
        for (const part of dumpsPyParts(lineValue(record))) {
          if (part.length < LONG) {
            pending += part;
            continue;
          }
          flushPending();
          if (part !== lastPart) {
            lastPart = part;
            lastBuffer = Buffer.from(part, 'utf8');
          }
          buffers.push(lastBuffer);
          size += lastBuffer.length;
        }
        pending += '\n';
        lines++;
        if (size > 1 << 23) {
          flushPending();
          writeAll(fd, buffers);
          buffers = [];
          size = 0;
        }
      }
    }
    flushPending();
    writeAll(fd, buffers);
    fsyncSync(fd);
    complete = true;
  } finally {
    closeSync(fd);
    if (!complete) rmSync(temporary, { force: true });
  }
  renameSync(temporary, file);
  return lines;
}

function writeAll(fd: number, buffers: Buffer[]): void {
  // writevSync takes at most IOV_MAX (1024) buffers per call.
  for (let i = 0; i < buffers.length; i += 1024) {
    const slice = buffers.slice(i, i + 1024);
    let total = 0;
    for (const b of slice) total += b.length;
    const written = writevSync(fd, slice);
    if (written < total) writeSync(fd, Buffer.concat(slice).subarray(written));
  }
}
