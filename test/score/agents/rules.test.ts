/**
 * The denominator sweep against an independent computation: each fixture's raw files are read here directly (not
 * through the importers) and every rule is computed by hand from the harness's own fields; the sweep of the
 * imported run must give the same values, n and standard errors. The harness's own summary numbers must be
 * reproduced exactly (`--extractors as-recorded`).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fixturePath } from '../../helpers/fixtures.ts';
import { loadSource } from '../../../src/audit/source.ts';
import { agentSweeps } from '../../../src/score/agents/sweep.ts';
import { agentAsRecordedSections } from '../../../src/score/agents/asRecorded.ts';
import { passAtKEstimate, sweepAgentRun } from '../../../src/score/agents/rules.ts';

const options = { skipBad: false, fields: {} };
const json = (path: string) => JSON.parse(readFileSync(path, 'utf8'));
/** Sample standard error of a mean (ddof 1), computed here from scratch. */
const se = (xs: number[]) => {
  const m = xs.reduce((a, b) => a + b, 0) / xs.length;
  return Math.sqrt(xs.reduce((a, x) => a + (x - m) ** 2, 0) / (xs.length - 1) / xs.length);
};
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

async function sweepOf(dir: string) {
  const source = await loadSource([fixturePath(dir)], options);
  const sweeps = await agentSweeps(source.store);
  assert.equal(sweeps.length, 1);
  const byRule = Object.fromEntries(sweeps[0]!.rules.map((r) => [r.rule, r]));
  const asRecorded = await agentAsRecordedSections(source.store, source.store.manifest.runs.map((r) => r.run_id));
  return { sweep: sweeps[0]!, byRule, asRecorded: asRecorded[0]!, store: source.store };
}

function near(actual: number | null | undefined, expected: number, what: string) {
  assert.ok(actual !== null && actual !== undefined, what);
  // The two computations sum in different orders: equal to the last bits.
  assert.ok(Math.abs(actual - expected) < 1e-12, `${what}: ${actual} vs ${expected}`);
}

