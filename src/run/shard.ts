/**
 * `lmaudit run … --shard i/N`: shard i of a run cut into N, so that N processes (each against its
 * own server) share one evaluation and `lmaudit merge` joins their stores. The cut is over whole
 * documents (a document's requests are scored together, so they stay in one shard), balanced by
 * prompt length: greedy longest-first bin packing — documents by decreasing total prompt length
 * (code points of every request's context and continuation, times the task's repeats; ties in
 * run order: task, then document), each to the shard with the least so far (ties: the lowest
 * shard). The same tasks and flags give the same cut on any machine.
 */
import { BadInputError } from '../errors.ts';
import type { BuiltTask, DocRequests } from '../prompt/build.ts';
import { dumpsPy } from '../py/json.ts';
import type { RecordNote } from '../store/schema.ts';

export interface ShardSpec {
  index: number;
  count: number;
}

/** `--shard i/N` (0 ≤ i < N). */
export function parseShard(text: string): ShardSpec {
  const m = /^\s*(\d+)\s*\/\s*(\d+)\s*$/.exec(text);
  if (m === null) throw new BadInputError(`--shard takes i/N (shard i of N, counted from 0), got '${text}'`, { field: '--shard' });
  const index = Number(m[1]);
  const count = Number(m[2]);
  if (count < 1 || index >= count) throw new BadInputError(`--shard ${text}: i must be below N (shards 0/${Math.max(count, 1)} … ${Math.max(count, 1) - 1}/${Math.max(count, 1)})`, { field: '--shard' });
  return { index, count };
}

export const shardLabel = (s: ShardSpec): string => `${s.index}/${s.count}`;

/** Code points (a surrogate pair is one character). */
function codePoints(text: string): number {
  let pairs = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff) pairs++;
  }
  return text.length - pairs;
}

const argText = (v: unknown): string => (typeof v === 'string' ? v : dumpsPy(v));

/** A document's prompt length: what its requests send (generation kwargs are not prompt). */
export function documentWeight(doc: DocRequests, repeats: number): number {
  let n = 0;
  for (const args of doc.arguments) {
    n += codePoints(argText(args[0]));
    if (doc.request_type === 'loglikelihood') n += codePoints(argText(args[1]));
  }
  return n * Math.max(1, repeats);
}

export interface ShardCut {
  built: BuiltTask[];
  documents: number;
  requests: number;
  totalDocuments: number;
  totalRequests: number;
  /** Prompt length in this shard, and over all shards. */
  weight: number;
  totalWeight: number;
}

const requestsOf = (t: BuiltTask, docs: readonly DocRequests[]) => docs.reduce((n, d) => n + d.arguments.length, 0) * Math.max(1, t.config.repeats);

/** Which shard each document goes to, by `task\0doc_id`. */
export function assignShards(built: readonly BuiltTask[], count: number): Map<string, number> {
  const units = built.flatMap((t) => t.docs.map((d) => ({ key: `${t.config.task}\u0000${d.doc_id}`, weight: documentWeight(d, t.config.repeats) })));
  const order = units.map((_, i) => i).sort((a, b) => units[b]!.weight - units[a]!.weight || a - b);
  const loads = new Array<number>(count).fill(0);
  const out = new Map<string, number>();
  for (const i of order) {
    let best = 0;
    for (let s = 1; s < count; s++) if (loads[s]! < loads[best]!) best = s;
    loads[best]! += units[i]!.weight;
    out.set(units[i]!.key, best);
  }
  return out;
}

/** The documents of shard `spec`, each task keeping its documents in their order. */
export function cutShard(built: readonly BuiltTask[], spec: ShardSpec): ShardCut {
  const assigned = assignShards(built, spec.count);
  const mine = built.map((t) => ({ ...t, docs: t.docs.filter((d) => assigned.get(`${t.config.task}\u0000${d.doc_id}`) === spec.index) }));
  const sum = (xs: readonly BuiltTask[], f: (t: BuiltTask) => number) => xs.reduce((n, t) => n + f(t), 0);
  return {
    built: mine,
    documents: sum(mine, (t) => t.docs.length),
    requests: sum(mine, (t) => requestsOf(t, t.docs)),
    totalDocuments: sum(built, (t) => t.docs.length),
    totalRequests: sum(built, (t) => requestsOf(t, t.docs)),
    weight: sum(mine, (t) => t.docs.reduce((n, d) => n + documentWeight(d, t.config.repeats), 0)),
    totalWeight: sum(built, (t) => t.docs.reduce((n, d) => n + documentWeight(d, t.config.repeats), 0)),
  };
}

export const SHARD_NOTE = 'shard';

/** The provenance note a shard's run carries (lmaudit merge reads its evidence). */
export function shardNote(spec: ShardSpec, cut: ShardCut): RecordNote {
  return {
    task: null,
    kind: SHARD_NOTE,
    message: `shard ${spec.index} of ${spec.count} (--shard ${shardLabel(spec)}): ${cut.documents} of ${cut.totalDocuments} documents, ${cut.requests} of ${cut.totalRequests} requests, ${cut.weight} of ${cut.totalWeight} prompt characters (documents packed longest first); \`lmaudit merge\` joins the shards`,
    evidence: [JSON.stringify({ index: spec.index, count: spec.count, documents: cut.documents, requests: cut.requests, total_documents: cut.totalDocuments, total_requests: cut.totalRequests, prompt_characters: cut.weight, total_prompt_characters: cut.totalWeight })],
  };
}

/** The key of a shard's recorded configuration that holds its flags as typed values (dumpsPy). */
export const SHARD_OPTIONS_KEY = 'the run’s flags, typed (for lmaudit merge)';
