// The README's set-up says its examples, run from the repository's folder, write what they make beside it and that
// git ignores those: every path a command in one of its code blocks writes (--out, --bundle, --output_path, a shell
// redirection) is in the list it gives and in .gitignore, so a newcomer who tries them is left with a clean `git status`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from '../helpers/cli.ts';

const readme = readFileSync(join(repoRoot, 'README.md'), 'utf8');
const ignored = readFileSync(join(repoRoot, '.gitignore'), 'utf8').split('\n').map((l) => l.trim());

/** The lines of every fenced block, a `\` continuation joined to its command. */
function codeLines(text: string): string[] {
  const lines = text.split('\n');
  const out: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    const fence = /^(`{3,})\s*\S*\s*$/.exec(lines[i]!);
    if (!fence) continue;
    const end = lines.findIndex((line, j) => j > i && line.trimEnd() === fence[1]);
    for (let j = i + 1; j < end; j++) {
      let line = lines[j]!;
      while (line.endsWith('\\') && j + 1 < end) line = `${line.slice(0, -1)} ${lines[++j]!.trim()}`;
      out.push(line);
    }
    i = end;
  }
  return out;
}

/** The paths the README's commands write, relative to the repository's folder, without a trailing slash. */
function writtenPaths(text: string): string[] {
  const paths = new Set<string>();
  for (const line of codeLines(text)) {
    const command = line.replace(/^\$ /, '').replace(/\s+#.*$/, '');
    if (!/^(lmaudit|gunzip) /.test(command)) continue;
    for (const m of command.matchAll(/(?:--out|--bundle|--output_path|>) +(\S+)/g)) paths.add(m[1]!.replace(/\/$/, ''));
  }
  return [...paths].sort();
}

test("every path the README's commands write is ignored by git and named in the set-up's list of what they write", () => {
  const written = writtenPaths(readme);
  // The examples of import, run, prompts, export, view --bundle, report --out and the two gunzips.
  assert.deepEqual(written, ['audit-site', 'audit.html', 'eee', 'grid', 'out', 'prompts.jsonl', 'question_shuffle_winogrande_write_out_info.json', 'store', 'winogrande_write_out_info.json']);
  const setUp = /they read `fixtures\/` and write\s+what they make \(([^)]*)\)/.exec(readme)?.[1];
  assert.ok(setUp !== undefined, 'the set-up names what the examples write');
  for (const path of written) {
    assert.ok(ignored.includes(`/${path}/`) || ignored.includes(`/${path}`), `${path} is not in .gitignore`);
    const gunzipped = path.endsWith('_write_out_info.json');
    assert.ok(gunzipped || setUp.includes(`\`${path}`), `${path} is not in the set-up's list: ${setUp}`);
  }
});
