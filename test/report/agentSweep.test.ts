/**
 * `lmaudit report` on an agent run: the denominator sweep takes the rescoring matrix's place (its rules, the one
 * marked as published, its spread in the summary row), in every format.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadSource } from '../../src/audit/source.ts';
import { DEFAULT_PAIRED_OPTIONS } from '../../src/audit/pairedStats.ts';
import { buildReport } from '../../src/report/model.ts';
import { renderReport } from '../../src/report/render.ts';
import { fixturePath } from '../helpers/fixtures.ts';

test('report on a Harbor job: the sweep, Harbor Mean as published, and the spread over the rules in the summary', async () => {
  const source = await loadSource([fixturePath('agents/harbor')], { skipBad: false, fields: {} });
  const data = await buildReport(source.store, null, null, { ...DEFAULT_PAIRED_OPTIONS, iterations: 100 });
  assert.equal(data.matrix.length, 0);
  assert.equal(data.agentSweeps.length, 1);
  const result = JSON.parse(readFileSync(join(fixturePath('agents/harbor/jobs/2026-06-15__15-53-26'), 'result.json'), 'utf8'));
  const mean = (Object.values(result.stats.evals)[0] as { metrics: { mean: number }[] }).metrics[0]!.mean;
  const published = data.agentSweeps[0]!.rules.find((r) => r.as_published.some((p) => p.startsWith('Harbor Mean')))!;
  assert.equal(published.rule, 'all_trials');
  assert.equal(published.value, mean);
  // By hand from the fixture's six trials: lowest all_trials 3/6, highest errors_timeouts_excluded 3/4.
  const row = data.summary[0]!;
  assert.deepEqual(row.spread, { lowest: 0.5, lowestCell: 'all_trials/n 6', highest: 0.75, highestCell: 'errors_timeouts_excluded/n 4' });
  for (const format of ['md', 'html', 'tex'] as const) {
    const text = renderReport(data, format);
    assert.match(text, /Denominator sweep: terminal-bench@2\.0/, format);
    assert.match(text, /Harbor Mean \(a missing reward counts 0\)/, format);
  }
});
