/**
 * mini-swe-agent's batch folder (fixtures/agents/mini-swe-agent, written by mini-swe-agent 2.4.6's own code):
 * per-instance exit statuses from its exit_statuses_*.yaml files, the agent's config and version from its
 * trajectories, the denominator rules that use the exit statuses, and bad input refused with the file named.
 * Expected values are read here from the fixture's raw files (js-yaml and JSON.parse, not the importer) or
 * computed by hand.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { load as loadYaml } from 'js-yaml';
import { fixturePath } from '../../helpers/fixtures.ts';
import { runCli } from '../../helpers/cli.ts';
import { importSources } from '../../../src/import/index.ts';
import { loadSource } from '../../../src/audit/source.ts';
import { agentSweeps } from '../../../src/score/agents/sweep.ts';
import { agentAsRecordedSections } from '../../../src/score/agents/asRecorded.ts';
import { exitClass } from '../../../src/import/agents/miniSweAgent.ts';

const options = { skipBad: false, fields: {} };
const dir = fixturePath('agents/mini-swe-agent');
const traj = (id: string) => JSON.parse(readFileSync(join(dir, id, `${id}.traj.json`), 'utf8')) as { info: Record<string, any> };
const yamlStatuses = (name: string) => (loadYaml(readFileSync(join(dir, name), 'utf8')) as { instances_by_exit_status: Record<string, string[]> }).instances_by_exit_status;

test("mini-swe-agent: each instance's exit status from the latest batch run's yaml, the agent settings from its trajectories", async () => {
  const { runs, unrecognised } = await importSources([dir], options);
  assert.deepEqual(unrecognised, []);
  assert.equal(runs.length, 1);
  const run = runs[0]!;
  const p = run.provenance;
  assert.equal(p.source_format, 'SWE-bench run summary v2 + evaluation logs + mini-swe-agent exit statuses and trajectories');
  // The two yaml files, merged: the first run wrote 1–4, the resumed one 5 and 6.
  const expected = new Map<string, string>();
  for (const file of ['exit_statuses_1767225600.123456.yaml', 'exit_statuses_1767229200.654321.yaml']) {
    for (const [status, ids] of Object.entries(yamlStatuses(file))) for (const id of ids) expected.set(id, status);
  }
  // demo__mini-7 and 8: in the summary's dataset (incomplete_ids), never run by mini (`--slice 0:6`).
  const all = (run.tables.instances as { rows: { doc_id: string; doc_json: string | null }[] }).rows;
  assert.deepEqual(all.filter((r) => r.doc_json === null).map((r) => r.doc_id), ['demo__mini-7', 'demo__mini-8']);
  const docs = all.filter((r) => r.doc_json !== null).map((r) => [r.doc_id, JSON.parse(r.doc_json!)]);
  assert.deepEqual(docs.map(([id, d]) => [id, d.agent_exit_status]), [...expected].sort());
  assert.deepEqual(docs.map(([, d]) => d.agent_exit_class), ['submitted', 'submitted', 'limit', 'error', 'error', 'submitted']);
  // api_calls and cost from each trajectory's info.model_stats; demo__mini-5 failed before an agent existed.
  const stats = Object.fromEntries(docs.map(([id, d]) => [id, [d.api_calls, d.instance_cost]]));
  for (const id of ['demo__mini-1', 'demo__mini-2', 'demo__mini-3', 'demo__mini-4', 'demo__mini-6']) {
    assert.deepEqual(stats[id], [traj(id).info.model_stats.api_calls, traj(id).info.model_stats.instance_cost], id);
  }
  assert.deepEqual(stats['demo__mini-5'], [null, null]);
  assert.equal(docs.find(([id]) => id === 'demo__mini-4')![1].exception, traj('demo__mini-4').info.exception_str);
  // Outcomes as SWE-bench counts them: the three stopped agents left empty patches.
  const outcomes = (run.tables.responses as { rows: { doc_id: string; finish_reason: string }[] }).rows.map((r) => r.finish_reason);
  assert.deepEqual(outcomes, ['resolved', 'unresolved', 'empty_patch', 'empty_patch', 'empty_patch', 'resolved', 'not_submitted', 'not_submitted']);

  const cfg = traj('demo__mini-1').info.config;
  const used = (field: string) => (p.agent![field]!.used as { value?: unknown }).value;
  assert.equal(used('agent_name'), `mini-swe-agent (${cfg.agent_type})`);
  assert.equal(used('agent_version'), traj('demo__mini-1').info.mini_version);
  assert.equal(used('agent_version'), '2.4.6');
  assert.equal(used('model_configured'), 'anthropic/claude-sonnet-4-5-20250929');
  assert.equal(used('model_recorded'), 'anthropic/claude-sonnet-4-5-20250929');
  assert.equal(used('sandbox_provider'), 'minisweagent.environments.docker.DockerEnvironment');
  assert.deepEqual(used('agent_limits'), { step_limit: 3, cost_limit: 3, max_consecutive_format_errors: 3 });
  assert.deepEqual(used('timeouts'), { timeout: 60, container_timeout: '2h', pull_timeout: 120, wall_time_limit_seconds: 0 });
  assert.equal(p.agent!.network!.used.status, 'unknown');
  // The model's API arguments (with `-c model.model_kwargs.temperature=0.0`) as the task's generation settings.
  assert.deepEqual((p.tasks['swe-bench']!.generation.settings!.used as { value: unknown }).value, cfg.model.model_kwargs);
  assert.deepEqual(cfg.model.model_kwargs, { drop_params: true, parallel_tool_calls: true, temperature: 0 });

  const noteOf = (kind: string) => p.notes.find((n) => n.kind === kind);
  assert.deepEqual(noteOf('resumed_run')!.evidence, ['exit_statuses_1767225600.123456.yaml', 'exit_statuses_1767229200.654321.yaml']);
  assert.deepEqual(noteOf('no_trajectory')!.evidence, ['demo__mini-5']);
  assert.equal(
    noteOf('agent_stopped')!.message,
    '3 of 6 instance(s) ended without a submission (LimitsExceeded 1, ContextWindowExceededError 1, RuntimeError 1); 3 of them are empty patches in preds.json, which SWE-bench counts as submitted but never evaluates (empty_patch_instances): no rate counts them resolved',
  );
  assert.equal(noteOf('exit_status_disagrees'), undefined);
});

test('the denominator sweep with exit statuses: limit stops and agent exceptions as failures or excluded; make_run_report reproduced', async () => {
  const source = await loadSource([dir], options);
  const [sweep] = await agentSweeps(source.store);
  const summary = JSON.parse(readFileSync(join(dir, 'anthropic__claude-sonnet-4-5-20250929.mini-eval.json'), 'utf8'));
  // The leaderboard's number: resolved ÷ total_instances (the dataset of 8, two never run).
  const whole = sweep!.rules.find((r) => r.rule === 'whole_split')!;
  assert.deepEqual([whole.value, whole.n, whole.as_published], [summary.resolved_instances / summary.total_instances, 8, ['SWE-bench leaderboard (resolved ÷ total_instances)']]);
  assert.equal(whole.value, 2 / 8);
  const [asRecorded] = await agentAsRecordedSections(source.store, source.store.manifest.runs.map((r) => r.run_id));
  assert.deepEqual(asRecorded!.cells.map((c) => [c.quantity, c.recorded, c.matches]), [
    'total_instances', 'submitted_instances', 'completed_instances', 'resolved_instances', 'unresolved_instances', 'empty_patch_instances', 'error_instances',
  ].map((k) => [k, summary[k], 'exact']));
  assert.deepEqual(sweep!.agent_exits, { Submitted: 3, LimitsExceeded: 1, ContextWindowExceededError: 1, RuntimeError: 1 });
  const rule = (name: string) => sweep!.rules.find((r) => r.rule === name)!;
  // By hand: resolved 1 and 6, unresolved 2, empty patches 3 (LimitsExceeded), 4 (ContextWindowExceededError), 5 (RuntimeError).
  assert.deepEqual([rule('all_trials').value, rule('all_trials').n], [2 / 6, 6]);
  // Exceptions (4, 5) dropped, the limit stop (3) stays as 0: {1, 2, 3, 6} → 2/4.
  assert.deepEqual([rule('agent_errors_excluded').value, rule('agent_errors_excluded').n], [2 / 4, 4]);
  // Only Submitted {1, 2, 6} → 2/3.
  assert.deepEqual([rule('agent_submitted_only').value, rule('agent_submitted_only').n], [2 / 3, 3]);
  // Sample standard errors (ddof 1): [1,0,0,1] has sd √(1/3), se √(1/3)/2; [1,0,1] has sd √(1/3), se 1/3.
  // 1e-15: the sweep's sum of squares and this closed form round differently in the last bit.
  assert.ok(Math.abs(rule('agent_errors_excluded').stderr! - Math.sqrt(1 / 3) / 2) < 1e-15);
  assert.ok(Math.abs(rule('agent_submitted_only').stderr! - 1 / 3) < 1e-15);
  assert.equal(sweep!.spread, 2 / 3 - 2 / 8);
});

test("mini's exit statuses classed as its code raises them", () => {
  assert.deepEqual(
    ['Submitted', 'LimitsExceeded', 'TimeExceeded', 'RepeatedFormatError', 'ContextWindowExceededError', 'Uncaught KeyError', null].map(exitClass),
    ['submitted', 'limit', 'limit', 'limit', 'error', 'error', 'error'],
  );
});

test("mini before 2.0 wrote an exception's message as the patch: flagged (the 2.x fixture with preds.json as 1.x writes it)", async () => {
  const d = scratch();
  try {
    // v1.17.5 run/extra/swebench.py: `exit_status, result = type(e).__name__, str(e)`, then update_preds_file(..., result).
    const preds = join(d, 'in', 'preds.json');
    const data = JSON.parse(readFileSync(preds, 'utf8'));
    data['demo__mini-4'].model_patch = traj('demo__mini-4').info.exception_str;
    writeFileSync(preds, JSON.stringify(data, null, 2));
    const p = (await importSources([join(d, 'in')], options)).runs[0]!.provenance;
    const n = p.notes.find((x) => x.kind === 'exception_as_patch')!;
    assert.deepEqual(n.evidence, ['demo__mini-4']);
    assert.match(n.message, /^1 instance\(s\) ended in an exception yet have a non-empty model_patch/);
    // The same text is also a patch git apply rejects (prose, no hunk).
    assert.deepEqual(p.notes.find((x) => x.kind === 'patch_prose')!.evidence, ['demo__mini-4']);
  } finally {
    rmSync(d, { recursive: true, force: true });
  }
});

function scratch(): string {
  const d = mkdtempSync(join(tmpdir(), 'lmaudit-mini-'));
  cpSync(dir, join(d, 'in'), { recursive: true });
  return d;
}

test('bad input: an exit-status file that is not a status → ids map, and trajectories without their preds.json', () => {
  const a = scratch();
  try {
    writeFileSync(join(a, 'in', 'exit_statuses_1767229200.654321.yaml'), 'instances_by_exit_status:\n    Submitted: demo__mini-6\n');
    const r = runCli(['import', join(a, 'in'), '--out', join(a, 'store')]);
    assert.equal(r.status, 2);
    assert.match(r.stderr, /exit_statuses_1767229200\.654321\.yaml.*instances_by_exit_status\.Submitted.*not a list of instance ids/s);
    assert.doesNotMatch(r.stderr, /\n\s+at /);
    assert.equal(existsSync(join(a, 'store')), false);
  } finally {
    rmSync(a, { recursive: true, force: true });
  }
  const b = scratch();
  try {
    rmSync(join(b, 'in', 'preds.json'));
    const r = runCli(['import', join(b, 'in'), '--out', join(b, 'store')]);
    assert.equal(r.status, 2);
    assert.match(r.stderr, /without the preds\.json of their batch run beside them/);
    assert.equal(existsSync(join(b, 'store')), false);
  } finally {
    rmSync(b, { recursive: true, force: true });
  }
});
