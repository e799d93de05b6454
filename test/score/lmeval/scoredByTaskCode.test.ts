import { test } from 'node:test';
import assert from 'node:assert/strict';
import { emptyRunProvenance, emptyTaskProvenance, recorded, RunProvenance, same, TaskProvenance } from '../../../src/store/schema.ts';
import { taskSettings } from '../../../src/score/lmeval/perItem.ts';

// Whether a task's own process_results scored it is a declared boolean (scored_by_process_results), no longer
// the display words of scoring.scoring_path; stores written before the field existed are migrated when read.
function oldTaskBlock(path: string): Record<string, unknown> {
  const block: Record<string, unknown> = { ...emptyTaskProvenance() };
  delete block['scored_by_process_results'];
  const scoring = { ...(block['scoring'] as Record<string, unknown>), scoring_path: same(recorded(path, 'configs.t.process_results')) };
  return { ...block, scoring };
}

test('an old task block says process_results in words; reading it sets the flag', () => {
  assert.equal(TaskProvenance.parse(oldTaskBlock('process_results (task code)')).scored_by_process_results, true);
  assert.equal(TaskProvenance.parse(oldTaskBlock('generate + filter + metric')).scored_by_process_results, false);
  assert.equal(emptyTaskProvenance().scored_by_process_results, false);
});

test('as-recorded rescoring reads the flag, not the words', () => {
  const run = emptyRunProvenance({ run_id: 'r', label: 'r', source_kind: 'lm-eval', source_format: 'results' });
  const old = RunProvenance.parse(JSON.parse(JSON.stringify({ ...run, tasks: { t: oldTaskBlock('process_results (task code)') } })));
  assert.equal(taskSettings(old, 't').customProcessResults, true);
  // A new block whose words say process_results but whose flag is false is scored by the harness.
  const words = { ...TaskProvenance.parse(oldTaskBlock('process_results (task code)')), scored_by_process_results: false };
  assert.equal(taskSettings({ ...run, tasks: { t: words } }, 't').customProcessResults, false);
  const flagged = { ...emptyTaskProvenance(), scored_by_process_results: true };
  assert.equal(taskSettings({ ...run, tasks: { t: flagged } }, 't').customProcessResults, true);
});
