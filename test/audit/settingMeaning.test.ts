/**
 * Issue 28 §3 and issue 25 §6: settings compared by meaning, settled by the items' own hashes, and a clause
 * that rests on something neither run recorded is unknown. The spellings are the ones lm-eval 0.4.13 and
 * `lmaudit run` write for the same configuration (fixtures/models/lmeval-reference, gpt2-tiny/plain).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compareField, itemVerdict, type FieldRow, type SettingsDiff, type SettingsItem } from '../../src/audit/settingsDiff.ts';
import { settleByEvidence, type ItemEvidence } from '../../src/audit/settledByEvidence.ts';
import { buildFalsifier, evaluateClause, DEFAULT_CLAUSES } from '../../src/audit/falsifier.ts';
import { recorded, same, UNKNOWN, type Setting } from '../../src/store/schema.ts';

const PER_RUN = new Set(['harness', 'model', 'environment', 'records']);

/** A settings diff from 'item.field' → [A, B] settings (undefined: not recorded). */
function diffOf(fields: Record<string, [Setting | undefined, Setting | undefined]>): SettingsDiff {
  const byItem = new Map<string, FieldRow[]>();
  for (const [path, [a, b]] of Object.entries(fields)) {
    const [item, field] = path.split('.') as [SettingsItem, string];
    byItem.set(item, [...(byItem.get(item) ?? []), compareField(item, field, a, b)]);
  }
  return {
    taskA: 't',
    taskB: 't',
    rulesApplied: [],
    items: [...byItem].map(([item, rows]) => ({
      item: item as SettingsItem,
      task: PER_RUN.has(item) ? null : 't',
      verdict: itemVerdict(rows),
      fields: rows,
      knownInA: rows.filter((r) => r.a.status !== 'unknown').length,
      knownInB: rows.filter((r) => r.b.status !== 'unknown').length,
    })),
  };
}
const r = (v: unknown) => same(recorded(v));
const row = (d: SettingsDiff, path: string) => {
  const [item, field] = path.split('.');
  return d.items.find((i) => i.item === item)!.fields.find((f) => f.field === field)!;
};
const clause = (d: SettingsDiff, name: string, evidence: ItemEvidence | null) =>
  evaluateClause(DEFAULT_CLAUSES.find((c) => c.name === name)!, d, null, evidence === null ? null : { shared: evidence.shared, onlyA: evidence.onlyA, onlyB: evidence.onlyB, promptsDiffer: evidence.shared - evidence.promptsEqual, evidence });
const ALL_EQUAL: ItemEvidence = { shared: 20, onlyA: 0, onlyB: 0, docHashesEqual: 20, promptsEqual: 20, targetsEqual: 20 };

test('spellings of one setting compare equal by meaning, shown as recorded, with the reason', () => {
  const d = diffOf({
    'chat_template.fewshot_as_multiturn': [r(null), r(false)],
    'generation.settings': [r({ cli: {} }), r(null)],
    'model.dtype': [r('torch.float32'), r('fp32')],
    'repeats.aggregation': [r({ per_metric: { acc: 'mean' }, bootstrap_iters: 100000 }), r({ per_metric: { acc: 'mean' }, bootstrap_iters: 100000, arithmetic: 'CPython 3.11 sum (left fold)' })],
  });
  for (const path of ['chat_template.fewshot_as_multiturn', 'generation.settings', 'model.dtype', 'repeats.aggregation']) {
    assert.equal(row(d, path).verdict, 'same', path);
    assert.ok(row(d, path).meaning, `${path}: the reason is given`);
  }
  // The spelling stays as recorded.
  assert.deepEqual([row(d, 'model.dtype').a.value, row(d, 'model.dtype').b.value], ['torch.float32', 'fp32']);
  assert.match(row(d, 'model.dtype').meaning!, /a dtype is its precision \("torch\.float32" is float32\)/);
  // Other meanings still differ.
  const other = diffOf({
    'chat_template.fewshot_as_multiturn': [r(true), r(false)],
    'generation.settings': [r({ cli: { max_gen_toks: 32 } }), r(null)],
    'model.dtype': [r('torch.float16'), r('fp32')],
    'repeats.aggregation': [r({ per_metric: { acc: 'mean' } }), r({ per_metric: { acc: 'median' }, arithmetic: 'x' })],
  });
  for (const f of other.items.flatMap((i) => i.fields)) assert.equal(f.verdict, 'differs', `${f.item}.${f.field}`);
});

