/**
 * The agent-record importers on the real files in fixtures/external/agents (every file imports or is listed with
 * its reason; the SWE-bench PR prediction files get their flags) and on the harness-layout fixtures; bad input is
 * refused with the file named and nothing stored.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, existsSync, mkdtempSync, rmSync, writeFileSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { externalFixture, fixturePath } from '../../helpers/fixtures.ts';
import { runCli } from '../../helpers/cli.ts';
import { importSources } from '../../../src/import/index.ts';
import type { RunProvenance } from '../../../src/store/schema.ts';

const options = { skipBad: false, fields: {} };
const noteKinds = (run: RunProvenance) => run.notes.map((n) => n.kind);
const noteOf = (run: RunProvenance, kind: string) => run.notes.find((n) => n.kind === kind)?.message;

test('every file of the shared agent records imports, or is listed with its reason', async () => {
  const root = externalFixture('agents');
  const { runs, unrecognised } = await importSources([root], options);
  // MANIFEST.jsonl (the copy's own index) and SOURCES.md are the only files not imported.
  assert.deepEqual(unrecognised.map((u) => [u.path.slice(root.length + 1), u.reason]), [
    ['MANIFEST.jsonl', 'JSON whose keys match no known output format'],
    ['SOURCES.md', 'documentation, not an output file'],
  ]);
  const kinds = (k: string, format: RegExp) => runs.filter((r) => r.provenance.source_kind === k && format.test(r.provenance.source_format)).length;
  assert.equal(kinds('swebench', /predictions/), 6);
  assert.equal(kinds('harbor', /parity record/), 60);
  // 6 tb2, 14 leaderboard, 7 reliability, 3 job.yaml and 3 generated rerun configs.
  assert.equal(kinds('harbor', /job config \(YAML\)/), 33);
  assert.equal(kinds('harbor', /registry/), 1);
  assert.equal(kinds('harbor', /ATIF/), 1);
  assert.equal(kinds('inspect', /./), 4);
  assert.equal(runs.length, 105);
  // Configs and parity records are settings without items, and say so.
  for (const r of runs.filter((x) => x.provenance.source_kind === 'harbor')) {
    assert.deepEqual(r.tables, {});
    assert.ok(noteKinds(r.provenance).includes('settings_only'), r.provenance.label);
    // Without trials nothing is known of instances, attempts or failures (gpqa-diamond's parity record, 198 tasks ×
    // 3 trials, read as 0 documents, 0 errors, 0 empty answers, 0 timeouts, all 'inferred').
    for (const block of Object.values(r.provenance.tasks)) {
      for (const [item, field] of [['samples', 'document_count'], ['samples', 'document_ids'], ['repeats', 'repeats'], ['failures', 'errors'], ['failures', 'empty_answers'], ['failures', 'truncations']] as const) {
        assert.equal((block[item] as Record<string, { used: { status: string } }>)[field]!.used.status, 'unknown', `${r.provenance.label} ${item}.${field}`);
      }
    }
  }
  const simpleqa = runs.find((r) => r.provenance.label === 'simpleqa/parity_experiment.json')!;
  assert.equal(simpleqa.provenance.source_format, 'Harbor adapter parity record (non-strict JSON)');
  assert.match(noteOf(simpleqa.provenance, 'not_strict_json')!, /trailing commas/);
  const daytona = runs.find((r) => r.provenance.label === 'tb2/terminus-closed.yaml')!.provenance.agent!;
  assert.deepEqual(daytona.sandbox_provider!.used, { status: 'recorded', value: 'daytona', from: 'job config environment.type' });
  assert.deepEqual((daytona.retries!.used as { value: { exclude_exceptions: string[] } }).value.exclude_exceptions, ['AgentTimeoutError', 'VerifierTimeoutError']);
  assert.deepEqual((daytona.attempts!.used as { value: number }).value, 5);
  const rerun = runs.find((r) => r.provenance.label === 'terminus-2/2025-09-17__04-36-17.yaml')!;
  assert.equal(noteOf(rerun.provenance, 'rerun_config'), "18 explicit trial_configs into trials_dir jobs/2025-09-15__01-26-06: a rerun of chosen trials, whose results land apart from the original job's");
  const pixiu = runs.find((r) => r.provenance.label === 'pixiu/parity_experiment.json')!;
  assert.ok(pixiu.provenance.notes.some((n) => n.kind === 'parity_subset' && /435 of 54083/.test(n.message)));
  // Inspect agent logs: the sandbox and the scored-subset denominator.
  const cve = runs.find((r) => r.provenance.label === 'data_cvebench_empty_choices.json')!.provenance;
  // One of the two errored samples is in the log, without scores: left out of the metrics (Inspect 0.3.199).
  assert.equal(noteOf(cve, 'scored_subset'), '78 of 80 samples completed without error; the metrics are over 78 sample score(s); of the 1 errored in the log, 0 carry scores (Inspect counts those in the metrics from 0.3.248 on) and 1 carries none (left out of the metrics) (fail_on_error false)');
  assert.deepEqual((cve.agent!.retries!.used as { value: unknown }).value, { fail_on_error: false, continue_on_fail: false, retry_on_error: null });
  const browser = runs.find((r) => r.provenance.label === '2025-05-12T20-27-36-04-00_browser.json')!.provenance;
  assert.equal((browser.agent!.sandbox_provider!.used as { value: unknown }).value, 'docker');
  const intercode = runs.find((r) => r.provenance.label === 'data_intercode_ctf_local_path.json')!.provenance;
  assert.match(noteOf(intercode, 'limit_fired')!, /message 50/);
});

test('the SWE-bench PR prediction files get their flags: fences, non-harness keys, placeholders, prose, a rate over the whole split', async () => {
  const base = externalFixture('agents/swebench-SWE-bench-prs');
  const one = async (rel: string) => (await importSources([join(base, rel)], options)).runs;
  const [dexOriginal] = await one('pr547-dex8b/original-d91f4b4');
  // Each non-harness key beside the one it stands in for: the file has instance_id, which the harness reads as is
  // (before, the note listed all three harness keys, instance_id included, after the two keys the file uses instead).
  assert.equal(noteOf(dexOriginal!.provenance, 'non_harness_keys'), "the file uses 'prediction' where the harness reads 'model_patch', 'model_name' where the harness reads 'model_name_or_path': the harness would fail on it as it is (kept, not renamed)");
  // model_id claims no outcome, so the note says nothing of claimed statuses (it did before).
  assert.equal(noteOf(dexOriginal!.provenance, 'extra_keys'), 'keys the harness ignores: model_id');
  assert.match(noteOf(dexOriginal!.provenance, 'patch_fenced')!, /^290 of 296 patches wrapped in a Markdown code fence/);
  const [dexFixed] = await one('pr547-dex8b/fixed-b07abfb');
  assert.match(noteOf(dexFixed!.provenance, 'patch_fenced')!, /^290 of 296/);
  assert.equal(noteOf(dexFixed!.provenance, 'non_harness_keys'), undefined);
  // metadata.yaml: 96.7% = 290/300 (the Lite split), not 290/296 (the predictions).
  assert.match(noteOf(dexFixed!.provenance, 'claimed_rate')!, /290\/300 = 96\.67% \(matches the claim\); over the 296 submitted predictions: 290\/296 = 97\.97%: the claim is resolved ÷ whole split/);
  const [blackOriginal] = await one('pr627-blacksmith/original-37d80e4');
  assert.equal(noteOf(blackOriginal!.provenance, 'extra_keys'), 'keys the harness ignores: execution_time_ms, status (a claimed status or timing in a predictions file is not an evaluation)');
  assert.match(noteOf(blackOriginal!.provenance, 'patch_no_hunk')!, /^15 of 15 patches with no @@ hunk header/);
  const [blackFixed] = await one('pr627-blacksmith/fixed-4856541');
  assert.deepEqual(noteKinds(blackFixed!.provenance), ['not_evaluated']);
  const [lite] = await one('pr495-predictions-lite');
  assert.match(noteOf(lite!.provenance, 'patch_prose')!, /^300 of 300 patches starting with prose/);
  assert.match(noteOf(lite!.provenance, 'patch_contains_fence')!, /^265 of 300/);
  assert.match(noteOf(lite!.provenance, 'dict_without_instance_id')!, /^300 dict entries/);
  const [mea] = await one('pr604-mea');
  assert.match(noteOf(mea!.provenance, 'split_not_covered')!, /^324 predictions for SWE-bench Verified \(500 instances, inferred from the path\): a rate over the whole split counts the 176 unsubmitted/);
  // Predictions alone: every instance is unevaluated, none is called resolved.
  const responses = (mea!.tables.responses as { rows: { finish_reason: string }[] }).rows;
  assert.equal(responses.length, 324);
  assert.ok(responses.every((r) => r.finish_reason === 'not_evaluated'));
});

test('the SWE-bench evaluation folder: the run-id cache, a stale report and a whole-split total are flagged', async () => {
  const { runs } = await importSources([fixturePath('agents/swebench')], options);
  assert.equal(runs.length, 1);
  const p = runs[0]!.provenance;
  assert.equal(p.source_format, 'SWE-bench run summary v2 + evaluation logs');
  assert.match(noteOf(p, 'stale_report')!, /^1 instance\(s\) have a patch.diff that differs/);
  assert.deepEqual(p.notes.find((n) => n.kind === 'stale_report')!.evidence, ['demo__repo-5']);
  assert.deepEqual(p.notes.find((n) => n.kind === 'run_id_cache')!.evidence, ['demo__repo-4']);
  assert.match(noteOf(p, 'total_is_whole_split')!, /^total_instances is 10 while 6 instance\(s\) were submitted/);
  const outcomes = (runs[0]!.tables.responses as { rows: { doc_id: string; finish_reason: string; error: string | null }[] }).rows.map((r) => [r.doc_id, r.finish_reason, r.error]);
  assert.deepEqual(outcomes.slice(0, 6), [
    ['demo__repo-1', 'resolved', null], ['demo__repo-2', 'unresolved', null], ['demo__repo-3', 'error', 'no report.json'],
    ['demo__repo-4', 'empty_patch', null], ['demo__repo-5', 'resolved', null], ['demo__repo-6', 'error', 'report.json is empty'],
  ]);
});

test('Terminal-Bench and Harbor folders: provenance of the agent run and the traps', async () => {
  const tb = (await importSources([fixturePath('agents/terminal-bench')], options)).runs[0]!.provenance;
  assert.equal(tb.source_kind, 'terminal-bench');
  assert.deepEqual((tb.agent!.attempts!.used as { value: unknown }).value, 2);
  assert.deepEqual((tb.agent!.model_recorded!.used as { value: unknown }).value, 'anthropic/claude-sonnet-4-20250514');
  assert.match(noteOf(tb, 'timeout_but_resolved')!, /^1 trial/);
  assert.match(noteOf(tb, 'errors_in_denominator')!, /^2 of 6 trial\(s\) have is_resolved null \(parse_error, test_timeout\)/);
  const harbor = (await importSources([fixturePath('agents/harbor')], options)).runs[0]!.provenance;
  assert.equal(harbor.label, '2026-06-15__15-53-26 terminus-2__anthropic/claude-sonnet-4-5__terminal-bench@2.0');
  assert.deepEqual((harbor.agent!.sandbox_resources!.used as { value: unknown }).value, { cpu_enforcement_policy: 'limit', memory_enforcement_policy: 'limit', override_cpus: 2, override_memory_mb: 4096 });
  assert.deepEqual((harbor.agent!.harness_version!.used as { value: unknown }).value, '0.21.0');
  assert.deepEqual((harbor.agent!.tasks_excluded!.used as { value: unknown }).value, ['build-linux-kernel']);
  assert.deepEqual(harbor.notes.find((n) => n.kind === 'exception_and_reward')!.evidence, ['fix-git__ccccccc']);
});

function scratch(from: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'lmaudit-agents-'));
  cpSync(fixturePath(from), join(dir, 'in'), { recursive: true });
  return dir;
}

/** Imports with the CLI into a new store; returns the result and whether anything was written. */
function importInto(dir: string, target = join(dir, 'in')) {
  const out = join(dir, 'store');
  const result = runCli(['import', target, '--out', out]);
  return { ...result, stored: existsSync(out) };
}

