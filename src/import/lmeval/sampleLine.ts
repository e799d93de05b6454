/**
 * One lm-eval samples record, read into a shape common to every version: the
 * requests (from `arguments` in any of its shapes), the raw responses per request and
 * repeat, the filtered value, the filter name and the per-sample metric values.
 * A record that breaks the format fails with file, line and field named.
 */
import { BadInputError } from '../../errors.ts';
import { readUtf8File } from '../../util/utf8.ts';
import { readLines } from '../../util/lines.ts';
import type { FileProbe, ImportOptions, SkippedRecord } from '../types.ts';
import { member, parseOrdered, parseOrderedArray, pyDumps, pyStr, type PyNode } from '../../py/orderedJson.ts';

export interface RequestArgs {
  /** arg_0: the context (for chat models the messages JSON string; for rolling requests the text). */
  context: string | null;
  /** arg_1 when it is text: the continuation scored. */
  continuation: string | null;
  /** arg_1 when it is an object: the generation settings sent. */
  genKwargs: PyNode | null;
  /** How arguments were shaped, for provenance ('flat-list' | 'list-of-lists' | 'gen_args' | 'chat-string'). */
  shape: string;
}

export interface SampleLine {
  file: string;
  line: number;
  docId: string;
  doc: PyNode | null;
  target: PyNode | null;
  /** One entry per request the record has arguments for (the flat-list form records only request 0). */
  requests: RequestArgs[];
  /** resps: per request, the list of repeats (each a PyNode as recorded). */
  resps: PyNode[][];
  filteredResps: PyNode | null;
  filter: string | null;
  metricsList: string[] | null;
  /** Per-sample metric values in record order. */
  metricValues: [string, PyNode][];
  /** Fields that are neither format fields nor metrics (e.g. truthfulqa's `hallucination`). */
  extras: [string, PyNode][];
  docHash: string | null;
  promptHash: string | null;
  targetHash: string | null;
}

const FORMAT_FIELDS = new Set([
  'doc_id', 'doc', 'target', 'arguments', 'resps', 'filtered_resps', 'filter', 'metrics', 'doc_hash', 'prompt_hash', 'target_hash',
]);

/**
 * Hands every record of a samples file (JSONL, or one JSON array as 0.4.0–0.4.2 wrote it)
 * to `each`, in file order, waiting for the promise it returns before the next (that is how
 * a writer holds the reader back). JSONL is read line by line and no record outlives its
 * turn: only an array file is held whole (it is one JSON value).
 */
export async function forEachSampleLine(
  probe: FileProbe,
  options: ImportOptions,
  skipped: SkippedRecord[],
  each: (line: SampleLine) => void | Promise<void>,
): Promise<void> {
  const file = probe.path;
  const take = (node: PyNode, line: number): void | Promise<void> => {
    let sample: SampleLine;
    try {
      sample = toSampleLine(node, file, line);
    } catch (error) {
      if (!options.skipBad || !(error instanceof BadInputError)) throw error;
      skipped.push({ file, line, field: error.where.field, reason: error.detail });
      return;
    }
    return each(sample);
  };
  if (probe.head.trimStart().startsWith('[')) {
    const text = await readUtf8File(file);
    for (const { node, line } of parseOrderedArray(text, { file })) await take(node, line);
    return;
  }
  for await (const { line, text: lineText } of readLines(file, options.skipBad ? (line, reason) => skipped.push({ file, line, reason }) : undefined)) {
    if (lineText.trim() === '') continue;
    let node: PyNode;
    try {
      node = parseOrdered(lineText, { file, line });
    } catch (error) {
      if (!options.skipBad) throw error;
      skipped.push({ file, line, reason: (error as BadInputError).detail });
      continue;
    }
    // `each` returns a promise only when the reading must wait (a full part being written): no await a record otherwise.
    const waiting = take(node, line);
    if (waiting !== undefined) await waiting;
  }
}

