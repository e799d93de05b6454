#!/usr/bin/env node
// Runs every example of README.md and compares what it prints with what the README shows.
//
//   node scripts/readme-examples.mjs           check: exit 1 naming each example whose output differs
//   node scripts/readme-examples.mjs --write   rewrite the shown outputs from real runs (after a change to what a
//                                              command prints; review the diff before committing it)
//
// An example is a fenced block (``` or ````) whose first line starts with `$ ` and which runs `$ lmaudit …`. A line starting with `$ `
// is a command (a line ending in `\` continues it on the next); the lines after it, up to the next command, are its
// output (stdout and stderr as a terminal shows them, interleaved; one blank line before the next command is a
// separator). The rules of the comparison:
//   - a line that is only `...` stands for any number of lines, none included (an example may stay short);
//   - lines are compared without trailing whitespace;
//   - what changes from run to run is masked on both sides (see MASKS): timestamps, durations and rates, a
//     served port, the temporary folder the examples run in.
// The examples run in order, in one temporary folder that holds links to the repository's fixtures/ (so the README's
// relative paths resolve and what one example writes, e.g. `--out store`, the next can read), with the repository's
// bin/ first on the PATH, as the README's set-up puts it. `lmaudit serve` runs until stopped: it is stopped once it has
// printed its first line. --write keeps each `...`: the lines around it are replaced by the lines of the new output
// they line up with.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { diffArrays } from 'diff';

const root = fileURLToPath(new URL('..', import.meta.url));
export const README = join(root, 'README.md');
const ELISION = '...';

/** What varies between runs, each replaced by a placeholder on both sides of the comparison. */
export const MASKS = [
  [/\d{4}-\d\d-\d\dT\d\d[-:]\d\d[-:]\d\d(?:\.\d+)?(?:Z|[+-]\d\d:?\d\d)?/g, '<time>'],
  [/\b\d+(?:\.\d+)? (?:responses\/s|req\/s|ms|s)\b/g, '<duration>'],
  [/\b(ETA|finished in) (?:\d+:)?\d+:\d\d\b/g, '$1 <clock>'],
  [/harness overhead \d+(?:\.\d+)?%/g, 'harness overhead <share>'],
  [/(127\.0\.0\.1|localhost):\d+/g, '$1:<port>'],
  [/\/tmp\/lmaudit-readme-[^/\s]+/g, '<work>'],
  // A perplexity row's value and stderr: a random-weights model's perplexity is exp of a mean NLL near 12.65, which
  // magnifies the last bits of its float32 log-probabilities, and those differ with the CPU's vector kernels
  // (onnxruntime picks them at run time): 312507.7612 on the machine that wrote the README, 312507.7582 on an AMD
  // EPYC without AVX-512. The other rows are rounded to 4 decimals of values near 1 and do not move.
  [/(\|perplexity +\|↓\|) *\d+\.\d+\|±\| *\d+\.\d+\|/g, '$1<float32-dependent>|'],
];

export function mask(line) {
  return MASKS.reduce((text, [pattern, placeholder]) => text.replace(pattern, placeholder), line.trimEnd());
}

