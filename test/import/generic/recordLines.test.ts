import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../../helpers/cli.ts';

const dir = mkdtempSync(join(tmpdir(), 'lmaudit-csvlines-'));
const file = (name: string, text: string) => {
  writeFileSync(join(dir, name), text);
  return join(dir, name);
};

// A quoted field with a line break makes one record span two lines, and a blank line is no record: DuckDB numbers
// records, so errors named the line of a record counted, not the line an editor shows (Python's csv.reader gives
// line_num 5 for the record '3,x,' of the first file, 4 for '2,B,' of the second).
test('a CSV error names the line its record is on, after multi-line fields and blank lines', () => {
  const cases: [string, string, string][] = [
    ['multiline.csv', 'id,output,gold\n1,"He said ""A""\nthen B",A\n2,B,A\n3,x,\n', "line 5, field 'gold': gold is missing, empty or not text"],
    ['blank.csv', 'id,output,gold\n1,A,A\n\n2,B,\n', "line 4, field 'gold': gold is missing, empty or not text"],
    ['quote.csv', 'id,output,gold\n1,"a\nb\nc",A\n2,x,A\n3,"B,A\n', 'line 6: cannot read as csv (Value with unterminated quote found.)'],
    ['blank-quote.csv', 'id,output,gold\n1,A,A\n\n\n2,"B,A\n3,C,C\n', 'line 5: cannot read as csv (Value with unterminated quote found.)'],
    ['dup.csv', 'id,output,gold\n1,"a\nb",A\n1,B,B\n', "line 4, field 'id': duplicate id '1'"],
  ];
  for (const [name, text, message] of cases) {
    const r = runCli(['rescore', file(name, text)]);
    assert.equal(r.status, 2, name);
    assert.equal(r.stderr, `lmaudit: ${join(dir, name)}, ${message}\n`);
  }
});

// `--skip-bad` says it counts and reports bad records instead of failing on the first; a CSV failed on the first.
test('--skip-bad skips a CSV\'s bad records, naming each by its line, and scores the rest', () => {
  const csv = file('skip.csv', 'id,output,gold\n1,"a\nb",A\n2,B,\n3,A,A\n3,B,B\n\n4,C,C\n5,,C\n');
  const r = runCli(['import', csv, '--out', join(dir, 'store'), '--skip-bad']);
  assert.equal(r.status, 0, r.stderr);
  assert.deepEqual(r.stdout.split('\n').filter((l) => l.startsWith('  skipped')), [
    `  skipped ${csv}:4 field 'gold': gold is missing, empty or not text`,
    `  skipped ${csv}:6 field 'id': duplicate id '3'`,
    `  skipped ${csv}:9 field 'output': output is missing, empty or not text`,
  ]);
  // Kept: 1 ("a\nb" against A: wrong), 3 (A, right), 4 (C, right).
  const scored = runCli(['rescore', join(dir, 'store'), '--extractors', 'exact', '--normalizers', 'strip', '--json']);
  const cell = JSON.parse(scored.stdout).cells.find((c: { aggregation: string }) => c.aggregation === 'micro');
  assert.deepEqual([cell.n, cell.correct], [3, 2]);
});

// A JSON array's element i was named "line i+1" whatever line it is on: in json.dump(..., indent=2) of three
// records, the third ({"id": 3, "output": "B"}, no gold) starts on line 12, not 3.
test('a bad record of a pretty-printed JSON array is named by the line its element starts on', () => {
  const records = [{ id: 1, output: 'A', gold: 'A' }, { id: 2, output: 'B', gold: 'A' }, { id: 3, output: 'B' }];
  const pretty = file('pretty.json', JSON.stringify(records, null, 2));
  assert.equal(JSON.stringify(records, null, 2).split('\n')[11], '  {');
  const r = runCli(['rescore', pretty]);
  assert.equal(r.status, 2);
  assert.equal(r.stderr, `lmaudit: ${pretty}, line 12, field 'gold': gold answer is missing; expected text or a number\n`);
  // One line with a string holding '"]' and ',': the element still starts on line 1.
  const oneLine = file('one-line.json', '[{"id": "x\\"],", "output": "A", "gold": "A"}, {"id": 2, "output": "B"}]');
  assert.equal(runCli(['rescore', oneLine]).stderr, `lmaudit: ${oneLine}, line 1, field 'gold': gold answer is missing; expected text or a number\n`);
  const skipped = runCli(['import', pretty, '--out', join(dir, 'pretty-store'), '--skip-bad']);
  assert.equal(skipped.status, 0, skipped.stderr);
  assert.ok(skipped.stdout.includes(`\n  skipped ${pretty}:12 field 'gold': gold answer is missing; expected text or a number\n`), skipped.stdout);
});

test("a bad field of a pretty-printed JSON array's record is named at its own line; a missing one at its record's", async () => {
  const { readGenericRecordsJs } = await import('../../../src/import/generic/genericJs.ts');
  const fields = { id: 'id', output: 'output', gold: 'gold', group: null };
  const refusal = async (text: string) => {
    const path = file('fields.json', text);
    const error = await readGenericRecordsJs(path, true, fields, { skipBad: false, fields: {} }).then(() => undefined, (e: Error) => e);
    return error?.message.replace(`${path}, `, '') ?? 'accepted';
  };
  // Indent 2: record 2 opens on line 7, its output on 9, its gold (a list) opens on 10; a decoy string comes first.
  const records = [{ id: 1, output: 'A "}]," [', gold: 'A' }, { id: 2, output: 'B', gold: ['A'] }];
  assert.equal(await refusal(JSON.stringify(records, null, 2)), "line 10, field 'gold': gold answer is a list; expected text or a number");
  assert.equal(await refusal(JSON.stringify([records[0], { id: 1, output: 'B', gold: 'A' }], null, 2)), "line 8, field 'id': duplicate id '1'");
  assert.equal(await refusal(JSON.stringify([records[0], { id: 2, gold: 'A' }], null, 2)), "line 7, field 'output': output is missing; expected text");
});
