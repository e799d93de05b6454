/**
 * Bad task input is refused with exit code 2 and an error naming the file, the key or
 * the document: malformed YAML, unknown keys (with "did you mean"), include cycles,
 * unknown `!function`s and documents missing a field.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { BadInputError } from '../../src/errors.ts';
import { TaskIndex } from '../../src/tasks/index.ts';
import { buildTask } from '../../src/prompt/build.ts';

function folder(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'lmaudit-tasks-'));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return dir;
}

const DATA = '{"q": "one", "a": "x"}\n{"a": "y"}\n';
const TASK = (extra: string) => `task: t\ndataset_path: .\noutput_type: generate_until\ntest_split: test\ndoc_to_text: "{{q}}"\ndoc_to_target: "{{a}}"\n${extra}`;

function badInput(fn: () => unknown, pattern: RegExp): void {
  assert.throws(fn, (e: unknown) => e instanceof BadInputError && e.exitCode === 2 && pattern.test(e.message));
}

test('malformed YAML names the file and line', () => {
  const dir = folder({ 't.yaml': 'task: t\ndoc_to_text: [unclosed\n' });
  badInput(() => new TaskIndex([dir]).resolve(['t']), /t\.yaml, line \d+: malformed YAML/);
});

test('an unknown key is refused with a did-you-mean', () => {
  const dir = folder({ 't.yaml': TASK('num_fewshots: 2\n') });
  badInput(() => new TaskIndex([dir]).resolve(['t']), /t\.yaml, line 7, field 'num_fewshots': unknown key 'num_fewshots'\. Did you mean: num_fewshot/);
});

test('an unknown fewshot_config key is refused', () => {
  const dir = folder({ 't.yaml': TASK('fewshot_config:\n  sampler: first_n\n  smaples: []\n') });
  badInput(() => new TaskIndex([dir]).resolve(['t']), /fewshot_config\.smaples.*Did you mean: .*samples/);
});

test('an include cycle names the files', () => {
  const dir = folder({ 'a.yaml': 'include: b.yaml\ntask: a\n', 'b.yaml': 'include: a.yaml\n' });
  badInput(() => new TaskIndex([dir]).resolve(['a']), /include cycle: .*a\.yaml -> .*b\.yaml -> .*a\.yaml/);
});

test('an unknown !function names the task and the function', async () => {
  const dir = folder({ 't.yaml': TASK('process_docs: !function utils.my_process\n'), 'test.jsonl': DATA });
  const index = new TaskIndex([dir]);
  const [config] = index.resolve(['t']).tasks;
  await assert.rejects(buildTask(config!, { roots: index.roots }), (e: unknown) => e instanceof BadInputError && /task 't': !function utils\.my_process .*not one of lmaudit's ported functions/.test(e.message));
});

test('a document missing a field names the task, document and field', async () => {
  // As datasets reads JSON Lines, doc 1's missing `q` is None (src/data/unify.ts): `{{q}}` prints "None", as in
  // lm-eval, and None.strip() fails there.
  const dir = folder({ 't.yaml': TASK('').replace('"{{q}}"', '"{{q.strip()}}"'), 'test.jsonl': DATA });
  const index = new TaskIndex([dir]);
  const [config] = index.resolve(['t']).tasks;
  await assert.rejects(buildTask(config!, { roots: index.roots }), (e: unknown) => e instanceof BadInputError && /task 't', doc 1: .*strip/.test(e.message) && /doc_to_text/.test(e.message));
});

test('an unknown task name suggests close names', () => {
  assert.throws(() => TaskIndex.withShipped().resolve(['arc_esay']), /Unknown task 'arc_esay'\. Did you mean: arc_easy/);
});

// From the sources (LMAUDIT_FROM_SOURCE: what bin/lmaudit.mjs runs where no bundle was built), the one test that
// takes that path; the other CLI tests run the bundle (test/helpers/cli.ts), a second or more less a start.
test('the CLI exits 2 and names the file', () => {
  const dir = folder({ 't.yaml': TASK('doc_to_txt: "x"\n') });
  const bin = fileURLToPath(new URL('../../bin/lmaudit.mjs', import.meta.url));
  const r = spawnSync(process.execPath, [bin, 'prompts', '--tasks', 't', '--include_path', dir, '--out', join(dir, 'out.jsonl')], {
    encoding: 'utf8',
    env: { ...process.env, LMAUDIT_FROM_SOURCE: '1' },
  });
  assert.equal(r.status, 2, r.stderr);
  assert.match(r.stderr, /t\.yaml, line 7, field 'doc_to_txt': unknown key 'doc_to_txt'\. Did you mean: doc_to_text/);
});

test('a broken task file blocks only the names it might define, not the other tasks of its folder', () => {
  const dir = folder({ 'broken.yaml': 'task: broken\n  bad: [indent\n', 't.yaml': TASK(''), 'test.jsonl': DATA });
  const index = new TaskIndex([dir]);
  assert.deepEqual(index.resolve(['t']).tasks.map((c) => c.task), ['t']);
  badInput(() => index.resolve(['broken']), /unknown task 'broken'; 1 task file\(s\) could not be read[\s\S]*broken\.yaml, line 2: malformed YAML/);
});

test('a YAML alias bomb is refused by its expanded size, at once', () => {
  const anchors = ['a: &a [x, x, x, x, x, x, x, x, x]', ...'bcdefghij'.split('').map((c, i) => `${c}: &${c} [${Array(9).fill(`*${'abcdefghij'[i]}`).join(', ')}]`)];
  const dir = folder({ 'bomb.yaml': `task: bomb\n${anchors.join('\n')}\ndoc_to_choice: *j\n` });
  const started = Date.now();
  badInput(() => new TaskIndex([dir]).resolve(['bomb']), /bomb\.yaml, field 'g': YAML anchors and aliases expand to more than 1,000,000 values \(an alias bomb\?\)/);
  assert.ok(Date.now() - started < 5000, 'refused before expanding');
});

test('a missing include names the including file', () => {
  const dir = folder({ 't.yaml': 'include: nowhere.yaml\ntask: t\n' });
  badInput(() => new TaskIndex([dir]).resolve(['t']), /t\.yaml, field 'include': included file not found: nowhere\.yaml/);
});

test('a task lm-eval defines by a Python class is named as such, not as an unknown task', () => {
  // lm-eval's TaskIndex registers `class:` configs (Kind.PY_TASK): 30 of its library's tasks (ag_news, cnn_dailymail…).
  const dir = folder({ 'p.yaml': 'task: my_py_task\nclass: !function task.MyTask\n', 't.yaml': TASK(''), 'test.jsonl': DATA });
  badInput(() => new TaskIndex([dir]).resolve(['my_py_task']), /p\.yaml.*field 'class'.*task 'my_py_task' is defined by a Python class/);
  assert.deepEqual(new TaskIndex([dir]).resolve(['t']).tasks.map((t) => t.task), ['t']);
});

test('a group file whose `task` is not a list is refused, as lm-eval 0.4.13 builds nothing from it', () => {
  // lm-eval's TaskIndex._kind_of makes any mapping with `group` a group; TaskFactory._build_group reads members only
  // from a list: `lm_eval --tasks g` ran no task (checked with lm-eval 0.4.13), where lmaudit ran the one named.
  const dir = folder({ 'g.yaml': 'group: g\ntask: t\n', 'old.yaml': TASK('group: old_tag\n').replace('task: t\n', 'task: t_old\n'), 't.yaml': TASK(''), 'test.jsonl': DATA });
  badInput(() => new TaskIndex([dir]).resolve(['g']), /g\.yaml, field 'task': group 'g': `task` must be a list/);
  badInput(() => new TaskIndex([dir]).resolve(['g']), /builds no task from a `task` that is not a list/);
  // The old task-file spelling (`group:` as a tag, lm-eval before 0.4.3) still reads as its task: old runs are rebuilt
  // from such files (test/prompt/external/wmdp).
  assert.deepEqual(new TaskIndex([dir]).resolve(['t_old']).tasks.map((t) => t.task), ['t_old']);
});

test('a bad field is named with the file and line that write it, through includes', async () => {
  const dir = folder({
    '_tmpl_yaml': 'output_type: generate_until\ntest_split: test\n\ndoc_to_text: "{{q.strip(}}"\n',
    't.yaml': 'include: _tmpl_yaml\ntask: t\ndataset_path: .\ndoc_to_target: "{{a}}"\n',
    'u.yaml': 'task: u\ndataset_path: .\n# a comment\ndoc_to_target: "{{a}}"\noutput_typ: generate_until\n',
    'f.yaml': 'task: f\ndataset_path: .\ntest_split: test\n"doc_to_text": !function utils.nope\ndoc_to_target: "{{a}}"\n',
    'test.jsonl': DATA,
  });
  const index = new TaskIndex([dir]);
  badInput(() => index.resolve(['u']), /u\.yaml, line 5, field 'output_typ': unknown key/);
  const [t] = index.resolve(['t']).tasks;
  await assert.rejects(buildTask(t!, { roots: index.roots }), (e: unknown) => e instanceof BadInputError && /_tmpl_yaml, line 4, field 'doc_to_text': task 't'/.test(e.message));
  const [f] = index.resolve(['f']).tasks;
  await assert.rejects(buildTask(f!, { roots: index.roots }), (e: unknown) => e instanceof BadInputError && /f\.yaml, line 4, field 'doc_to_text': task 'f': !function utils\.nope/.test(e.message));
});