test('SWE-bench: make_run_report counts reproduced exactly; the rules over the split, submitted, non-empty and completed', async () => {
  const { byRule, asRecorded, sweep } = await sweepOf('agents/swebench');
  const summary = json(fixturePath('agents/swebench/org__model-x.fx-run.json'));
  for (const c of asRecorded.cells) assert.equal(c.matches, 'exact', `${c.quantity}: ${c.recorded} vs ${c.reproduced}`);
  assert.deepEqual(asRecorded.cells.map((c) => c.quantity), ['total_instances', 'submitted_instances', 'completed_instances', 'resolved_instances', 'unresolved_instances', 'empty_patch_instances', 'error_instances']);
  // Independently: resolved per the report files, over each denominator.
  const logs = fixturePath('agents/swebench/logs/run_evaluation/fx-run/org__model-x');
  const preds = readFileSync(fixturePath('agents/swebench/preds.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
  const value = (p: { instance_id: string; model_patch: string }) => {
    if (p.model_patch === '') return { v: 0, kind: 'empty' };
    const dir = join(logs, p.instance_id);
    if (!readdirSync(dir).includes('report.json')) return { v: 0, kind: 'error' };
    const text = readFileSync(join(dir, 'report.json'), 'utf8').trim();
    if (text === '') return { v: 0, kind: 'error' };
    return { v: json(join(dir, 'report.json'))[p.instance_id].resolved ? 1 : 0, kind: 'completed' };
  };
  const vals = preds.map(value);
  const resolved = vals.filter((x) => x.v === 1).length;
  assert.equal(resolved, summary.resolved_instances);
  const whole = [...vals.map((x) => x.v), ...Array(summary.total_instances - preds.length).fill(0)];
  near(byRule.whole_split!.value, resolved / summary.total_instances, 'whole split');
  assert.equal(byRule.whole_split!.value, 0.2);
  near(byRule.whole_split!.stderr, se(whole), 'whole split stderr');
  assert.deepEqual(byRule.whole_split!.as_published, ['SWE-bench leaderboard (resolved ÷ total_instances)']);
  near(byRule.all_trials!.value, resolved / preds.length, 'over submitted');
  near(byRule.all_trials!.stderr, se(vals.map((x) => x.v)), 'over submitted stderr');
  near(byRule.non_empty!.value, 2 / 5, 'non-empty');
  near(byRule.errors_excluded!.value, 2 / 4, 'errors excluded');
  near(byRule.rewarded_only!.value, 2 / 3, 'completed with a readable report');
  near(sweep.spread, 2 / 3 - 0.2, 'spread');
});

test('SWE-bench v2.0.0 (no submitted/empty keys) and v1 lists: their counts reproduced from the lists', async () => {
  const v2 = await sweepOf('agents/swebench-v2.0.0');
  const summary = json(fixturePath('agents/swebench-v2.0.0/org__model-x.fx-run.json'));
  // v2.0.0's make_run_report was given only the dataset instances with a prediction: total_instances is the five
  // evaluated (run_evaluation.py at v2.0.0: full_dataset = get_dataset_from_preds(..., exclude_completed=False)).
  assert.equal(summary.total_instances, 5);
  assert.deepEqual(v2.asRecorded.cells.map((c) => [c.quantity, c.recorded, c.matches]), [
    ['total_instances', 5, 'exact'], ['completed_instances', 3, 'exact'], ['resolved_instances', 2, 'exact'],
    ['unresolved_instances', 1, 'exact'], ['error_instances', 2, 'exact'],
  ]);
  // So the summary says nothing of the split: no whole-split rule, and the note says why.
  assert.equal(v2.byRule.whole_split, undefined);
  assert.ok(v2.sweep.notes.some((n) => n.kind === 'total_is_evaluated'));
  near(v2.byRule.all_trials!.value, summary.resolved_ids.length / summary.total_instances, 'v2.0.0 over the 5 evaluated');
  const v1 = await sweepOf('agents/swebench-v1');
  const lists = json(fixturePath('agents/swebench-v1/results.json'));
  assert.deepEqual(v1.asRecorded.cells.map((c) => [c.quantity, c.recorded, c.matches]), [
    ['resolved (v1 list)', lists.resolved.length, 'exact'], ['no_generation (v1 list)', lists.no_generation.length, 'exact'],
    ['generated (v1 list)', lists.generated.length, 'exact'],
  ]);
  near(v1.byRule.all_trials!.value, lists.resolved.length / (lists.generated.length + lists.no_generation.length), 'v1 over generated + no_generation');
  near(v1.byRule.non_empty!.value, lists.resolved.length / lists.generated.length, 'v1 over generated');
});

test('Terminal-Bench: accuracy and pass_at_k reproduced exactly; errors, timeouts and per-task rules beside them', async () => {
  const { byRule, asRecorded } = await sweepOf('agents/terminal-bench');
  const dir = fixturePath('agents/terminal-bench/runs/2025-07-01__12-00-00');
  const results = json(join(dir, 'results.json'));
  assert.deepEqual(asRecorded.cells.map((c) => [c.quantity, c.recorded, c.matches]), [
    ['accuracy', results.accuracy, 'exact'], ['n_resolved', 3, 'exact'], ['n_unresolved', 3, 'exact'], ['pass_at_k[2]', results.pass_at_k['2'], 'exact'],
  ]);
  type T = { task_id: string; is_resolved: boolean | null; failure_mode: string };
  const trials: T[] = results.results;
  const v = (t: T) => (t.is_resolved ? 1 : 0);
  near(byRule.all_trials!.value, mean(trials.map(v)), 'tb accuracy rule');
  assert.equal(byRule.all_trials!.value, results.accuracy);
  near(byRule.all_trials!.stderr, se(trials.map(v)), 'all trials stderr');
  assert.deepEqual(byRule.all_trials!.as_published, ['tb results.json accuracy (n_resolved ÷ every trial)']);
  const timeout = (t: T) => t.failure_mode === 'agent_timeout' || t.failure_mode === 'test_timeout';
  const error = (t: T) => t.is_resolved === null && !timeout(t);
  near(byRule.errors_excluded!.value, mean(trials.filter((t) => !error(t)).map(v)), 'errors excluded');
  assert.equal(byRule.errors_excluded!.n, 5);
  near(byRule.errors_timeouts_excluded!.value, mean(trials.filter((t) => !error(t) && !(timeout(t) && t.is_resolved !== true)).map(v)), 'errors and timeouts excluded');
  near(byRule.rewarded_only!.value, mean(trials.filter((t) => t.is_resolved !== null).map(v)), 'rewarded only');
  const tasks = [...new Set(trials.map((t) => t.task_id))];
  const rate = (task: string) => mean(trials.filter((t) => t.task_id === task).map(v));
  near(byRule.per_task_all!.value, mean(tasks.map(rate)), 'mean of task pass rates');
  // pass@2 with 2 attempts: a task passes when either attempt resolved; pass@1 is the mean of task rates.
  near(byRule.pass_at_2!.value, mean(tasks.map((task) => (trials.some((t) => t.task_id === task && t.is_resolved) ? 1 : 0))), 'pass@2');
  near(byRule.pass_at_1!.value, mean(tasks.map(rate)), 'pass@1');
  assert.deepEqual(byRule.pass_at_2!.as_published, ['tb results.json pass_at_k']);
});

test('Terminal-Bench flat <run_id>_results.json submission: the same numbers', async () => {
  const { asRecorded, byRule } = await sweepOf('agents/terminal-bench-flat');
  const results = json(fixturePath('agents/terminal-bench-flat/2025-07-01__12-00-00_results.json'));
  assert.deepEqual(asRecorded.cells.map((c) => [c.quantity, c.recorded, c.matches]), [
    ['accuracy', results.accuracy, 'exact'], ['n_resolved', results.n_resolved, 'exact'], ['n_unresolved', results.n_unresolved, 'exact'],
    ['pass_at_k[2]', results.pass_at_k['2'], 'exact'],
  ]);
  assert.equal(byRule.all_trials!.value, results.accuracy);
});

test('Harbor: Mean, n_trials, n_errors and pass_at_k reproduced exactly; the TB2 leaderboard rule beside them', async () => {
  const { byRule, asRecorded } = await sweepOf('agents/harbor');
  const job = fixturePath('agents/harbor/jobs/2026-06-15__15-53-26');
  const result = json(join(job, 'result.json'));
  const evals = Object.values(result.stats.evals)[0] as { n_trials: number; n_errors: number; metrics: { mean: number }[]; pass_at_k: Record<string, number> };
  assert.deepEqual(asRecorded.cells.map((c) => [c.quantity, c.recorded, c.matches]), [
    ['metrics[0].mean', evals.metrics[0]!.mean, 'exact'], ['n_trials (trials with rewards)', evals.n_trials, 'exact'],
    ['n_errors (trials with an exception)', evals.n_errors, 'exact'], ['pass_at_k[2]', evals.pass_at_k['2'], 'exact'],
  ]);
  type R = { task_name: string; verifier_result: { rewards: { reward: number } | null } | null; exception_info: { exception_type: string } | null };
  const trials: R[] = readdirSync(job, { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => json(join(job, e.name, 'result.json')));
  const reward = (t: R) => t.verifier_result?.rewards?.reward ?? 0;
  near(byRule.all_trials!.value, mean(trials.map(reward)), 'Harbor Mean');
  // get_agent_scores.sql: keep trials without an exception or with a timeout; coalesce(reward, 0); mean over tasks of p_hat.
  const kept = trials.filter((t) => t.exception_info === null || ['AgentTimeoutError', 'VerifierTimeoutError'].includes(t.exception_info.exception_type));
  const tasks = [...new Set(kept.map((t) => t.task_name))];
  const pHat = tasks.map((task) => mean(kept.filter((t) => t.task_name === task).map(reward)));
  near(byRule.per_task_errors_excluded!.value, mean(pHat), 'TB2 leaderboard');
  assert.equal(byRule.per_task_errors_excluded!.n, 3);
  assert.match(byRule.per_task_errors_excluded!.as_published[0]!, /TB2 leaderboard/);
  // One task keeps a single trial: the leaderboard's sqrt(Σ p(1−p)/(n−1)) divides by zero, so no stderr.
  assert.equal(byRule.per_task_errors_excluded!.stderr, null);
  near(byRule.errors_excluded!.value, mean(kept.map(reward)), 'per trial, infrastructure errors dropped');
  near(byRule.rewarded_only!.value, mean(trials.filter((t) => t.verifier_result?.rewards != null).map(reward)), 'missing rewards excluded');
});

test('the unbiased pass@k estimator equals 1 − C(n−c, k)/C(n, k)', () => {
  const comb = (n: number, k: number): number => (k < 0 || k > n ? 0 : k === 0 ? 1 : (comb(n - 1, k - 1) * n) / k);
  for (const [n, c, k] of [[5, 2, 1], [5, 2, 2], [5, 0, 3], [10, 3, 5], [4, 4, 2], [3, 1, 3]] as const) {
    near(passAtKEstimate(n, c, k), 1 - comb(n - c, k) / comb(n, k), `n=${n} c=${c} k=${k}`);
  }
});

test('Harbor: a trial with neither an exception nor a reward counts 0 in the Mean and stays in the TB2 leaderboard rule', () => {
  // By hand: task a has rewards 1 and none (no exception); task b has 1 and a DaytonaError (no reward).
  // Mean (missing = 0): (1 + 0 + 1 + 0) / 4. Leaderboard: drops only b's exception trial; a stays at (1 + 0) / 2,
  // b at 1 / 1: per task (0.5 + 1) / 2 = 0.75. Rewarded only: (1 + 1) / 2.
  const sweep = sweepAgentRun({
    run_id: 'r', source_kind: 'harbor', task: 't', split_size: null,
    trials: [
      { doc_id: 'a', attempt: 0, outcome: 'resolved', reward: 1, error: null },
      { doc_id: 'a', attempt: 1, outcome: 'error', reward: null, error: null },
      { doc_id: 'b', attempt: 0, outcome: 'resolved', reward: 1, error: null },
      { doc_id: 'b', attempt: 1, outcome: 'error', reward: null, error: 'DaytonaError: sandbox did not start' },
    ],
  });
  const byRule = Object.fromEntries(sweep.rules.map((r) => [r.rule, r]));
  assert.equal(byRule.all_trials!.value, 0.5);
  assert.equal(byRule.per_task_errors_excluded!.value, 0.75);
  assert.equal(byRule.errors_excluded!.value, 2 / 3);
  assert.equal(byRule.errors_excluded!.n, 3);
  assert.equal(byRule.rewarded_only!.value, 1);
});

test('terminal-bench: a timed-out trial keeps its reward under the per-task rule without errors, as its description says', () => {
  // fixtures/agents/terminal-bench: fibonacci-server's first trial hit agent_timeout and is_resolved true, its second
  // a test_timeout (is_resolved null); chess-best-move's second a parse_error. Errors dropped, fibonacci-server's rate
  // is (1 + 0) / 2, so the rule is (1 + 0 + 0.5) / 3 = 0.5; the description said timeouts were 'kept as 0' (that reads 1/3).
  const sweep = sweepAgentRun({
    run_id: 'r', source_kind: 'terminal-bench', task: 't', split_size: null,
    trials: [
      { doc_id: 'hello-world', attempt: 0, outcome: 'resolved', reward: 1, error: null },
      { doc_id: 'hello-world', attempt: 1, outcome: 'resolved', reward: 1, error: null },
      { doc_id: 'chess-best-move', attempt: 0, outcome: 'unresolved', reward: 0, error: null },
      { doc_id: 'chess-best-move', attempt: 1, outcome: 'error', reward: null, error: 'parse_error' },
      { doc_id: 'fibonacci-server', attempt: 0, outcome: 'resolved', reward: 1, error: null },
      { doc_id: 'fibonacci-server', attempt: 1, outcome: 'timeout', reward: null, error: null },
    ],
  });
  const rule = sweep.rules.find((r) => r.rule === 'per_task_errors_excluded')!;
  assert.equal(rule.value, 0.5);
  assert.equal(rule.description, 'mean of per-task pass rates, errored trials dropped (timeouts kept, counting their reward or 0)');
});
