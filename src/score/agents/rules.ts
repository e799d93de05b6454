/**
 * The denominator sweep of an agent run: the same trials scored under each rule a harness or leaderboard uses
 * (which trials count, what a missing reward is, trial or task as the unit, pass@1 or pass@k). Pure functions of
 * the trials, so a test can compute every rule independently of the store.
 */
import type { AgentSourceKind, TrialOutcome } from '../../store/schema.ts';
import { mean } from '../lmeval/aggregate.ts';
import { macro, meanStderr } from '../stats.ts';
import { npSum } from '../../util/numpySum.ts';

export interface Trial {
  doc_id: string;
  attempt: number;
  outcome: TrialOutcome;
  /** The recorded reward (SWE-bench: resolved 1 / unresolved 0); null when the trial has none. */
  reward: number | null;
  /** The exception or failure mode, as recorded (null: none). */
  error?: string | null;
  /** How the agent itself ended the instance, where the scaffold records it (mini-swe-agent's exit status). */
  agent_exit?: { status: string | null; class: 'submitted' | 'limit' | 'error' } | null;
}

export interface AgentRunTrials {
  run_id: string;
  source_kind: AgentSourceKind;
  task: string;
  /** Instances in the whole split (SWE-bench's total_instances), when known. */
  split_size: number | null;
  trials: Trial[];
}

export interface RuleResult {
  rule: string;
  /** What the rule counts, in words. */
  description: string;
  value: number | null;
  /** Trials (or tasks, for per-task rules, or split instances) in the denominator. */
  n: number;
  stderr: number | null;
  /** Who publishes the number under this rule (empty: nobody we know of). */
  as_published: string[];
}

export interface SweepResult {
  run_id: string;
  source_kind: AgentSourceKind;
  task: string;
  trials: number;
  tasks: number;
  outcomes: Partial<Record<TrialOutcome, number>>;
  /** The agent's own exit statuses, counted (empty when the scaffold records none). */
  agent_exits: Record<string, number>;
  rules: RuleResult[];
  /** Largest minus smallest value over the rules with a value. */
  spread: number | null;
}

const isSubmitted = (t: Trial) => t.outcome !== 'not_submitted' && t.outcome !== 'not_evaluated';
const zeroMissing = (t: Trial) => t.reward ?? 0;
/**
 * A trial dropped by the "errors excluded" rules: one that recorded an error (an exception, a failure mode, a
 * missing report). The TB2 leaderboard drops trials for their exception, not for a missing reward: a trial that
 * ended without an exception and without a reward stays, as 0 (get_agent_scores.sql: coalesce(reward, 0)).
 */
const errored = (t: Trial) => t.outcome === 'error' && (t.error ?? null) !== null;

/** Mean over trials with its sample standard error (lm-eval's mean_stderr). */
function perTrial(values: number[]): { value: number | null; n: number; stderr: number | null } {
  if (values.length === 0) return { value: null, n: 0, stderr: null };
  return { value: mean(values), n: values.length, stderr: meanStderr(values) };
}

/**
 * Mean of per-task means; the standard error is sqrt(Σ se_t²)/T, which for 0/1 rewards is the TB2 leaderboard's
 * sqrt(Σ p(1−p)/(n−1))/T (null when a task has a single trial).
 */
function perTask(trials: Trial[], value: (t: Trial) => number): { value: number | null; n: number; stderr: number | null } {
  const byTask = new Map<string, number[]>();
  for (const t of trials) {
    const list = byTask.get(t.doc_id) ?? [];
    list.push(value(t));
    byTask.set(t.doc_id, list);
  }
  if (byTask.size === 0) return { value: null, n: 0, stderr: null };
  const groups = [...byTask.values()].map((v) => ({ mean: mean(v), stderr: meanStderr(v) }));
  const { score, stderr } = macro(groups);
  return { value: score, n: byTask.size, stderr };
}

/** The unbiased pass@k estimator 1 − C(n−c, k)/C(n, k), in tb's product form (np.prod(1 − k/arange(n−c+1, n+1))). */
export function passAtKEstimate(n: number, c: number, k: number): number {
  if (n - c < k) return 1;
  let product = 1;
  for (let i = n - c + 1; i <= n; i++) product *= 1 - k / i;
  return 1 - product;
}

/**
 * The same estimator in Harbor's product form (utils/pass_at_k.py: ∏_{i<k} (n−c−i)/(n−i)): equal in exact
 * arithmetic, but the two round differently, and reproducing Harbor's number means rounding as it does.
 */
