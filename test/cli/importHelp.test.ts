import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runCli } from '../helpers/cli.ts';

// `import --help` (and `lmaudit --help`) said it imports "lm-eval outputs, Inspect logs or generic
// JSONL/CSV/Parquet records": the HELM, lighteval, OpenCompass, Every Eval Ever and agent importers were not named.
test('import --help names every kind of output the importers read', () => {
  for (const args of [['import', '--help'], ['--help']]) {
    const r = runCli(args);
    assert.equal(r.status, 0, r.stderr);
    const text = r.stdout.replace(/\s+/g, ' ');
    for (const name of ['lm-eval', 'Inspect', 'HELM', 'lighteval', 'OpenCompass', 'Every Eval Ever', 'SWE-bench', 'Terminal-Bench', 'Harbor', 'mini-swe-agent', 'JSONL/CSV/Parquet']) {
      assert.ok(text.includes(name), `${args.join(' ')}: ${name}`);
    }
  }
});
