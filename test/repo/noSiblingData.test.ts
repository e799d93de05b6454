/**
 * A user's clone has nothing beside it, so no code here may read the team's sibling data folder. The rule, checked
 * on every file under src/, test/, bench/ and scripts/:
 * - in code (.ts/.js/.mjs/.cjs/…, .py, .sh), no string literal holds the sibling folder's path (`..`, a slash or
 *   backslash, then the folder's name) or its data subfolder (the name, a slash, `data`), and none is the folder's name
 *   alone as a path segment (a join of the root, `..` and the name; pathlib's `ROOT.parent / <name>`);
 *   comments and Python docstrings may cite where a fixture came from. In shell every word can be a path, so the
 *   whole line before a `#` comment counts;
 * - in data files (.json, .jsonl, .yaml, .yml, .txt), the text holds neither path (NAMES_SIBLING below).
 * Markdown is documentation and may cite origins. Data the tests read lives in fixtures/ (test/helpers/fixtures.ts).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from '../helpers/cli.ts';
import { filesUnder } from '../helpers/fixtures.ts';
import { scanSource, sourceLanguage, type SourceLanguage } from '../helpers/sourceStrings.ts';

const NAMES_SIBLING = /\.\.[\\/]+shared\b|\bshared[\\/]+data\b/;
const SIBLING_SEGMENT = /^\s*shared\s*$/;
const DATA_FILE = /\.(?:json|jsonl|ya?ml|txt)$/;

/** The line numbers at which `source` names the sibling folder, by the rule above. */
function offendingLines(source: string, language: SourceLanguage): number[] {
  const scanned = scanSource(source, language);
  assert.equal(scanned.unterminated, false, 'the scanner lost its place (an unterminated string, comment or template)');
  const lines = scanned.strings.filter((s) => NAMES_SIBLING.test(s.text) || SIBLING_SEGMENT.test(s.text)).map((s) => s.line);
  return [...new Set(lines)];
}

// The examples' JSON spells '/' as \u002f and the name's first letter as \u0073, so that the data file does not itself name the folder.
test('the rule flags paths into the sibling folder, and not comments, docstrings, regexes or the word in prose', () => {
  const { cases } = JSON.parse(readFileSync(new URL('./siblingPaths.examples.json', import.meta.url), 'utf8')) as {
    cases: { what: string; language: SourceLanguage; source: string; flagged: number[] }[];
  };
  assert.equal(cases.length, 8);
  for (const c of cases) assert.deepEqual(offendingLines(c.source, c.language), c.flagged, c.what);
});

test('no file under src/, test/, bench/ or scripts/ names the sibling data folder', () => {
  const offenders: string[] = [];
  let code = 0;
  for (const top of ['src', 'test', 'bench', 'scripts']) {
    for (const rel of filesUnder(join(repoRoot, top))) {
      const file = `${top}/${rel}`;
      // What the build and the benchmarks write there (git ignores it): bench/out/, .entry.bundle.mjs.
      if (file.startsWith('bench/out/') || rel.split('/').some((part) => part.startsWith('.'))) continue;
      const language = sourceLanguage(file);
      if (language !== undefined) {
        code++;
        const text = readFileSync(join(repoRoot, file), 'utf8');
        let lines: number[] = [];
        assert.doesNotThrow(() => (lines = offendingLines(text, language)), file);
        offenders.push(...lines.map((l) => `${file}:${l}`));
      } else if (DATA_FILE.test(file)) {
        readFileSync(join(repoRoot, file), 'utf8')
          .split('\n')
          .forEach((l, n) => NAMES_SIBLING.test(l) && offenders.push(`${file}:${n + 1}`));
      }
    }
  }
  assert.ok(code > 200, `only ${code} code files found: the walk is broken`);
  assert.deepEqual(offenders, []);
});