test('a stop list one side records as requested and the other as its backend applied it is the same request', () => {
  // lm-eval's samples record the request's `until`; lmaudit records what its backend applied (the EOS string added).
  const d = diffOf({
    'generation.stop_sequences': [r(['Question:', '</s>', '<|im_end|>']), { configured: recorded(['Question:', '</s>', '<|im_end|>']), used: recorded(['Question:', '</s>', '<|im_end|>', '<|endoftext|>']) }],
  });
  const f = row(d, 'generation.stop_sequences');
  assert.equal(f.verdict, 'resolved');
  assert.match(f.resolved!.detail, /the harness added \["<\|endoftext\|>"\]; A records what it asked for/);
  const asked = diffOf({ 'generation.stop_sequences': [r(['\n\n']), { configured: recorded(['Question:']), used: recorded(['Question:', '<|endoftext|>']) }] });
  assert.equal(row(asked, 'generation.stop_sequences').verdict, 'differs');
});

test('the documents\' hashes settle where the dataset came from; the clause names the evidence', () => {
  // lm-eval records no split for a local json copy, lmaudit none either: the hashes settle it too.
  const fields = { 'task.version': [r(1), r(1)], 'task.dataset_path': [r('json'), r('allenai/ai2_arc')], 'task.dataset_name': [undefined, r('ARC-Easy')], 'task.dataset_split': [undefined, undefined] } as Record<string, [Setting | undefined, Setting | undefined]>;
  const d = diffOf(fields);
  settleByEvidence(d, ALL_EQUAL);
  assert.equal(row(d, 'task.dataset_path').verdict, 'same in effect');
  assert.equal(row(d, 'task.dataset_path').evidence, 'same documents (20 of 20 doc hashes equal)');
  const c = clause(d, 'task', ALL_EQUAL);
  assert.deepEqual([c.status, c.finding], ['holds', 'agree (the dataset path, the dataset name, the dataset split: same documents (20 of 20 doc hashes equal))']);
  // One document's hash differs: nothing is settled, the path differs.
  const d2 = diffOf(fields);
  settleByEvidence(d2, { ...ALL_EQUAL, docHashesEqual: 19 });
  assert.equal(row(d2, 'task.dataset_path').verdict, 'differs');
  assert.equal(clause(d2, 'task', { ...ALL_EQUAL, docHashesEqual: 19 }).status, 'violated');
});

test('differing generation kwargs are shown by the keys that differ, not cut inside their shared prefix', () => {
  // Two sampled runs at seeds 7 and 8 (the kwargs lmaudit run records as used): the finding was
  // '({"until":["Q:","\\n\\n"],"do_sample":true… vs {"until":["Q:","\\n\\n"],"do_sample":true…)', the seed cut off.
  const used = (seed: number) => r({ until: ['Q:', '\n\n'], do_sample: true, temperature: 0.2, seed, max_gen_toks: 16 });
  const d = diffOf({ 'scoring.output_type': [r(['generate_until']), r(['generate_until'])], 'generation.settings': [used(7), used(8)] });
  const c = clause(d, 'generation', null);
  assert.equal(c.status, 'violated');
  assert.equal(c.finding, 'the generation settings differ ({"seed":7} vs {"seed":8})');
  // A key on one side only is shown on that side.
  const one = diffOf({ 'generation.settings': [r({ until: [], temperature: 0.7 }), r({ until: [], temperature: 0.7, top_k: 20 })] });
  assert.equal(clause(one, 'generation', null).finding, 'the generation settings differ ({} vs {"top_k":20})');
});

test('generation settings cannot change a task that generates nothing', () => {
  const fields = { 'scoring.output_type': [r(['loglikelihood']), r(['loglikelihood'])], 'generation.settings': [r({ cli: { max_gen_toks: 32 } }), r(null)], 'generation.stop_sequences': [undefined, r(null)], 'generation.max_tokens': [undefined, r(null)] } as Record<string, [Setting | undefined, Setting | undefined]>;
  const d = diffOf(fields);
  settleByEvidence(d, null);
  assert.equal(row(d, 'generation.settings').verdict, 'same in effect');
  assert.match(row(d, 'generation.settings').evidence!, /the task generates nothing \(requests: loglikelihood\)/);
  assert.equal(clause(d, 'generation', null).status, 'holds');
  const gen = diffOf({ ...fields, 'scoring.output_type': [r(['generate_until']), r(['generate_until'])] });
  settleByEvidence(gen, ALL_EQUAL);
  assert.equal(row(gen, 'generation.settings').verdict, 'differs');
});

