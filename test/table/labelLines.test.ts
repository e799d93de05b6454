import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runCli } from '../helpers/cli.ts';
import { decodedFixture } from '../helpers/fixtures.ts';

// HELM's three BBQ runs differ, among other settings, by their system description, whose text holds line breaks
// ("Answer with only a single letter.\n\nThe following are …"). A row label is one line of a table: the span and
// "down" lines of `lmaudit table` broke where the description did.
test('a table row label holds no line break: a setting text with one reads as one line', () => {
  const r = runCli(['table', decodedFixture('helm', 'stanford-crfm-helm/benchmark_output_TRUE_latest/runs/v3')]);
  assert.equal(r.status, 0, r.stderr);
  const lines = r.stdout.split('\n');
  const span = lines.find((l) => l.startsWith('  span: '))!;
  assert.ok(span.startsWith('  span: the 0.0-point span is system description Answer with only a single letter. The f… · '), span);
  // Every line is the table's title, a line of the table or of what follows it, each indented: none is a label's tail.
  for (const line of lines.slice(1)) assert.ok(line === '' || line.startsWith('  '), JSON.stringify(line));
});
