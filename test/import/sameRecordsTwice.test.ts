/**
 * The same records found twice (a copied file) are imported once and the copy is listed by its path, as every other
 * file not imported is. EEE's test data holds its Inspect logs in two folders under one name; the listing read
 * "data_x.json (the same records as data_x.json (run …); imported once)", naming neither file.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fixturePath } from '../helpers/fixtures.ts';
import { importSources } from '../../src/import/index.ts';

test('a copy of an imported file is listed by its path, beside the path of the one imported', async () => {
  const root = mkdtempSync(join(tmpdir(), 'lmaudit-twice-'));
  try {
    const a = join(root, 'a', 'data_arc_qwen.json');
    const b = join(root, 'b', 'data_arc_qwen.json');
    for (const copy of [a, b]) {
      mkdirSync(join(copy, '..'), { recursive: true });
      copyFileSync(fixturePath('eee/converter-inputs/inspect/data_arc_qwen.json'), copy);
    }
    const { runs, unrecognised } = await importSources([root], { skipBad: false, fields: {} });
    assert.equal(runs.length, 1);
    assert.deepEqual(unrecognised, [{ path: b, reason: `the same records as ${a} (run ${runs[0]!.provenance.run_id}); imported once` }]);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
