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
  // Every cell is 1.0, so the span and "down" lines name no row; the interactions name them.
  assert.equal(lines.find((l) => l.startsWith('  span: ')), '  span: all 12 cells are 1.0000, so no span');
  const interaction = lines.find((l) => l.startsWith('    model anthropic/'))!;
  assert.ok(interaction.startsWith('    model anthropic/claude-3-5-sonnet-20240620 · system description Answer with only a single letter. The f… · '), interaction);
  // Every line is the table's title, a line of the table or of what follows it, each indented: none is a label's tail.
  for (const line of lines.slice(1)) assert.ok(line === '' || line.startsWith('  '), JSON.stringify(line));
});

// The runs differ by model too, which sat past the four parts a label shows ("2 other settings"): the table's rows of
// gpt-4-turbo and gpt-4o both read "system description The following are multiple choice quest……".
test('rows of different models are labelled by the model first', () => {
  const r = runCli(['table', decodedFixture('helm', 'stanford-crfm-helm/benchmark_output_TRUE_latest/runs/v3')]);
  const rows = r.stdout.split('\n').filter((l) => /^ {2}model /.test(l)).map((l) => l.slice(2, 40));
  assert.deepEqual(rows, ['model anthropic/claude-3-5-sonnet-2024', 'model openai/gpt-4-turbo-2024-04-09 · ', 'model openai/gpt-4o-2024-05-13 · syste']);
});