export function toSampleLine(node: PyNode, file: string, line: number): SampleLine {
  const where = (field: string) => ({ file, line, field });
  if (node.k !== 'obj') throw new BadInputError(`expected a JSON object, got ${kindName(node)}`, { file, line });
  const docIdNode = member(node, 'doc_id');
  if (docIdNode === undefined) throw new BadInputError('missing field', where('doc_id'));
  if (docIdNode.k !== 'num' && docIdNode.k !== 'str') throw new BadInputError(`expected an integer, got ${kindName(docIdNode)}`, where('doc_id'));
  const respsNode = member(node, 'resps');
  if (respsNode === undefined) throw new BadInputError('missing field', where('resps'));
  if (respsNode.k !== 'arr') throw new BadInputError(`expected a list (one entry per request), got ${kindName(respsNode)}`, where('resps'));
  const resps = respsNode.items.map((r, i) => {
    if (r.k !== 'arr') throw new BadInputError(`request ${i}: expected a list of repeats, got ${kindName(r)}`, where('resps'));
    return [...r.items];
  });
  const argsNode = member(node, 'arguments');
  const requests = argsNode === undefined ? [] : readArguments(argsNode, where('arguments'));
  const filterNode = member(node, 'filter');
  if (filterNode !== undefined && filterNode.k !== 'str') throw new BadInputError(`expected a string, got ${kindName(filterNode)}`, where('filter'));
  const metricsNode = member(node, 'metrics');
  let metricsList: string[] | null = null;
  if (metricsNode !== undefined) {
    if (metricsNode.k !== 'arr' || metricsNode.items.some((m) => m.k !== 'str')) {
      throw new BadInputError('expected a list of metric names', where('metrics'));
    }
    metricsList = metricsNode.items.map((m) => (m as { v: string }).v);
  }
  const metricValues: [string, PyNode][] = [];
  const extras: [string, PyNode][] = [];
  for (const [key, value] of node.entries) {
    if (FORMAT_FIELDS.has(key)) continue;
    if (metricsList === null || metricsList.includes(key)) metricValues.push([key, value]);
    else extras.push([key, value]);
  }
  if (metricsList !== null) {
    for (const m of metricsList) if (!metricValues.some(([k]) => k === m)) throw new BadInputError(`metric '${m}' is listed in 'metrics' but has no value`, where(m));
  }
  return {
    file,
    line,
    docId: docIdNode.k === 'num' ? docIdNode.raw : docIdNode.v,
    doc: member(node, 'doc') ?? null,
    target: member(node, 'target') ?? null,
    requests,
    resps,
    filteredResps: member(node, 'filtered_resps') ?? null,
    filter: filterNode === undefined ? null : (filterNode as { v: string }).v,
    metricsList,
    metricValues,
    extras,
    docHash: hashField(node, 'doc_hash', where),
    promptHash: hashField(node, 'prompt_hash', where),
    targetHash: hashField(node, 'target_hash', where),
  };
}

function hashField(node: PyNode, key: string, where: (f: string) => { file: string; line: number; field: string }): string | null {
  const h = member(node, key);
  if (h === undefined) return null;
  if (h.k !== 'str' || !/^[0-9a-f]{64}$/.test(h.v)) throw new BadInputError('expected a sha256 hex string', where(key));
  return h.v;
}

/** `arguments` in every shape lm-eval has written. */
function readArguments(node: PyNode, where: { file: string; line: number; field: string }): RequestArgs[] {
  if (node.k === 'obj') {
    // 0.4.3+: {"gen_args_<i>": {"arg_<j>": value}} in request order.
    return node.entries.map(([key, args], i) => {
      if (key !== `gen_args_${i}`) throw new BadInputError(`expected key 'gen_args_${i}', found '${key}'`, where);
      if (args.k !== 'obj') throw new BadInputError(`${key}: expected an object of arg_<j>, got ${kindName(args)}`, where);
      return oneRequest(args.entries.map(([, v]) => v), 'gen_args', where);
    });
  }
  if (node.k !== 'arr') throw new BadInputError(`expected a list or an object, got ${kindName(node)}`, where);
  // 0.4.0–0.4.2: a list of per-request argument lists; the 2023 dev branch: one flat list (request 0 only).
  if (node.items.length > 0 && node.items.every((a) => a.k === 'arr')) {
    return node.items.map((a) => oneRequest(a.k === 'arr' ? a.items : [], 'list-of-lists', where));
  }
  return [oneRequest(node.items, 'flat-list', where)];
}

function oneRequest(args: readonly PyNode[], shape: string, where: { file: string; line: number; field: string }): RequestArgs {
  const [arg0, arg1] = args;
  let context: string | null = null;
  if (arg0 !== undefined) {
    if (arg0.k === 'str') context = arg0.v;
    else if (arg0.k === 'arr' && arg0.items.length === 1 && arg0.items[0]!.k === 'str') {
      // API chat models: the prompt is a NamedTuple serialised as a one-element list holding the messages JSON.
      context = arg0.items[0].v;
      shape = `${shape}+chat-string`;
    } else throw new BadInputError(`arg_0: expected a string or a one-element list holding the chat messages, got ${kindName(arg0)}`, where);
  }
  let continuation: string | null = null;
  let genKwargs: PyNode | null = null;
  if (arg1 !== undefined) {
    if (arg1.k === 'str') continuation = arg1.v;
    else if (arg1.k === 'obj') genKwargs = arg1;
    else throw new BadInputError(`arg_1: expected a string (continuation) or an object (generation settings), got ${kindName(arg1)}`, where);
  }
  return { context, continuation, genKwargs, shape };
}

export function kindName(node: PyNode): string {
  return { obj: 'an object', arr: 'a list', str: 'a string', num: 'a number', bool: 'a boolean', null: 'null' }[node.k];
}

/** Python's str(target), as lm-eval ≥0.4.5 writes it (older versions wrote the value itself). */
export function targetText(line: SampleLine): string | null {
  return line.target === null ? null : pyStr(line.target);
}

export function compactJson(node: PyNode | null): string | null {
  return node === null ? null : pyDumps(node);
}
