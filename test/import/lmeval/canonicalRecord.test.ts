/**
 * The reading of a canonical samples line from its text (canonicalRecord.ts) against the
 * reference reading (sampleLine.ts → sampleRows.ts, checks.ts): every record of every lm-eval
 * samples file in the fixtures, and variants of them that reach each rule (other spellings of
 * values, fields missing or of another kind, keys written twice, text that needs escaping),
 * must give the same piece result byte for byte: the same rows, checks, facts and errors.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import type { ChunkJob, ChunkResult } from '../../../src/import/lmeval/chunkResult.ts';
import { ChunkProcessor } from '../../../src/import/lmeval/samplesChunk.ts';
import type { RequestType } from '../../../src/import/lmeval/sampleRows.ts';
import { parseOrdered, pyDumps, type PyNode } from '../../../src/py/orderedJson.ts';
import { externalFixture, fixturePath } from '../../helpers/fixtures.ts';

type Obj = Extract<PyNode, { k: 'obj' }>;

const FILES = [
  fixturePath('lmeval/pr3032-truthfulqa-gen/samples_truthfulqa_gen_2025-05-31T14-30-51.983293.jsonl'),
  fixturePath('lmeval/pr2236-asdiv/asdiv/meta-llama__Meta-Llama-3-8B-Instruct/samples_asdiv_2024-08-21T03-44-09.494230.jsonl'),
  externalFixture('lm-evaluation-harness/pr3144-tgpred/samples_polymer_tg_prediction_2025-06-30T19-40-09.461247.jsonl'),
  externalFixture('lm-evaluation-harness/pr3032-truthfulqa-gen/samples_truthfulqa_gen_2025-05-31T13-51-32.759677.jsonl'),
  ...['gpt2-tiny/plain', 'qwen3-tiny/plain', 'qwen3-tiny/chat'].flatMap((run) =>
    ['arc_easy', 'gsm8k', 'lambada_openai', 'mmlu_abstract_algebra'].map((task) => fixturePath(`models/lmeval-reference/${run}/${samplesName(run, task)}`))),
  fixturePath('models/lmeval-reference/gpt2-tiny/extra/samples_lambada_rolling_2026-12-02T03-26-09.906172.jsonl'),
  fixturePath('models/lmeval-reference/gpt2-tiny/extra/samples_lambada_stops_2026-12-02T03-26-09.906172.jsonl'),
];

function samplesName(run: string, task: string): string {
  const stamp = { 'gpt2-tiny/plain': '2026-12-02T01-45-53.923896', 'qwen3-tiny/plain': '2026-12-02T01-51-33.863803', 'qwen3-tiny/chat': '2026-12-02T01-57-08.844863' }[run]!;
  return `samples_${task}_${stamp}.jsonl`;
}

function read(file: string): string[] {
  const bytes = readFileSync(file);
  return (file.endsWith('.gz') ? gunzipSync(bytes) : bytes).toString('utf8').split('\n').filter((l) => l !== '');
}

/** Both readings of `lines` (one piece); the canonical one must have read `canonical` of them from their text. */
function both(lines: readonly string[], requestType: RequestType | null, targetDelimiter: string | null, skipBad = false): { canonical: ChunkResult; reference: ChunkResult } {
  const bytes = Buffer.from(`${lines.join('\n')}\n`);
  const job: ChunkJob = { bytes, firstLine: 1, lines: lines.length, file: 'samples.jsonl', task: 'task', requestType, targetDelimiter, skipBad };
  const canonical = new ChunkProcessor().process(job);
  const reference = new ChunkProcessor().process({ ...job, bytes: Buffer.from(bytes), referenceOnly: true });
  assert.equal(reference.canonicalRecords, 0);
  return { canonical, reference };
}

function same(lines: readonly string[], requestType: RequestType | null, targetDelimiter: string | null, label: string, skipBad = false): ChunkResult {
  const { canonical, reference } = both(lines, requestType, targetDelimiter, skipBad);
  // `spent` is memory handed back to be written again: what it holds is not the result.
  assert.deepEqual({ ...canonical, canonicalRecords: 0, spent: [] }, { ...reference, spent: [] }, label);
  return canonical;
}