export function harborPassAtKEstimate(n: number, c: number, k: number): number {
  if (n - c < k) return 1;
  let product = 1;
  for (let i = 0; i < k; i++) product *= (n - c - i) / (n - i);
  return 1 - product;
}

/** tb's k values: powers of two up to the fewest attempts any task has, then 5 and 10 when every task has that many. */
export function tbPassAtKValues(minAttempts: number): number[] {
  const ks: number[] = [];
  for (let k = 2; k <= minAttempts; k *= 2) ks.push(k);
  if (minAttempts >= 5) ks.push(5);
  if (minAttempts >= 10) ks.push(10);
  return ks;
}

/** Harbor's k values (utils/pass_at_k.py): powers of two, then multiples of 5, up to the fewest trials of any task. */
export function harborPassAtKValues(minTrials: number): number[] {
  const ks = new Set<number>();
  for (let k = 2; k <= minTrials; k *= 2) ks.add(k);
  for (let k = 5; k <= minTrials; k += 5) ks.add(k);
  return [...ks].sort((a, b) => a - b);
}

/** Trials and successes per task, in first-seen order; success is a reward of 1 or more, a missing reward fails. */
export function taskSuccesses(trials: readonly Trial[]): { n: number; c: number }[] {
  const byTask = new Map<string, { n: number; c: number }>();
  for (const t of trials) {
    const e = byTask.get(t.doc_id) ?? { n: 0, c: 0 };
    e.n += 1;
    if ((t.reward ?? 0) >= 1) e.c += 1;
    byTask.set(t.doc_id, e);
  }
  return [...byTask.values()];
}

/**
 * pass@k over tasks with at least k trials, each harness's way: tb skips the other tasks and takes np.mean
 * (NumPy's pairwise sum); Harbor offers only k up to the fewest trials of any task and divides Python's sum by the
 * task count.
 */
export function passAtK(trials: Trial[], k: number, harness: 'tb' | 'harbor' = 'tb'): { value: number | null; n: number } {
  const tasks = taskSuccesses(trials).filter((e) => e.n >= k);
  if (tasks.length === 0) return { value: null, n: 0 };
  if (harness === 'harbor') return { value: mean(tasks.map((e) => harborPassAtKEstimate(e.n, e.c, k))), n: tasks.length };
  return { value: npSum(tasks.map((e) => passAtKEstimate(e.n, e.c, k))) / tasks.length, n: tasks.length };
}

/** Who publishes which rule: the harness's own summary and the leaderboards that read it. */
const PUBLISHED: Record<AgentSourceKind, Record<string, string>> = {
  swebench: { whole_split: 'SWE-bench leaderboard (resolved ÷ total_instances)' },
  'terminal-bench': { all_trials: 'tb results.json accuracy (n_resolved ÷ every trial)', pass_at_k: 'tb results.json pass_at_k' },
  harbor: {
    all_trials: 'Harbor Mean (a missing reward counts 0)',
    pass_at_k: 'Harbor pass_at_k',
    per_task_errors_excluded: 'TB2 leaderboard, get_agent_scores.sql (non-timeout exceptions dropped, mean of task rates)',
  },
};

