import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compareValues } from '../../src/audit/noise.ts';
import { compareField, diffSettings } from '../../src/audit/settingsDiff.ts';
import { buildFalsifier } from '../../src/audit/falsifier.ts';
import { emptyRunProvenance, emptyTaskProvenance, inferred, recorded, same, UNKNOWN, type RunProvenance } from '../../src/store/schema.ts';

test('noise rules: each rule makes two spellings of one value equal, and says so', () => {
  assert.deepEqual(compareValues({ a: 1, b: 2 }, { b: 2, a: 1 }), { equal: true, rules: ['key_order'] });
  assert.deepEqual(compareValues('8', 8), { equal: true, rules: ['number_format'] });
  assert.deepEqual(compareValues(1, 1.0), { equal: true, rules: [] });
  assert.deepEqual(compareValues('1e-05', 0.00001), { equal: true, rules: ['number_format'] });
  assert.deepEqual(
    compareValues('<function doc_to_text at 0x7efcf0c7b1f0>', '<function doc_to_text at 0x7f0011223344>'),
    { equal: true, rules: ['function_address'] },
  );
  assert.equal(compareValues('<function doc_to_text at 0x1>', '<function doc_to_target at 0x1>').equal, false);
  assert.deepEqual(compareValues('/users/adbt150/archive/Mistral-7B-v0.1', '/home/x/models/Mistral-7B-v0.1'), { equal: true, rules: ['absolute_path'] });
  assert.deepEqual(compareValues('results_2024-08-21T03-44-09.494230.json', 'results_2024-08-21T03-41-58.320355.json'), { equal: true, rules: ['timestamp'] });
  assert.deepEqual(compareValues({ date: 1724211836.1, x: 1 }, { date: 1724211704.3, x: 1 }), { equal: true, rules: ['timestamp'] });
  assert.deepEqual(compareValues('torch.float32', 'float32'), { equal: true, rules: ['torch_dtype'] });
  assert.equal(compareValues('torch.float32', 'torch.bfloat16').equal, false);
  assert.deepEqual(compareValues('Qwen/Qwen2.5-7B', 'qwen/qwen2.5-7B', { hubId: true }), { equal: true, rules: ['hub_id_case'] });
  assert.equal(compareValues('Qwen/Qwen2.5-7B', 'qwen/qwen2.5-7B').equal, false, 'case matters outside model ids');
  assert.equal(compareValues(5, 0).equal, false);
  assert.equal(compareValues(null, 0).equal, false);
});

function run(id: string, edit: (r: RunProvenance) => void): RunProvenance {
  const r = emptyRunProvenance({ run_id: id, label: id, source_kind: 'lm-eval', source_format: 'test' });
  r.tasks.t = emptyTaskProvenance();
  edit(r);
  return r;
}

test('verdicts: same, differs, unknown in A/B/both, contradicts', () => {
  assert.equal(compareField('fewshot', 'count', same(recorded(5)), same(recorded(5))).verdict, 'same');
  assert.equal(compareField('fewshot', 'count', same(recorded(5)), same(recorded(0))).verdict, 'differs');
  assert.equal(compareField('fewshot', 'count', same(UNKNOWN), same(recorded(0))).verdict, 'unknown in A');
  assert.equal(compareField('fewshot', 'count', same(recorded(0)), same(UNKNOWN)).verdict, 'unknown in B');
  assert.equal(compareField('fewshot', 'count', same(UNKNOWN), same(UNKNOWN)).verdict, 'unknown in both');
  // Configured 5, but 3 examples reached the model: the record disagrees with itself (on both sides here).
  const self = { configured: recorded(5), used: inferred(3, 'user turns in the prompt') };
  const row = compareField('fewshot', 'count', self, self);
  assert.equal(row.verdict, 'contradicts');
  assert.equal(row.contradiction!.side, 'A and B');
  // A difference between A and B outranks a contradiction.
  assert.equal(compareField('fewshot', 'count', self, same(recorded(0))).verdict, 'differs');
  // Shapes that only look different are not contradictions: n-samples {original, effective} vs a document count.
  const counts = { configured: recorded({ original: 2305, effective: 50 }), used: inferred(50, 'distinct doc_id') };
  assert.equal(compareField('samples', 'document_count', counts, counts).verdict, 'same');
  const metrics = { configured: recorded([{ metric: 'acc', aggregation: 'mean' }]), used: recorded(['acc']) };
  assert.equal(compareField('scoring', 'metrics', metrics, metrics).verdict, 'same');
  const types = { configured: recorded('multiple_choice'), used: inferred(['loglikelihood'], 'request types') };
  assert.equal(compareField('scoring', 'output_type', types, types).verdict, 'same');
  // A group's subtasks (mmlu: its four subgroups) and the leaves it averaged are one structure, not a contradiction;
  // two groups that averaged other leaves still differ.
  const group = (leaves: string[]) => ({ configured: recorded({ subtasks: ['mmlu_stem', 'mmlu_other'] }), used: inferred({ leaves }, 'leaves') });
  const expanded = compareField('repeats', 'group_weighting', group(['mmlu_anatomy', 'mmlu_marketing']), group(['mmlu_anatomy', 'mmlu_marketing']));
  assert.equal(expanded.verdict, 'resolved');
  assert.equal(expanded.contradiction, undefined);
  assert.equal(compareField('repeats', 'group_weighting', group(['mmlu_anatomy']), group(['mmlu_anatomy', 'mmlu_marketing'])).verdict, 'differs');
});