test('every record lm-eval wrote in the fixtures reads the same from its text as by the reference reading, and (generation and log-likelihood) from its text', () => {
  let records = 0;
  let fromText = 0;
  for (const file of FILES) {
    const lines = read(file);
    // The request type as a config says it, and as the first record says it; with and without a target delimiter.
    for (const delimiter of [null, ' ']) {
      const r = same(lines, null, delimiter, `${file} (delimiter ${JSON.stringify(delimiter)})`);
      records += r.records;
      fromText += r.canonicalRecords;
      if (r.requestType === 'generate_until' || r.requestType === 'loglikelihood') assert.equal(r.canonicalRecords, r.records - 1, `${file}: all but the first record (which says the request type) from the text (${r.requestType})`);
      same(lines, r.requestType, delimiter, `${file} (request type given)`);
    }
  }
  // 18 files of 1,251 records (as `grep -c .` counts their lines), each read twice; from their text, all but each
  // file's first (without a config, the first record says the request type: lambada_rolling's text responses say generation).
  assert.equal(records, 2 * 1251);
  assert.equal(fromText, 2 * (1251 - 18));
});

/** A fixture record as its exact node, to vary and write back with pyDumps (which writes json.dumps text). */
function recordOf(file: string, index = 0): Obj {
  return parseOrdered(read(file)[index]!) as Obj;
}

function withMember(node: Obj, key: string, value: PyNode | undefined): Obj {
  const entries = node.entries.filter(([k]) => k !== key);
  if (value === undefined) return { k: 'obj', entries };
  const at = node.entries.findIndex(([k]) => k === key);
  entries.splice(at < 0 ? entries.length : at, 0, [key, value]);
  return { k: 'obj', entries };
}

const str = (v: string): PyNode => ({ k: 'str', v });
const num = (raw: string): PyNode => ({ k: 'num', raw });
const arr = (...items: PyNode[]): PyNode => ({ k: 'arr', items });
const obj = (...entries: [string, PyNode][]): PyNode => ({ k: 'obj', entries });