export function sweepAgentRun(run: AgentRunTrials): SweepResult {
  const submitted = run.trials.filter(isSubmitted);
  const published = PUBLISHED[run.source_kind];
  const rules: RuleResult[] = [];
  const add = (rule: string, description: string, r: { value: number | null; n: number; stderr?: number | null }, publishedKey = rule) =>
    rules.push({ rule, description, value: r.value, n: r.n, stderr: r.stderr ?? null, as_published: published[publishedKey] ? [published[publishedKey]!] : [] });

  if (run.split_size !== null && run.split_size > 0) {
    // Every split instance counts; an instance with no trial (not submitted, or outside the evaluated subset) is 0.
    const perInstance = perTask(submitted, zeroMissing);
    const sumOfTaskMeans = (perInstance.value ?? 0) * perInstance.n;
    const values = [...Array(Math.max(0, run.split_size - perInstance.n)).fill(0)];
    add('whole_split', 'whole split: per-instance rate summed over submitted instances ÷ split size (unsubmitted = 0)', {
      value: sumOfTaskMeans / run.split_size,
      n: run.split_size,
      stderr: perInstance.n <= run.split_size ? binaryLikeStderr(submitted, values.length) : null,
    });
  }
  add('all_trials', 'every submitted trial; errors, timeouts, empty patches and missing rewards count 0', perTrial(submitted.map(zeroMissing)));
  if (submitted.some((t) => t.outcome === 'empty_patch')) {
    add('non_empty', 'submitted trials with a non-empty patch; errors count 0', perTrial(submitted.filter((t) => t.outcome !== 'empty_patch').map(zeroMissing)));
  }
  add('errors_excluded', 'trials that did not end in an error (timeouts kept, counting their reward or 0)', perTrial(submitted.filter((t) => !errored(t)).map(zeroMissing)));
  add('errors_timeouts_excluded', 'trials with neither an error nor a timeout that left the task unresolved (a timed-out trial the harness still resolved stays)', perTrial(submitted.filter((t) => !errored(t) && t.outcome !== 'timeout').map(zeroMissing)));
  add('rewarded_only', 'trials with a recorded reward (completed): a missing reward is excluded, not 0', perTrial(submitted.filter((t) => t.reward !== null).map((t) => t.reward!)));
  if (submitted.some((t) => t.agent_exit)) {
    // The agent's exit status says why a patch is empty: it gave up at a limit, or it raised. SWE-bench sees only the
    // empty patch and counts it as unresolved; these rules drop what a reader might call "not the model's fault".
    const exitOf = (t: Trial) => t.agent_exit?.class ?? null;
    add('agent_errors_excluded', "instances whose agent raised (exit status an exception) dropped; stops at a step/cost/time limit kept as 0", perTrial(submitted.filter((t) => exitOf(t) !== 'error').map(zeroMissing)));
    add('agent_submitted_only', 'only instances the agent submitted (exit status Submitted): limit stops and agent exceptions dropped', perTrial(submitted.filter((t) => exitOf(t) === 'submitted').map(zeroMissing)));
  }
  const attempts = new Map<string, number>();
  for (const t of submitted) attempts.set(t.doc_id, (attempts.get(t.doc_id) ?? 0) + 1);
  const minAttempts = attempts.size === 0 ? 0 : Math.min(...attempts.values());
  const maxAttempts = attempts.size === 0 ? 0 : Math.max(...attempts.values());
  // With one trial per task the per-task rules are the per-trial ones.
  if (maxAttempts > 1) add('per_task_all', 'mean of per-task pass rates over every submitted trial (missing = 0)', perTask(submitted, zeroMissing));
  if (maxAttempts > 1) add('per_task_errors_excluded', 'mean of per-task pass rates, errored trials dropped (timeouts kept, counting their reward or 0)', perTask(submitted.filter((t) => !errored(t)), zeroMissing));

  if (minAttempts >= 2) {
    const harness = run.source_kind === 'harbor' ? 'harbor' : 'tb';
    add('pass_at_1', 'pass@1 (unbiased estimator, mean over tasks)', { ...passAtK(submitted, 1, harness), stderr: null });
    for (const k of harness === 'harbor' ? harborPassAtKValues(minAttempts) : tbPassAtKValues(minAttempts)) {
      add(`pass_at_${k}`, `pass@${k} (unbiased estimator over each task's attempts, mean over tasks)`, { ...passAtK(submitted, k, harness), stderr: null }, 'pass_at_k');
    }
  }
  const values = rules.map((r) => r.value).filter((v): v is number => v !== null);
  const outcomes: Partial<Record<TrialOutcome, number>> = {};
  for (const t of run.trials) outcomes[t.outcome] = (outcomes[t.outcome] ?? 0) + 1;
  const agentExits: Record<string, number> = {};
  for (const t of run.trials) if (t.agent_exit) agentExits[String(t.agent_exit.status)] = (agentExits[String(t.agent_exit.status)] ?? 0) + 1;
  return {
    run_id: run.run_id,
    source_kind: run.source_kind,
    task: run.task,
    trials: run.trials.length,
    tasks: new Set(run.trials.map((t) => t.doc_id)).size,
    outcomes,
    agent_exits: agentExits,
    rules,
    spread: values.length === 0 ? null : Math.max(...values) - Math.min(...values),
  };
}

/** Sample standard error over the split: each submitted instance's rate, then zeros for the rest. */
function binaryLikeStderr(submitted: Trial[], zeros: number): number | null {
  const byTask = new Map<string, number[]>();
  for (const t of submitted) byTask.set(t.doc_id, [...(byTask.get(t.doc_id) ?? []), zeroMissing(t)]);
  const values = [...[...byTask.values()].map((v) => mean(v)), ...Array<number>(zeros).fill(0)];
  return meanStderr(values);
}