test('two harnesses whose documents, prompts and targets hash equal are comparable, the difference stated; two commits of one harness are not', () => {
  const harnesses = diffOf({ 'harness.name': [r('lm-evaluation-harness'), r('lmaudit')], 'harness.version': [r('0.4.13'), r('0.1.0')], 'harness.commit': [r(null), undefined] });
  const c = clause(harnesses, 'harness', ALL_EQUAL);
  assert.equal(c.status, 'holds');
  assert.equal(
    c.finding,
    'agree (different harnesses ("lm-evaluation-harness" vs "lmaudit"): the harness version differs ("0.4.13" vs "0.1.0"); the harness commit unknown in B; stated, not counted: documents, prompts and targets equal on every shared item (20 doc hashes, 20 prompts, 20 targets of 20))',
  );
  assert.equal(clause(harnesses, 'harness', { ...ALL_EQUAL, targetsEqual: 19 }).status, 'violated');
  const commits = diffOf({ 'harness.name': [r('lm-evaluation-harness'), r('lm-evaluation-harness')], 'harness.version': [r('0.4.13'), r('0.4.13')], 'harness.commit': [r('59170e85'), r('1234abcd')] });
  assert.equal(clause(commits, 'harness', ALL_EQUAL).status, 'violated');
});

test('issue 25: a clause resting on a field neither run recorded is unknown, never holds', () => {
  // The Mistral winogrande pair: the task description and the harness commit are recorded by neither write_out file.
  const d = diffOf({ 'system.instruction': [r(null), r(null)], 'system.description': [{ configured: UNKNOWN, used: UNKNOWN }, undefined], 'harness.version': [r('0.4.0'), r('0.4.0')] });
  const system = clause(d, 'system', null);
  assert.deepEqual([system.status, system.finding], ['unknown', 'the task description unknown in both']);
  const harness = clause(d, 'harness', null);
  assert.deepEqual([harness.status, harness.finding], ['unknown', 'the harness commit unknown in both']);
  assert.equal(buildFalsifier(d, null, null).status, 'unknown');
  // Equal prompt bytes on the same documents settle what shapes the prompt, the description included.
  settleByEvidence(d, ALL_EQUAL);
  assert.equal(clause(d, 'system', ALL_EQUAL).status, 'holds');
});

test('a metric listed without an aggregation has its registered default (lm-eval writes null for a rolling task\'s)', () => {
  // gpt2-tiny/extra lambada_rolling: lm-eval's metric_list gives no aggregation; lmaudit records the defaults.
  const d = diffOf({
    'repeats.aggregation': [
      r({ per_metric: { word_perplexity: null, byte_perplexity: null, bits_per_byte: null }, bootstrap_iters: 100000 }),
      r({ per_metric: { word_perplexity: 'weighted_perplexity', byte_perplexity: 'weighted_perplexity', bits_per_byte: 'bits_per_byte' }, bootstrap_iters: 100000, arithmetic: 'CPython 3.11 sum (left fold)' }),
    ],
  });
  assert.equal(row(d, 'repeats.aggregation').verdict, 'same');
  assert.match(row(d, 'repeats.aggregation').meaning!, /registered default/);
  const other = diffOf({ 'repeats.aggregation': [r({ per_metric: { word_perplexity: null } }), r({ per_metric: { word_perplexity: 'mean' } })] });
  assert.equal(row(other, 'repeats.aggregation').verdict, 'differs');
});

test('a rolling request is the same bytes whether stored as the context (lm-eval) or as the continuation after an empty context (lmaudit)', async () => {
  const { promptChanged } = await import('../../src/audit/itemDifferences.ts');
  const { createHash } = await import('node:crypto');
  const md5 = (s: string) => createHash('md5').update(s).digest('hex');
  const text = 'In my palm is a clear stone, and inside it is a small ivory statuette.';
  const doc = (requests: { context: string | null; continuation: string | null }[]) => ({ docId: '0', docHash: 'h', content: null, texts: [], prompt: null, promptHash: null, requests, target: null, responses: [], scores: new Map() });
  assert.equal(promptChanged(doc([{ context: md5(text), continuation: null }]), doc([{ context: md5(''), continuation: text }])), false);
  assert.equal(promptChanged(doc([{ context: md5(text), continuation: null }]), doc([{ context: md5(''), continuation: `${text} ` }])), true);
  // A loglikelihood request is its context and continuation, not their concatenation.
  assert.equal(promptChanged(doc([{ context: md5('Q:'), continuation: ' A' }]), doc([{ context: md5(''), continuation: 'Q: A' }])), true);
});