test('variants of generation and log-likelihood records read the same by both readings: other spellings, kinds and orders, missing fields, repeated keys, escapes', () => {
  const gen = recordOf(fixturePath('lmeval/pr3032-truthfulqa-gen/samples_truthfulqa_gen_2025-05-31T14-30-51.983293.jsonl'));
  const mc = recordOf(fixturePath('models/lmeval-reference/gpt2-tiny/plain/samples_arc_easy_2026-12-02T01-45-53.923896.jsonl'));
  const metricsOf = (n: Obj) => (n.entries.find(([k]) => k === 'metrics')![1] as unknown as { items: { v: string }[] }).items.map((i) => i.v);
  const genMetric = metricsOf(gen)[0]!;
  const mcMetric = metricsOf(mc)[0]!;
  const variants: [string, Obj, RequestType][] = [];
  const add = (label: string, base: Obj, type: RequestType, edit: (n: Obj) => Obj) => variants.push([label, edit(base), type]);
  for (const [base, type, metric] of [[gen, 'generate_until', genMetric], [mc, 'loglikelihood', mcMetric]] as const) {
    add('as written', base, type, (n) => n);
    for (const field of ['doc', 'target', 'arguments', 'filtered_resps', 'filter', 'metrics', 'doc_hash', 'prompt_hash', 'target_hash', 'doc_id', 'resps']) add(`no ${field}`, base, type, (n) => withMember(n, field, undefined));
    add('doc_id a string', base, type, (n) => withMember(n, 'doc_id', str('q-7')));
    add('doc_id negative', base, type, (n) => withMember(n, 'doc_id', num('-3')));
    add('doc_id a float', base, type, (n) => withMember(n, 'doc_id', num('1.5')));
    add('doc_id NaN', base, type, (n) => withMember(n, 'doc_id', num('NaN')));
    add('doc_id a list', base, type, (n) => withMember(n, 'doc_id', arr(num('1'))));
    add('a hash in upper case', base, type, (n) => withMember(n, 'doc_hash', str('A'.repeat(64))));
    add('a hash too short', base, type, (n) => withMember(n, 'prompt_hash', str('a'.repeat(63))));
    add('a hash that disagrees', base, type, (n) => withMember(n, 'target_hash', str('0'.repeat(64))));
    add('a doc hash that disagrees', base, type, (n) => withMember(n, 'doc_hash', str('f'.repeat(64))));
    // A recorded hash that is not 64 hex digits, with and without the value it is the hash of.
    for (const [field, of] of [['doc_hash', 'doc'], ['prompt_hash', 'arguments'], ['target_hash', 'target']] as const) {
      for (const [label, bad] of [['in upper case', 'AB'.repeat(32)], ['not hex', 'g'.repeat(64)], ['escaped', `${'a'.repeat(62)}\n`]] as const) {
        add(`${field} ${label}`, base, type, (n) => withMember(n, field, str(bad)));
        add(`${field} ${label}, no ${of}`, base, type, (n) => withMember(withMember(n, field, str(bad)), of, undefined));
      }
    }
    for (const [label, value] of [['a number', num('3')], ['a float', num('2.50')], ['a list', arr(str('a'), num('1'))], ['null', { k: 'null' } as PyNode], ['NaN', num('NaN')], ['-Infinity', num('-Infinity')], ['true', { k: 'bool', v: true } as PyNode], ['escaped text', str('a "b"\n\\ é 😀 \u0001 \u2028')]] as const) {
      add(`target ${label}`, base, type, (n) => withMember(n, 'target', value));
    }
    for (const [label, value] of [['"True"', str('True')], ['"False"', str('False')], ['"0.5"', str('0.5')], ['"nan"', str('nan')], ['"x"', str('x')], ['true', { k: 'bool', v: true } as PyNode], ['false', { k: 'bool', v: false } as PyNode], ['null', { k: 'null' } as PyNode], ['a list', arr(num('1'), num('2'))], ['an object', obj(['a', num('1')])], ['NaN', num('NaN')], ['-0.0', num('-0.0')], ['1e400', num('1e400')], ['1E5', num('1E5')], ['1.50', num('1.50')], ['12345678901234567890', num('12345678901234567890')]] as const) {
      add(`metric value ${label}`, base, type, (n) => withMember(n, metric, value));
    }
    add('an extra field (text)', base, type, (n) => withMember(n, 'verdict', str('ok')));
    add('an extra field (number)', base, type, (n) => withMember(n, 'count', num('7')));
    add('an extra field (object)', base, type, (n) => withMember(n, 'extra', obj(['x', arr()])));
    add('metric values out of the list order', base, type, (n) => ({ k: 'obj', entries: [...n.entries.filter(([k]) => k !== metric), n.entries.find(([k]) => k === metric)!] }));
    add('a listed metric without a value', base, type, (n) => withMember(n, metric, undefined));
    add('a metric listed twice', base, type, (n) => withMember(n, 'metrics', arr(str(metric), str(metric))));
    add('a metric list that is not text', base, type, (n) => withMember(n, 'metrics', arr(num('1'))));
    add('filter not text', base, type, (n) => withMember(n, 'filter', num('1')));
    // lm-eval writes filtered_resps as a list (a value per request): anything else is refused, by both readings alike.
    for (const [label, value] of [['a number', num('5')], ['null', { k: 'null' } as PyNode], ['text', str('x')], ['an object', obj(['a', num('1')])]] as const) {
      add(`filtered_resps ${label}`, base, type, (n) => withMember(n, 'filtered_resps', value));
    }
    add('filter escaped', base, type, (n) => withMember(n, 'filter', str('strict\tmatch "x"')));
    add('document with escapes and nesting', base, type, (n) => withMember(n, 'doc', obj(['q', str('é "x"\n\u0000 😀')], ['n', arr(num('1.0'), num('-0'), { k: 'null' }, obj())], ['0', str('integer key')])));
    add('document a list', base, type, (n) => withMember(n, 'doc', arr(str('a'))));
    add('arguments a list', base, type, (n) => withMember(n, 'arguments', arr(arr(str('ctx'), str(' c')))));
    add('arguments keyed out of order', base, type, (n) => withMember(n, 'arguments', obj(['gen_args_1', obj(['arg_0', str('x')])])));
    add('a chat prompt', base, type, (n) => withMember(n, 'arguments', obj(['gen_args_0', obj(['arg_0', arr(str('[{"role": "user"}]'))], ['arg_1', obj(['until', arr(str('\n'))])])])));
    add('a prompt that is not text', base, type, (n) => withMember(n, 'arguments', obj(['gen_args_0', obj(['arg_0', num('1')])])));
    add('three arguments', base, type, (n) => withMember(n, 'arguments', obj(['gen_args_0', obj(['arg_0', str('Q:\n"x"')], ['arg_1', str(' A')], ['arg_2', num('3')])])));
    add('no arguments in a request', base, type, (n) => withMember(n, 'arguments', obj(['gen_args_0', obj()])));
    // A prompt's value is hashed from an ASCII line's bytes (unescaped there), else from its text.
    const everyEscape = `${Array.from({ length: 32 }, (_, i) => String.fromCharCode(i)).join('')}"\\/ \u007f`;
    add('a prompt with every escape (ASCII)', base, type, (n) => withMember(n, 'arguments', obj(['gen_args_0', obj(['arg_0', str(everyEscape)], ['arg_1', str(' A')])])));
    add('a prompt with every escape (not ASCII)', base, type, (n) => withMember(n, 'arguments', obj(['gen_args_0', obj(['arg_0', str(`${everyEscape} é 😀`)], ['arg_1', str(' A')])])));
    add('a prompt with every escape and its hash', base, type, (n) => withMember(withMember(n, 'prompt_hash', str(createHash('sha256').update(everyEscape).digest('hex'))), 'arguments', obj(['gen_args_0', obj(['arg_0', str(everyEscape)])])));
    add('resps empty', base, type, (n) => withMember(n, 'resps', arr()));
    add('resps with no repeat', base, type, (n) => withMember(n, 'resps', arr(arr())));
    add('resps not a list of lists', base, type, (n) => withMember(n, 'resps', arr(str('x'))));
    add('duplicate filter key', base, type, (n) => ({ k: 'obj', entries: [...n.entries, ['filter', str('other')]] }));
    add('duplicate metric key', base, type, (n) => ({ k: 'obj', entries: [...n.entries, [metric, num('0')]] }));
  }
  add('generation: two repeats, one empty', gen, 'generate_until', (n) => withMember(n, 'resps', arr(arr(str('a "b"\n'), str('')))));
  add('generation: a response that is not text', gen, 'generate_until', (n) => withMember(n, 'resps', arr(arr(num('1')))));
  add('generation: two requests', gen, 'generate_until', (n) => withMember(withMember(n, 'resps', arr(arr(str('x')), arr(str('y')))), 'arguments', obj(['gen_args_0', obj(['arg_0', str('a')])], ['gen_args_1', obj(['arg_0', str('b')], ['arg_1', obj(['max_gen_toks', num('5')])])])));
  for (const [label, pair] of [['numbers', arr(num('-1.5'), { k: 'bool', v: true })], ['NaN', arr(num('NaN'), { k: 'bool', v: false })], ['"nan" text', arr(str('nan'), str('True'))], ['"inf"', arr(str('-inf'), str('False'))], ['bad log-prob text', arr(str('abc'), str('True'))], ['bad is_greedy', arr(str('-1.0'), str('yes'))], ['three items', arr(str('-1.0'), str('True'), str('x'))], ['a number alone', num('-2.5')], ['nested', arr(arr(num('1')), str('True'))]] as const) {
    add(`log-likelihood pair ${label}`, mc, 'loglikelihood', (n) => withMember(n, 'resps', arr(arr(pair))));
  }
  add('log-likelihood: the same continuation four times (no choice list)', mc, 'loglikelihood', (n) => withMember(n, 'arguments', obj(...[0, 1, 2, 3].map((i): [string, PyNode] => [`gen_args_${i}`, obj(['arg_0', str(`ctx ${i}`)], ['arg_1', str(' same')])]))));
  // A prompt written as the request before wrote its own is that request's text (read once); one that differs, or the
  // same text as a chat list after a plain prompt (or the reverse), is read on its own.
  add('log-likelihood: prompts shared, then one differs by its last character', mc, 'loglikelihood', (n) => withMember(n, 'arguments', obj(...['Q:\n"x" é', 'Q:\n"x" é', 'Q:\n"x" è', 'Q:\n"x" è'].map((c, i): [string, PyNode] => [`gen_args_${i}`, obj(['arg_0', str(c)], ['arg_1', str(` c${i}`)])]))));
  add('log-likelihood: the same prompt text as a chat list, then plain, then a chat list', mc, 'loglikelihood', (n) => withMember(n, 'arguments', obj(...[true, false, true].map((chat, i): [string, PyNode] => [`gen_args_${i}`, obj(['arg_0', chat ? arr(str('[{"role": "user"}]')) : str('[{"role": "user"}]')], ['arg_1', str(` c${i}`)])]))));
  add('log-likelihood: continuations without the delimiter', mc, 'loglikelihood', (n) => withMember(n, 'arguments', obj(...[0, 1, 2, 3].map((i): [string, PyNode] => [`gen_args_${i}`, obj(['arg_0', str('Q')], ['arg_1', str(`c${i}\n`)])]))));

  let fromText = 0;
  for (const [label, node, type] of variants) {
    const line = pyDumps(node);
    // Alone (its own errors), and between two good records (what it does to the rows around it; --skip-bad too).
    same([line], type, ' ', label);
    same([line], null, null, `${label} (request type from the record)`);
    const good = pyDumps(type === 'generate_until' ? gen : mc);
    fromText += same([good, line, withMemberLine(good)], type, ' ', `${label} (between)`).canonicalRecords;
    same([good, line, withMemberLine(good)], type, ' ', `${label} (between, --skip-bad)`, true);
  }
  assert.ok(variants.length > 120, `${variants.length} variants`);
  assert.ok(fromText > variants.length, 'the good records around the variants are read from their text');

  // A line all ASCII whose strings hold \u escapes of characters past U+007F (json.dumps with ensure_ascii, not lm-eval's
  // way): the rows made of their decoded text are not ASCII, though the line is, so they must not be written as ASCII.
  const escaped = (line: string) => line.replace(/[^\u0000-\u007f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  const unicode = 'é 中文 😀 \u2028';
  for (const [label, node, type] of [
    ['generation', withMember(withMember(withMember(gen, 'target', str(unicode)), 'filter', str(`f ${unicode}`)), 'resps', arr(arr(str(`an answer ${unicode}`)))), 'generate_until'],
    ['log-likelihood', withMember(withMember(mc, 'target', str(unicode)), 'arguments', obj(...[0, 1].map((i): [string, PyNode] => [`gen_args_${i}`, obj(['arg_0', str(`Q ${unicode}`)], ['arg_1', str(` ${unicode} ${i}`)])]))), 'loglikelihood'],
  ] as const) {
    const line = escaped(pyDumps(node));
    assert.ok(/^[\u0000-\u007f]*$/.test(line) && line.includes('\\u00e9'), label);
    same([line], type, ' ', `${label}: \\u escapes in an ASCII line`);
    same([pyDumps(type === 'generate_until' ? gen : mc), line], type, ' ', `${label}: \\u escapes in an ASCII line, after a good record`);
  }
});

/** A second good record: the same, with another doc_id. */
function withMemberLine(line: string): string {
  return pyDumps(withMember(parseOrdered(line) as Obj, 'doc_id', num('99999')));
}
