/**
 * Issue 15 part 2, "false alarms": `batch_size: auto` resolved to a size is "resolved", not a
 * record contradicting itself; two lm-eval commits are two harnesses. B is a copy of the asdiv
 * batch-8 run (results + samples) with the results file edited as lm-eval writes those fields.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../helpers/cli.ts';

const A = 'fixtures/lmeval/pr2236-asdiv/asdiv/meta-llama__Meta-Llama-3-8B-Instruct';
const TS = '2024-08-21T03-44-09.494230';

function copyWith(edits: [string, string][]): string {
  const dir = mkdtempSync(join(tmpdir(), 'lmaudit-alarm-'));
  copyFileSync(join(A, `samples_asdiv_${TS}.jsonl`), join(dir, `samples_asdiv_${TS}.jsonl`));
  let text = readFileSync(join(A, `results_${TS}.json`), 'utf8');
  for (const [from, to] of edits) {
    assert.ok(text.includes(from), from);
    text = text.replace(from, to);
  }
  writeFileSync(join(dir, `results_${TS}.json`), text);
  return dir;
}

interface Row { field: string; verdict: string; contradiction?: unknown; resolved?: { side: string; detail: string } }
function runLevelField(diff: { comparisons: { tasks: { settings: { items: { item: string; fields: Row[] }[] } }[] }[] }, item: string, field: string): Row {
  return diff.comparisons[0]!.tasks[0]!.settings.items.find((i) => i.item === item)!.fields.find((f) => f.field === field)!;
}

test('batch_size auto resolved to [8] against a run configured 8: resolved, no contradiction, no difference', () => {
  const b = copyWith([['"batch_size": "8",', '"batch_size": "auto",'], ['"batch_sizes": [],', '"batch_sizes": [8],']]);
  const r = runCli(['diff', A, b, '--json', '--iterations', '100']);
  assert.equal(r.status, 0, r.stderr);
  const row = runLevelField(JSON.parse(r.stdout), 'model', 'batch_size');
  assert.equal(row.verdict, 'resolved');
  assert.equal(row.contradiction, undefined);
  assert.deepEqual(row.resolved, { side: 'B', detail: 'B: configured "auto", resolved to [8]' });
  const text = runCli(['diff', A, b, '--iterations', '100']).stdout;
  assert.match(text, /^ {2}batch_size +resolved +"8" +\[8\] +auto resolved \(B: configured "auto", resolved to \[8\]\)$/m);
  assert.match(text, /: no run-level setting differs$/m);
});

test('batch_size auto resolved to [64] against batch 8: differs (a real difference), still not a contradiction', () => {
  const b = copyWith([['"batch_size": "8",', '"batch_size": "auto",'], ['"batch_sizes": [],', '"batch_sizes": [64],']]);
  const row = runLevelField(JSON.parse(runCli(['diff', A, b, '--json', '--iterations', '100']).stdout), 'model', 'batch_size');
  assert.equal(row.verdict, 'differs');
  assert.equal(row.contradiction, undefined);
});

test('two lm-eval commits are not the same harness: the harness clause compares the commit', () => {
  const b = copyWith([['"git_hash": "59170e85"', '"git_hash": "1234abcd"']]);
  const r = runCli(['diff', A, b, '--json', '--iterations', '100']);
  assert.equal(r.status, 0, r.stderr);
  const falsifier = JSON.parse(r.stdout).comparisons[0].tasks[0].falsifier;
  assert.equal(falsifier.status, 'violated');
  assert.deepEqual(falsifier.clauses.find((c: { name: string }) => c.name === 'harness'), {
    name: 'harness',
    phrase: 'harness versions or commits',
    status: 'violated',
    finding: 'the harness commit differs ("59170e85" vs "1234abcd")',
  });
});

test('a harness that fills in what the configuration left out (a default max_gen_toks, the EOS stop it appends) is "resolved", not a contradiction', async () => {
  const { compareField } = await import('../../src/audit/settingsDiff.ts');
  const { recorded } = await import('../../src/store/schema.ts');
  const setting = (configured: unknown, used: unknown) => ({ configured: recorded(configured), used: recorded(used) });
  const kwargs = setting({ task: { until: ['Question:'], do_sample: false }, cli: null }, { until: ['Question:'], do_sample: false, temperature: 0, max_gen_toks: 256 });
  const row = compareField('generation', 'settings', kwargs, kwargs);
  assert.equal(row.verdict, 'resolved');
  assert.equal(row.contradiction, undefined);
  assert.match(row.resolved!.detail, /A: configured \{"until":\["Question:"\],"do_sample":false\}; the harness added \{"temperature":0,"max_gen_toks":256\}/);
  const stops = setting(['Question:'], ['Question:', '<|endoftext|>']);
  assert.equal(compareField('generation', 'stop_sequences', stops, stops).verdict, 'resolved');
  // A used value that drops or changes what was configured is still a contradiction.
  const changed = setting({ task: { until: ['Question:'], do_sample: false }, cli: null }, { until: ['\n\n'], do_sample: false, max_gen_toks: 256 });
  assert.equal(compareField('generation', 'settings', changed, changed).verdict, 'contradicts');
  const dropped = setting(['Question:', '\n\n'], ['Question:']);
  assert.equal(compareField('generation', 'stop_sequences', dropped, dropped).verdict, 'contradicts');
});

test("lmaudit run's record of the target delimiter a chat template emptied is lm-eval's rule, \"resolved\", not a contradiction", async () => {
  // lmaudit run records the YAML's delimiter as configured and the one sent as used: " " and "" for arc_easy under
  // --apply_chat_template (test/run/run.test.ts), where diff said the record contradicted itself.
  const { compareField } = await import('../../src/audit/settingsDiff.ts');
  const { recorded } = await import('../../src/store/schema.ts');
  const setting = (configured: unknown, used: unknown) => ({ configured: recorded(configured), used: recorded(used) });
  const emptied = setting(' ', '');
  const row = compareField('chat_template', 'target_delimiter', emptied, emptied);
  assert.equal(row.verdict, 'resolved');
  assert.equal(row.contradiction, undefined);
  assert.equal(row.resolved!.detail, 'A: configured " ", sent "": under a chat template lm-eval (0.4.6 and later) sends multiple-choice continuations without the target delimiter; B: configured " ", sent "": under a chat template lm-eval (0.4.6 and later) sends multiple-choice continuations without the target delimiter');
  // Any other delimiter sent than the configured one is still a contradiction.
  const other = setting(' ', '\n');
  assert.equal(compareField('chat_template', 'target_delimiter', other, other).verdict, 'contradicts');
});

test("one stop string is the list of it (lm-eval's handle_stop_sequences): `--gen_kwargs until=Answer` in lm-eval's record and lmaudit's is the same request", async () => {
  const { compareField } = await import('../../src/audit/settingsDiff.ts');
  const { recorded } = await import('../../src/store/schema.ts');
  const setting = (configured: unknown, used: unknown) => ({ configured: recorded(configured), used: recorded(used) });
  // The records of `--gen_kwargs max_gen_toks=24,until=Answer` on gsm8k: lm-eval 0.4.13's (configs.gsm8k.generation_kwargs
  // and the samples' arg_1 keep the CLI's string) and lmaudit run's store (the stops as the backend applied them).
  const task = { until: ['Question:', '</s>', '<|im_end|>'], do_sample: false, temperature: 0 };
  const cli = { max_gen_toks: 24, until: 'Answer' };
  const a = setting({ task: { ...task, ...cli }, cli }, { until: 'Answer', do_sample: false, temperature: 0, max_gen_toks: 24 });
  const b = setting({ task, cli }, { until: ['Answer'], do_sample: false, temperature: 0, max_gen_toks: 24 });
  const settings = compareField('generation', 'settings', a, b);
  assert.equal(settings.verdict, 'same');
  assert.equal(settings.contradiction, undefined);
  const stops = compareField('generation', 'stop_sequences', setting('Answer', 'Answer'), setting(['Answer'], ['Answer', '<|endoftext|>']));
  assert.equal(stops.verdict, 'resolved');
  assert.deepEqual(stops.resolved, { side: 'B', detail: 'B: configured ["Answer"]; the harness added ["<|endoftext|>"]; A records what it asked for, not what its backend added' });
  // Another stop is still another.
  assert.equal(compareField('generation', 'stop_sequences', setting('Answer', 'Answer'), setting(['Question'], ['Question', '<|endoftext|>'])).verdict, 'differs');
  assert.equal(compareField('generation', 'settings', a, setting({ task, cli: { ...cli, until: 'Q' } }, { until: ['Q'], do_sample: false, temperature: 0, max_gen_toks: 24 })).verdict, 'differs');
});

test("a max-token alias is the max_gen_toks lm-eval sends (normalize_gen_kwargs): `--gen_kwargs max_new_tokens=5` in lm-eval's record and lmaudit's is the same request", async () => {
  const { compareField } = await import('../../src/audit/settingsDiff.ts');
  const { recorded } = await import('../../src/store/schema.ts');
  const setting = (configured: unknown, used: unknown) => ({ configured: recorded(configured), used: recorded(used) });
  // The records of `--gen_kwargs max_new_tokens=5` on gsm8k: lm-eval 0.4.13's samples keep the request's kwargs (arg_1),
  // lmaudit run's store what its backend received once normalize_gen_kwargs had read the alias.
  const task = { until: ['Question:', '</s>', '<|im_end|>'], do_sample: false, temperature: 0 };
  const cli = { max_new_tokens: 5 };
  const a = setting({ task: { ...task, ...cli }, cli }, { ...task, max_new_tokens: 5 });
  const b = setting({ task, cli }, { ...task, max_gen_toks: 5 });
  const row = compareField('generation', 'settings', a, b);
  assert.equal(row.verdict, 'same');
  assert.equal(row.contradiction, undefined);
  // max_gen_toks wins over max_new_tokens (lm-eval's priority); another limit is still another.
  assert.equal(compareField('generation', 'settings', setting(null, { ...task, max_gen_toks: 7, max_new_tokens: 5 }), b).verdict, 'differs');
  assert.equal(compareField('generation', 'settings', setting(null, { ...task, max_gen_toks: 5, max_new_tokens: 7 }), b).verdict, 'same');
});
