/**
 * Task index semantics (lmeval-prompts.md §3): include merging, tags in sorted order,
 * groups with overrides and aggregate_metric_list, the shipped library's contents.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { TaskIndex } from '../../src/tasks/index.ts';
import { PyFloat } from '../../src/py/values.ts';

function folder(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'lmaudit-index-'));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return dir;
}

test('the shipped library: mmlu is 57 subjects under four groups, weighted by size', () => {
  const index = TaskIndex.withShipped();
  const { tasks, groups } = index.resolve(['mmlu']);
  assert.equal(tasks.length, 57);
  assert.deepEqual(groups.map((g) => g.group), ['mmlu', 'mmlu_stem', 'mmlu_other', 'mmlu_social_sciences', 'mmlu_humanities']);
  assert.deepEqual(groups[0]!.aggregate_metric_list, [{ metric: 'acc', weight_by_size: true }]);
  const algebra = tasks.find((t) => t.task === 'mmlu_abstract_algebra')!;
  assert.equal(algebra.description, 'The following are multiple choice questions (with answers) about abstract algebra.\n\n');
  assert.equal(algebra.fewshot_config.sampler, 'first_n');
  assert.equal(algebra.fewshot_config.split, 'dev');
  assert.equal(algebra.task_alias, 'abstract_algebra');
  // Tags load their tasks in sorted name order.
  const stem = tasks.filter((t) => t.tag.includes('mmlu_stem_tasks')).map((t) => t.task);
  assert.deepEqual(stem, [...stem].sort());
  for (const name of ['arc_easy', 'arc_challenge', 'gsm8k', 'truthfulqa_mc1', 'truthfulqa_mc2', 'truthfulqa_gen', 'winogrande', 'piqa', 'boolq', 'lambada_openai', 'hellaswag']) {
    assert.equal(index.resolve([name]).tasks[0]!.task, name);
  }
  assert.deepEqual(index.resolve(['ai2_arc']).tasks.map((t) => t.task), ['arc_challenge', 'arc_easy']);
});

test('include: later includes win, local keys win, nested mappings are replaced whole', () => {
  const dir = folder({
    'base_yaml': 'dataset_path: base\noutput_type: multiple_choice\nmetadata: {version: 1.0, note: base}\ntask_list: [x]\n',
    'second_yaml': 'dataset_path: second\ndescription: "from second"\n',
    't.yaml': 'include: [base_yaml, second_yaml]\ntask: t\ndescription: local\nmetadata: {version: 2.0}\ndoc_to_text: q\n',
  });
  const [t] = new TaskIndex([dir]).resolve(['t']).tasks;
  assert.equal(t!.dataset_path, 'second');
  assert.equal(t!.description, 'local');
  assert.equal(t!.output_type, 'multiple_choice');
  assert.deepEqual(Object.keys(t!.metadata), ['version']);
  assert.ok(t!.metadata.version instanceof PyFloat);
});

test('a group passes its non-group keys to every child; inline children override', () => {
  const dir = folder({
    'a.yaml': 'task: a\ndataset_path: .\ndoc_to_text: q\nnum_fewshot: 1\n',
    'b.yaml': 'task: b\ndataset_path: .\ndoc_to_text: q\ntag: [tt]\n',
    'g.yaml': 'group: g\ntask:\n  - a\n  - tt\n  - task: a\n    num_fewshot: 9\naggregate_metric_list:\n  - metric: acc\nnum_fewshot: 3\n',
  });
  const { tasks, groups } = new TaskIndex([dir]).resolve(['g']);
  assert.deepEqual(tasks.map((t) => [t.task, t.num_fewshot]), [['a', 3], ['b', 3]]);
  assert.deepEqual(groups[0]!.children, ['a', 'tt', 'a']);
  assert.deepEqual(groups[0]!.aggregate_metric_list, [{ metric: 'acc' }]);
});

test('generation_kwargs: the default dict, until added, temperature cast to float', () => {
  const dir = folder({
    'a.yaml': 'task: a\ndataset_path: .\ndoc_to_text: q\n',
    'b.yaml': 'task: b\ndataset_path: .\ndoc_to_text: q\nfewshot_delimiter: "\\n"\ngeneration_kwargs: {temperature: 0, max_gen_toks: 5}\n',
  });
  const index = new TaskIndex([dir]);
  const a = index.resolve(['a']).tasks[0]!.generation_kwargs!;
  assert.deepEqual(Object.keys(a), ['temperature', 'do_sample', 'max_gen_toks', 'until']);
  assert.deepEqual(a.until, ['\n\n']);
  const b = index.resolve(['b']).tasks[0]!.generation_kwargs!;
  assert.ok(b.temperature instanceof PyFloat);
  assert.deepEqual(b.until, ['\n']);
});

test('a task two requested items hold is refused, as lm-eval 0.4.13 refuses it (TaskManager._check_duplicates)', () => {
  const index = TaskIndex.withShipped();
  // lm_eval --tasks mmlu_stem,mmlu_anatomy: ValueError: Duplicate task 'mmlu_anatomy': found in both 'mmlu_stem' and 'mmlu_anatomy'
  assert.throws(() => index.resolve(['mmlu_stem', 'mmlu_anatomy']), /duplicate task 'mmlu_anatomy': found in both 'mmlu_stem' and 'mmlu_anatomy'/);
  assert.throws(() => index.resolve(['mmlu', 'mmlu_humanities']), /duplicate task 'mmlu_formal_logic': found in both 'mmlu' and 'mmlu_humanities'/);
  // A tag's tasks are each their own source, so a tag and one of its tasks, or a task named twice, run once.
  assert.deepEqual(index.resolve(['ai2_arc', 'arc_easy']).tasks.map((t) => t.task), ['arc_challenge', 'arc_easy']);
  assert.deepEqual(index.resolve(['arc_easy', 'arc_easy']).tasks.map((t) => t.task), ['arc_easy']);
});

test('groups reached through a group are named as lm-eval 0.4.13 names them (an inline one "<group>::<name>")', () => {
  // lm-eval's TaskManager(include_path='test/prompt/qa-tasks').load(['qa_s3_outer'])['groups'] names these four.
  const { groups, tasks } = new TaskIndex([fileURLToPath(new URL('../prompt/qa-tasks', import.meta.url))]).resolve(['qa_s3_outer']);
  assert.deepEqual(groups.map((g) => g.group).sort(), ['qa_s3_inner', 'qa_s3_inner2', 'qa_s3_outer', 'qa_s3_outer::qa_s3_inline_group']);
  assert.deepEqual(tasks.map((t) => t.task), ['qa_s3_leaf_b', 'qa_s3_leaf_c', 'qa_s3_leaf_a', 'qa_s3_leaf_d', 'qa_s3_leaf_e', 'qa_s3_outer::qa_s3_inline']);
});
