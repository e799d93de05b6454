import { test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../../helpers/cli.ts';
import { fixturePath } from '../../helpers/fixtures.ts';

// asdiv's third record (doc 2, acc 1) with its acc written as the string "yes": as-recorded named it as
// `recorded "\"yes\""` (the JSON text of the value, quoted again), and --json carried the string '"yes"'.
const RUN = fixturePath('lmeval/pr2236-asdiv/asdiv/meta-llama__Meta-Llama-3-8B-Instruct');
const RESULTS = 'results_2024-08-21T03-44-09.494230.json';
const SAMPLES = 'samples_asdiv_2024-08-21T03-44-09.494230.jsonl';

test('a recorded per-sample value that is not a number is shown as that value, once quoted', () => {
  const dir = mkdtempSync(join(tmpdir(), 'lmaudit-notnumber-'));
  copyFileSync(join(RUN, RESULTS), join(dir, RESULTS));
  const lines = readFileSync(join(RUN, SAMPLES), 'utf8').split('\n');
  assert.match(lines[2]!, /"acc": 1\}$/);
  lines[2] = lines[2]!.replace(/"acc": 1\}$/, '"acc": "yes"}');
  writeFileSync(join(dir, SAMPLES), lines.join('\n'));
  const text = runCli(['rescore', dir, '--extractors', 'as-recorded']);
  assert.equal(text.status, 0, text.stderr);
  assert.ok(text.stdout.includes('\n  item 2: recorded "yes", recomputed 1 — recorded value "yes" is not a number\n'), text.stdout);
  const json = runCli(['rescore', dir, '--extractors', 'as-recorded', '--json']);
  const [cell] = JSON.parse(json.stdout).as_recorded[0].cells;
  assert.deepEqual(cell.items.differing, [{ doc_id: '2', recorded: 'yes', recomputed: 1, why: 'recorded value "yes" is not a number' }]);
});