test('settings diff and falsifier over a pair of provenance blocks', () => {
  const a = run('a', (r) => {
    r.model.dtype = same(recorded('torch.bfloat16'));
    r.model.model_id = same(recorded('Qwen/Qwen2.5-7B'));
    r.tasks.t!.fewshot.count = same(recorded(5));
    r.tasks.t!.chat_template.applied = same(recorded(false));
  });
  const b = run('b', (r) => {
    r.model.dtype = same(recorded('torch.float32'));
    r.model.model_id = same(recorded('qwen/qwen2.5-7B'));
    r.tasks.t!.fewshot.count = same(recorded(0));
  });
  const d = diffSettings(a, 't', b, 't');
  // DESIGN.md's twelve disclosure items and the environment.
  assert.equal(d.items.length, 13);
  const model = d.items.find((i) => i.item === 'model')!;
  assert.equal(model.verdict, 'differs');
  assert.equal(model.fields.find((f) => f.field === 'model_id')!.verdict, 'same');
  assert.deepEqual(d.rulesApplied.map((r) => r.name), ['hub_id_case']);
  assert.equal(d.items.find((i) => i.item === 'chat_template')!.verdict, 'unknown in B');
  assert.equal(d.items.find((i) => i.item === 'failures')!.verdict, 'unknown in both');
  const f = buildFalsifier(d, null, null);
  assert.equal(f.status, 'violated');
  assert.equal(f.clauses.find((c) => c.name === 'fewshot')!.status, 'violated');
  assert.equal(f.clauses.find((c) => c.name === 'precision')!.status, 'violated');
  assert.equal(f.clauses.find((c) => c.name === 'chat_template')!.status, 'unknown');
  assert.equal(
    f.sentence,
    'This comparison is void if the two runs used different task versions or datasets, few-shot counts, chat-template settings, system instructions, extraction rules or metrics, generation settings, document sets, prompt bytes, numeric precisions (dtype), or harness versions or commits; ' +
      'here the few-shot count differs (5 vs 0); the dtype differs ("torch.bfloat16" vs "torch.float32"); ' +
      'and the records cannot tell whether the task versions or datasets, chat-template settings, system instructions, extraction rules or metrics, generation settings, document sets, prompt bytes, or harness versions or commits agree.',
  );
});

test('the falsifier sentence agrees its verb with plural field names (the metrics differ, the dtype differs)', () => {
  const a = run('a', (r) => {
    r.model.dtype = same(recorded('torch.bfloat16'));
    r.tasks.t!.scoring.metrics = same(recorded(['acc']));
    r.tasks.t!.generation.stop_sequences = same(recorded(['\n']));
  });
  const b = run('b', (r) => {
    r.model.dtype = same(recorded('torch.float32'));
    r.tasks.t!.scoring.metrics = same(recorded(['exact_match']));
    r.tasks.t!.generation.stop_sequences = same(recorded(['\n\n']));
  });
  const sentence = buildFalsifier(diffSettings(a, 't', b, 't'), null, null).sentence;
  assert.match(sentence, /the metrics differ \(\["acc"\] vs \["exact_match"\]\)/);
  assert.match(sentence, /the stop sequences differ \(/);
  assert.match(sentence, /the dtype differs \(/);
  assert.doesNotMatch(sentence, /(metrics|sequences|settings|\)) differs/);
});