test('bad input: a summary whose lists contradict its counts, a trial folder without result.json, a reward that is not a number', () => {
  const a = scratch('agents/swebench');
  try {
    const summary = join(a, 'in', 'org__model-x.fx-run.json');
    const data = JSON.parse(readFileSync(summary, 'utf8'));
    data.resolved_instances = 3;
    writeFileSync(summary, JSON.stringify(data));
    const r = importInto(a);
    assert.equal(r.status, 2);
    assert.match(r.stderr, /org__model-x\.fx-run\.json.*resolved_instances.*the summary contradicts itself: resolved_instances is 3 but resolved_ids lists 2 id\(s\)/s);
    assert.doesNotMatch(r.stderr, /\n\s+at /);
    assert.equal(r.stored, false);
  } finally {
    rmSync(a, { recursive: true, force: true });
  }
  const b = scratch('agents/harbor');
  try {
    rmSync(join(b, 'in/jobs/2026-06-15__15-53-26/sqlite-db__fffffff/result.json'));
    const r = importInto(b);
    assert.equal(r.status, 2);
    assert.match(r.stderr, /sqlite-db__fffffff\/result\.json.*a trial folder without result\.json/s);
    assert.equal(r.stored, false);
  } finally {
    rmSync(b, { recursive: true, force: true });
  }
  const c = scratch('agents/harbor');
  try {
    writeFileSync(join(c, 'in/jobs/2026-06-15__15-53-26/hello-world__aaaaaaa/verifier/reward.txt'), 'passed\n');
    const r = importInto(c);
    assert.equal(r.status, 2);
    assert.match(r.stderr, /hello-world__aaaaaaa\/verifier\/reward\.txt.*reward\.txt must hold one number, found "passed"/s);
    assert.equal(r.stored, false);
  } finally {
    rmSync(c, { recursive: true, force: true });
  }
});

