import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

// A JavaScript Unicode property class (\p{…}, \P{…}) follows Node's ICU, whose Unicode is newer than
// CPython 3.11's 14.0: code reproducing Python reads src/py's tables (categorySet, WORD_CLASS, the
// identifier and regex-package classes) instead, and src/py holds those classes in one place.
const root = normalize(join(dirname(fileURLToPath(import.meta.url)), '../..'));
const PROPERTY_CLASS = /\\[pP]\{/;

// Files that may use Node's Unicode, each with the reason it is not Python's to decide.
const NOT_PYTHON = new Map([
  // Terminal display width (emoji presentation, combining marks) is the terminal's Unicode, paired with
  // get-east-asian-width's table; no Python function is reproduced there.
  ['src/report/textTable.ts', 'display width'],
]);

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    return e.isDirectory() ? sourceFiles(p) : p.endsWith('.ts') ? [p] : [];
  });
}

/** Lines of src/ outside src/py/ that write a Unicode property class, as 'path:line'. */
function propertyClassesOutsidePy(): string[] {
  const out: string[] = [];
  for (const file of sourceFiles(join(root, 'src'))) {
    const path = relative(root, file);
    if (path.startsWith('src/py/') || NOT_PYTHON.has(path)) continue;
    readFileSync(file, 'utf8').split('\n').forEach((line, i) => {
      if (PROPERTY_CLASS.test(line)) out.push(`${path}:${i + 1}`);
    });
  }
  return out;
}

test('no \\p{…} Unicode property class outside src/py/ (Python semantics use its Unicode 14 tables)', () => {
  assert.deepEqual(propertyClassesOutsidePy(), []);
});

test('the check sees a property class and each exception still needs its exemption', () => {
  assert.ok(PROPERTY_CLASS.test(String.raw`/[\p{L}\p{N}_]+/u`) && PROPERTY_CLASS.test(String.raw`/\P{N}/u`));
  for (const path of NOT_PYTHON.keys()) {
    assert.ok(PROPERTY_CLASS.test(readFileSync(join(root, path), 'utf8')), `${path} no longer needs its exemption: remove it`);
  }
});