/** The README's examples: for each, its block's line range and its commands with their shown output. */
export function parseExamples(text) {
  const lines = text.split('\n');
  const examples = [];
  for (let i = 0; i < lines.length; i++) {
    const fence = /^(`{3,})\s*\S*\s*$/.exec(lines[i]);
    if (!fence) continue;
    const end = lines.findIndex((line, j) => j > i && line.trimEnd() === fence[1]);
    if (end < 0) break;
    const body = lines.slice(i + 1, end);
    if (body[0]?.startsWith('$ ') && body.some((line) => line.startsWith('$ lmaudit '))) examples.push({ start: i + 1, end, commands: parseCommands(lines, i + 1, end) });
    i = end;
  }
  return examples;
}

function parseCommands(lines, from, to) {
  const commands = [];
  for (let i = from; i < to; ) {
    const first = i;
    let command = lines[i].slice(2);
    while (command.endsWith('\\') && i + 1 < to) command = `${command.slice(0, -1).trimEnd()} ${lines[++i].trim()}`;
    let next = i + 1;
    while (next < to && !lines[next].startsWith('$ ')) next++;
    let outputEnd = next;
    if (next < to && outputEnd > i + 1 && lines[outputEnd - 1].trim() === '') outputEnd--;
    commands.push({ line: first + 1, command: command.trim(), outputStart: i + 1, outputEnd, expected: lines.slice(i + 1, outputEnd) });
    i = next;
  }
  return commands;
}

/** Whether the shown lines, with `...` for any run of lines, match the printed ones (both masked). */
export function matches(expected, actual) {
  const want = expected.map(mask);
  const got = actual.map(mask);
  const memo = new Map();
  const match = (i, j) => {
    const key = i * (got.length + 1) + j;
    if (memo.has(key)) return memo.get(key);
    let result;
    if (i === want.length) result = j === got.length;
    else if (want[i].trim() === ELISION) result = match(i + 1, j) || (j < got.length && match(i, j + 1));
    else result = j < got.length && want[i] === got[j] && match(i + 1, j + 1);
    memo.set(key, result);
    return result;
  };
  return match(0, 0);
}

/**
 * The shown output brought up to date, its `...` kept: each run of shown lines between elisions is replaced by the
 * printed lines it lines up with (by a line diff of the masked text), as many as it had where nothing lines up.
 */
export function updated(expected, actual) {
  if (!expected.some((line) => line.trim() === ELISION)) return actual;
  const segments = [[]];
  const elisions = [];
  for (const line of expected) {
    if (line.trim() === ELISION) {
      segments.push([]);
      elisions.push(line);
    } else segments.at(-1).push(line);
  }
  // Where each shown line went in the printed output (undefined: no printed line equals it).
  const position = [];
  let a = 0;
  let b = 0;
  const shown = segments.flat();
  for (const part of diffArrays(shown.map(mask), actual.map(mask))) {
    if (part.added) b += part.count;
    else if (part.removed) for (let k = 0; k < part.count; k++) position[a++] = undefined;
    else for (let k = 0; k < part.count; k++) position[a++] = b++;
  }
  const out = [];
  let index = 0;
  let floor = 0;
  segments.forEach((segment, s) => {
    const placed = segment.map((_, k) => position[index + k]).filter((p) => p !== undefined);
    let from;
    let to;
    if (s === 0 && segment.length > 0) [from, to] = [0, Math.max(segment.length, (placed.at(-1) ?? -1) + 1)];
    else if (s === segments.length - 1 && segment.length > 0) [from, to] = [Math.min(actual.length - segment.length, placed[0] ?? actual.length), actual.length];
    else if (placed.length > 0) [from, to] = [placed[0], placed.at(-1) + 1];
    else [from, to] = [floor, floor + segment.length];
    from = Math.max(from, floor);
    to = Math.max(from, Math.min(to, actual.length));
    if (s > 0) out.push(elisions[s - 1]);
    out.push(...actual.slice(from, to));
    floor = to;
    index += segment.length;
  });
  return out;
}

function execute(command, cwd) {
  const env = { ...process.env, PATH: `${join(root, 'bin')}:${process.env.PATH}`, NO_COLOR: '1' };
  delete env.LMAUDIT_PLAIN_PROGRESS;
  // `serve` and `view` (unless it writes a bundle) run until stopped: each is stopped once it has printed its first line.
  const serving = /^lmaudit serve\b/.test(command) || (/^lmaudit view\b/.test(command) && !/--bundle\b/.test(command));
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-c', `${command} 2>&1`], { cwd, env, stdio: ['ignore', 'pipe', 'inherit'], detached: serving });
    let out = '';
    child.stdout.on('data', (chunk) => {
      out += chunk;
      if (serving && out.includes('\n')) process.kill(-child.pid, 'SIGTERM');
    });
    child.on('error', reject);
    child.on('close', (status) => {
      const lines = out === '' ? [] : out.replace(/\n$/, '').split('\n');
      resolve({ status: serving ? 0 : status, lines: serving ? lines.slice(0, 1) : lines });
    });
  });
}

/** Runs every example in order; each command's result beside what the README shows. */
export async function runExamples(text = readFileSync(README, 'utf8')) {
  const work = mkdtempSync(join(tmpdir(), 'lmaudit-readme-'));
  symlinkSync(join(root, 'fixtures'), join(work, 'fixtures'));
  try {
    const results = [];
    for (const example of parseExamples(text)) {
      for (const command of example.commands) {
        const { status, lines } = await execute(command.command, work);
        results.push({ ...command, status, actual: lines, ok: (status === 0 || status === 1) && matches(command.expected, lines) });
      }
    }
    return results;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/** The README with each given command's shown output replaced by its updated form (the others stay as they are). */
export function rewrite(text, results) {
  const lines = text.split('\n');
  for (const r of [...results].sort((x, y) => y.outputStart - x.outputStart)) {
    lines.splice(r.outputStart, r.outputEnd - r.outputStart, ...updated(r.expected, r.actual));
  }
  return lines.join('\n');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const text = readFileSync(README, 'utf8');
  const results = await runExamples(text);
  const failed = results.filter((r) => !r.ok);
  if (process.argv.includes('--write')) {
    writeFileSync(README, rewrite(text, failed));
    const again = await runExamples(readFileSync(README, 'utf8'));
    for (const r of again.filter((x) => !x.ok)) console.error(`README.md:${r.line}: still differs after --write (exit ${r.status}): $ ${r.command}`);
    console.log(`README.md: ${failed.length} of ${results.length} example command(s) rewritten`);
    process.exit(again.every((r) => r.ok) ? 0 : 1);
  }
  for (const r of failed) {
    console.error(`README.md:${r.line}: $ ${r.command}\n  exit ${r.status}; printed:\n${r.actual.map((l) => `    ${l}`).join('\n')}`);
  }
  console.log(`README.md: ${results.length - failed.length} of ${results.length} example command(s) print what the README shows`);
  process.exit(failed.length === 0 ? 0 : 1);
}