test('a prediction whose instance_id is a number is named as such, not as having no instance_id', () => {
  // The first three MEA predictions, the third's instance_id replaced by 5: it has one, of the wrong type.
  const dir = mkdtempSync(join(tmpdir(), 'lmaudit-agents-'));
  try {
    const source = externalFixture('agents/swebench-SWE-bench-prs/pr604-mea/submissions/verified/20260620_MEA_v5_8_1_AGIR_Bruno_Loureiro/all_preds.jsonl');
    const lines = readFileSync(source, 'utf8').split('\n').slice(0, 3).map((l) => JSON.parse(l));
    lines[2].instance_id = 5;
    writeFileSync(join(dir, 'all_preds.jsonl'), lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
    const r = importInto(dir, join(dir, 'all_preds.jsonl'));
    assert.equal(r.status, 2);
    assert.equal(r.stderr.trim(), `lmaudit: ${join(dir, 'all_preds.jsonl')}, line 3, field 'instance_id': instance_id is not a string (5)`);
    assert.equal(r.stored, false);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a truncated Harbor registry or ATIF trajectory is bad input naming file and line (it was an internal error with a stack trace, exit 3)', () => {
  for (const [from, name, cut, line] of [
    ['agents/harbor-terminal-bench-experiments/registry.json', 'registry.json', 500, 11],
    ['agents/harbor-evolving-skills/tests/golden/terminus_2/hello-world-timeout.trajectory.json', 'hello-world-timeout.trajectory.json', 300, 16],
  ] as const) {
    const dir = mkdtempSync(join(tmpdir(), 'lmaudit-agents-'));
    try {
      const file = join(dir, name);
      writeFileSync(file, readFileSync(externalFixture(from), 'utf8').slice(0, cut));
      const r = importInto(dir, file);
      assert.equal(r.status, 2, r.stderr);
      assert.equal(r.stderr.trim(), `lmaudit: ${file}, line ${line}: not valid JSON (Unterminated string in JSON at position ${cut})`);
      assert.equal(r.stored, false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
});

test('a truncated Harbor parity record names its line too (it named only the file)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'lmaudit-agents-'));
  try {
    const file = join(dir, 'parity_experiment.json');
    // Cut inside line 14 (the 500th character is in "https://github.com/laude-institute/terminal-ben…").
    writeFileSync(file, readFileSync(externalFixture('agents/harbor-evolving-skills/adapters/swebench/parity_experiment.json'), 'utf8').slice(0, 500));
    const r = importInto(dir, file);
    assert.equal(r.status, 2, r.stderr);
    assert.equal(r.stderr.trim(), `lmaudit: ${file}, line 14: not valid JSON, even without trailing commas (Unterminated string in JSON at position 500)`);
    assert.equal(r.stored, false);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a predictions file names swebench as the harness that would evaluate it, inferred, not as recorded', async () => {
  // MEA's all_preds.jsonl: instance_id, model_name_or_path, model_patch; nothing in it comes from SWE-bench's harness.
  const { runs } = await importSources([externalFixture('agents/swebench-SWE-bench-prs/pr604-mea/submissions/verified/20260620_MEA_v5_8_1_AGIR_Bruno_Loureiro/all_preds.jsonl')], options);
  assert.deepEqual(runs[0]!.provenance.harness.name!.used, { status: 'inferred', value: 'swebench', how: "predictions in the format SWE-bench's harness evaluates; the harness has not run on them here" });
});

test('a refused prediction of a whole-JSON list or dict is named by its path and the line it is on (a list item was named "line <index + 1>")', async () => {
  const { readPredictions } = await import('../../../src/import/agents/swebenchPredictions.ts');
  const refusal = (name: string, text: string): string => {
    try {
      readPredictions(name, text);
    } catch (error) {
      return (error as Error).message;
    }
    return 'accepted';
  };
  const patch = 'diff --git a/x b/x\n--- "a]" {\\"instance_id\\": [\n+ }';
  // Lines counted in the texts as written: item [2] opens on line 9, its instance_id on line 10.
  const list = `[
  {"instance_id": "a__a-1", "model_name_or_path": "m", "model_patch": ${JSON.stringify(patch)}},
  {
    "instance_id": "a__a-2",
    "model_name_or_path": "m",
    "model_patch": ""
  },

  {
    "instance_id": 5, "model_patch": ""}
]`;
  assert.equal(refusal('preds.json', list), "preds.json, line 10, field '[2].instance_id': instance_id is not a string (5)");
  assert.equal(refusal('preds.json', list.replace('"instance_id": 5, ', '')), "preds.json, line 9, field '[2].instance_id': a prediction has no instance_id");
  const dict = `{"a__a-1": {"model_patch": ${JSON.stringify(patch)}},\n "a.b__c-2":\n  {"instance_id": "a.b__c-2", "model_patch": 7}}`;
  assert.equal(refusal('preds.json', dict), "preds.json, line 3, field 'a.b__c-2.model_patch': model_patch is not a string");
  assert.equal(refusal('preds.json', `[1,\n 2]`), "preds.json, line 1, field '[0]': a prediction is not a JSON object");
});
