// Every example in README.md runs as written and prints what the README shows (scripts/readme-examples.mjs; after a
// change to what a command prints, `node scripts/readme-examples.mjs --write` brings the README up to date).
import { test } from 'node:test';
import assert from 'node:assert/strict';
// @ts-expect-error: plain JavaScript, no declarations
import { mask, matches, parseExamples, runExamples, updated } from '../../scripts/readme-examples.mjs';

type Result = { line: number; command: string; status: number | null; expected: string[]; actual: string[]; ok: boolean };

test('the elision rule: a line that is only `...` stands for any number of lines, none included', () => {
  assert.equal(matches(['a', '...', 'd'], ['a', 'b', 'c', 'd']), true);
  assert.equal(matches(['a', '  ...', 'd'], ['a', 'd']), true);
  assert.equal(matches(['a', '...'], ['a']), true);
  assert.equal(matches(['a', '...', 'd'], ['a', 'b', 'c']), false);
  assert.equal(matches(['a', 'b'], ['a', 'b', 'c']), false, 'without `...` every line is shown');
  // Trailing whitespace is not compared; leading whitespace is.
  assert.equal(matches(['| a | '], ['| a |']), true);
  assert.equal(matches(['  a'], ['a']), false);
});

test('what varies between runs is masked on both sides, and nothing else', () => {
  assert.equal(
    mask('lmaudit run: 0/200 responses held in out/m/store_2026-12-02T02-07-03.291000; 22.9 responses/s · ETA 0:04'),
    'lmaudit run: 0/200 responses held in out/m/store_<time>; <duration> · ETA <clock>',
  );
  assert.equal(mask('Time: 4.51 s in inference calls of 7.86 s wall; harness overhead 42.7%'), 'Time: <duration> in inference calls of <duration> wall; harness overhead <share>');
  assert.equal(mask('http://127.0.0.1:40113'), 'http://127.0.0.1:<port>');
  // A score, a count or a percentage that is not an overhead stays as printed.
  assert.equal(mask('disagreement: 81.25% (13 of 16); 0.8125 [0.6150, 1.0000]'), 'disagreement: 81.25% (13 of 16); 0.8125 [0.6150, 1.0000]');
});

test('--write keeps each `...` and replaces the lines around it by the printed lines they line up with', () => {
  const shown = ['head', '...', 'old total 11 of 12', 'tail'];
  const printed = ['head', 'x', 'y', 'new total 12 of 13', 'tail'];
  assert.deepEqual(updated(shown, printed), ['head', '...', 'new total 12 of 13', 'tail']);
  assert.deepEqual(updated(['a'], ['b', 'c']), ['b', 'c'], 'an output without `...` is replaced whole');
});

test('an example is a fenced block starting with `$ `; `\\` continues a command; a blank line separates commands', () => {
  const text = ['```sh', 'lmaudit report x   # not an example', '```', '````', '$ gunzip -c a.gz > a', '$ lmaudit table a \\', '    --gap 1', 'row 1', '', '$ lmaudit ls', 'x', '````'].join('\n');
  const [example, ...rest] = parseExamples(text);
  assert.equal(rest.length, 0);
  assert.deepEqual(
    example.commands.map((c: Result) => [c.command, c.expected]),
    [
      ['gunzip -c a.gz > a', []],
      ['lmaudit table a --gap 1', ['row 1']],
      ['lmaudit ls', ['x']],
    ],
  );
});

test('every README example prints what the README shows', async () => {
  const results = (await runExamples()) as Result[];
  assert.ok(results.length >= 10, `only ${results.length} example commands found`);
  for (const r of results) {
    assert.ok(r.ok, `README.md:${r.line}: $ ${r.command}\nexit ${r.status}; printed:\n${r.actual.join('\n')}\n\nshown:\n${r.expected.join('\n')}`);
  }
});
