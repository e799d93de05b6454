/**
 * The item join: one record per document of a (run, task), and the pairing of
 * two such lists. Documents pair on `doc_hash` when that key finds as many
 * pairs as any other, then on the document's content (its JSON with keys
 * sorted), then on doc_id — and the result says which key it used and what
 * each key would have found, because lm-eval's doc_id is an index that
 * `--samples` can mislabel, while a hash from another hashing scheme pairs nothing.
 */
import { createHash } from 'node:crypto';
import type { OpenStore } from '../store/readStore.ts';
import type { RunProvenance } from '../store/schema.ts';
import { valueOf } from './provenanceView.ts';
import { forEachRow, sqlString } from '../util/duckdb.ts';
import { weightedPair, type WeightedPair } from './weightedPair.ts';

export interface ResponseView {
  requestIdx: number;
  repeat: number;
  text: string | null;
  logprob: number | null;
  isGreedy: boolean | null;
}

export interface DocRecord {
  docId: string;
  docHash: string;
  /** Digest of the document's JSON with keys sorted (null when the source stored no document): a pairing key. */
  content: string | null;
  /**
   * Digests of the document's long top-level text fields, whitespace-collapsed (a question, a
   * passage): a key across harnesses. Digests, not texts: a million documents are held at once.
   */
  texts: string[];
  /** Context of the first request: the bytes the model saw. */
  prompt: string | null;
  promptHash: string | null;
  /**
   * Every request in order, for "did the bytes change": the context as its md5
   * (only the first request's full text is kept, in `prompt`: a multiple-choice
   * task repeats it per choice, and a large store would hold it four times over).
   */
  requests: { context: string | null; continuation: string | null }[];
  target: string | null;
  responses: ResponseView[];
  /** Per-item scores as recorded: key 'metric,filter'. */
  scores: Map<string, number | null>;
  /** Per-item (log-likelihood, weight) pairs, where a score's recorded value is one (word_perplexity): key 'metric,filter'. */
  weighted?: Map<string, WeightedPair>;
}

export type JoinKey = 'doc_hash' | 'doc_content' | 'doc_text' | 'doc_id';

export interface ItemJoin {
  key: JoinKey;
  /** Pairs each key would find (the reason for the choice). */
  pairsByKey: Record<JoinKey, number>;
  pairs: [DocRecord, DocRecord][];
  onlyA: DocRecord[];
  onlyB: DocRecord[];
}

interface InstanceSql {
  doc_id: string;
  doc_hash: string;
  doc_json: string | null;
  request_idx: number;
  arg_context: string | null;
  context_md5: string | null;
  arg_continuation: string | null;
  prompt_hash: string | null;
  target: string | null;
}

/** Documents in id order, numeric ids by value first (one order for every read, whole or limited). */
const DOC_ORDER = 'TRY_CAST(doc_id AS DOUBLE) NULLS LAST, doc_id';

/**
 * A task's documents with their requests, responses and recorded scores, in id order (numeric
 * ids by value). With `first`, only the first that many documents are read (a report's samples
 * need three, not a million).
 */
export async function loadDocs(store: OpenStore, runId: string, task: string, options: { first?: number } = {}): Promise<DocRecord[]> {
  const inTask = `run_id = ${sqlString(runId)} AND task = ${sqlString(task)}`;
  const where =
    options.first === undefined
      ? inTask
      : `${inTask} AND doc_id IN (SELECT doc_id FROM (SELECT DISTINCT doc_id FROM ${store.table('instances')} WHERE ${inTask})
                                  ORDER BY ${DOC_ORDER} LIMIT ${options.first})`;
  // Streamed row by row into the documents: a million-item run never sits in memory twice.
  const docs = new Map<string, DocRecord>();
  await forEachRow<InstanceSql>(
    `SELECT doc_id, doc_hash, doc_json, request_idx,
            CASE WHEN request_idx = min(request_idx) OVER (PARTITION BY doc_id) THEN arg_context END AS arg_context,
            md5(arg_context) AS context_md5, arg_continuation, prompt_hash, target
     FROM ${store.table('instances')} WHERE ${where} ORDER BY ${DOC_ORDER}, request_idx`,
    (row) => {
      let doc = docs.get(row.doc_id);
      if (doc === undefined) {
        const keys = docKeys(row.doc_json);
        doc = {
          docId: row.doc_id,
          docHash: row.doc_hash,
          content: keys.content,
          // The prompt as sent is a text both sides hold too: byte-identical prompts are the same item however each
          // source keys it (HELM hashes the bare question, EEE's HELM converter the whole prompt, so they never joined).
          texts: row.arg_context === null ? keys.texts : [...keys.texts, ...textKeys([row.arg_context])],
          prompt: row.arg_context,
          promptHash: row.prompt_hash,
          requests: [],
          target: row.target,
          responses: [],
          scores: new Map(),
        };
        docs.set(row.doc_id, doc);
      }
      doc.requests.push({ context: row.context_md5, continuation: row.arg_continuation });
    },
  );
  await forEachRow<{ doc_id: string; request_idx: number; repeat: number; text: string | null; logprob: number | null; is_greedy: boolean | null }>(
    `SELECT doc_id, request_idx, "repeat", text, logprob, is_greedy FROM ${store.table('responses')} WHERE ${where} ORDER BY doc_id, request_idx, "repeat"`,
    (r) => docs.get(r.doc_id)?.responses.push({ requestIdx: r.request_idx, repeat: r.repeat, text: r.text, logprob: r.logprob, isGreedy: r.is_greedy }),
  );
  await forEachRow<{ doc_id: string; filter: string; metric: string; value: number | null; pair_json: string | null }>(
    // The recorded JSON only where the value is not a number: a (log-likelihood, weight) pair (pairedCorpus.ts).
    `SELECT doc_id, filter, metric, value, CASE WHEN value IS NULL OR isnan(value) THEN value_json END AS pair_json FROM ${store.table('scores')} WHERE ${where}`,
    (row) => {
      const doc = docs.get(row.doc_id);
      if (doc === undefined) return;
      const key = `${row.metric},${row.filter}`;
      doc.scores.set(key, row.value);
      const pair = weightedPair(row.pair_json);
      if (pair !== null) (doc.weighted ??= new Map()).set(key, pair);
    },
  );
  // In the query's order: the documents were first met there.
  return [...docs.values()];
}


/** A document's pairing keys, from one parse of its JSON. */
function docKeys(json: string | null): { content: string | null; texts: string[] } {
  if (json === null) return { content: null, texts: [] };
  let doc: unknown;
  try {
    doc = JSON.parse(json);
  } catch {
    return { content: digest(json), texts: [] };
  }
  return { content: digest(JSON.stringify(sortKeys(doc))), texts: textFields(doc) };
}

/** A key for equality only (sha1: collisions are out of reach for texts nobody crafted to collide). */
const digest = (text: string): string => createHash('sha1').update(text).digest('base64');

function sortKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (v !== null && typeof v === 'object') {
    return Object.fromEntries(Object.keys(v).sort().map((k) => [k, sortKeys((v as Record<string, unknown>)[k])]));
  }
  return v;
}

/** Shorter strings (a letter, a label) would pair unrelated documents. */
const MIN_TEXT_LENGTH = 20;

function textFields(doc: unknown): string[] {
  if (doc === null || typeof doc !== 'object' || Array.isArray(doc)) return [];
  // A field may hold its text one level down ({"input": {"text": …}}: HELM's instance), read as the field's text.
  const nestedText = (v: unknown) => (v !== null && typeof v === 'object' && !Array.isArray(v) && typeof (v as { text?: unknown }).text === 'string' ? (v as { text: string }).text : v);
  return textKeys(Object.values(doc).map(nestedText));
}

/** The long texts among values, as pairing keys (whitespace runs collapsed). */
function textKeys(values: readonly unknown[]): string[] {
  return values
    .filter((v): v is string => typeof v === 'string')
    .map((v) => v.replace(/\s+/g, ' ').trim())
    .filter((v) => v.length >= MIN_TEXT_LENGTH)
    .map(digest);
}

const KEY_OF: Record<Exclude<JoinKey, 'doc_text'>, (d: DocRecord) => string | null> = {
  doc_hash: (d) => d.docHash,
  doc_content: (d) => d.content,
  doc_id: (d) => d.docId,
};

/**
 * Pairs documents that share a long text field (an Inspect sample's `input` and an lm-eval
 * doc's `question`): the cross-harness key, since each harness hashes and numbers its own way.
 * A text held by several documents of one side is ambiguous and pairs nothing.
 */
function pairByText(a: readonly DocRecord[], b: readonly DocRecord[]): ItemJoin {
  const holders = new Map<string, DocRecord[]>();
  for (const d of b) {
    for (const t of new Set(d.texts)) {
      const list = holders.get(t);
      if (list === undefined) holders.set(t, [d]);
      else list.push(d);
    }
  }
  const counts = new Map<string, number>();
  for (const d of a) for (const t of new Set(d.texts)) counts.set(t, (counts.get(t) ?? 0) + 1);
  const pairs: [DocRecord, DocRecord][] = [];
  const onlyA: DocRecord[] = [];
  const paired = new Set<DocRecord>();
  for (const d of a) {
    const match = d.texts
      .filter((t) => counts.get(t) === 1 && holders.get(t)?.length === 1)
      .map((t) => holders.get(t)![0]!)
      .find((m) => !paired.has(m));
    if (match === undefined) onlyA.push(d);
    else {
      pairs.push([d, match]);
      paired.add(match);
    }
  }
  return { key: 'doc_text', pairsByKey: { doc_hash: 0, doc_content: 0, doc_text: 0, doc_id: 0 }, pairs, onlyA, onlyB: b.filter((d) => !paired.has(d)) };
}

/** Pairs by one key; duplicates of a key pair in order (the k-th A copy with the k-th B copy). */
function pairBy(a: readonly DocRecord[], b: readonly DocRecord[], key: Exclude<JoinKey, 'doc_text'>): ItemJoin {
  const of = KEY_OF[key];
  // Per key, B's copies in order and the next one to hand out (linear however many copies share a key).
  const waiting = new Map<string, { copies: DocRecord[]; next: number }>();
  for (const d of b) {
    const k = of(d);
    if (k === null) continue;
    const w = waiting.get(k);
    if (w === undefined) waiting.set(k, { copies: [d], next: 0 });
    else w.copies.push(d);
  }
  const pairs: [DocRecord, DocRecord][] = [];
  const onlyA: DocRecord[] = [];
  const paired = new Set<DocRecord>();
  for (const d of a) {
    const k = of(d);
    const w = k === null ? undefined : waiting.get(k);
    const match = w !== undefined && w.next < w.copies.length ? w.copies[w.next++] : undefined;
    if (match === undefined) onlyA.push(d);
    else {
      pairs.push([d, match]);
      paired.add(match);
    }
  }
  return { key, pairsByKey: { doc_hash: 0, doc_content: 0, doc_text: 0, doc_id: 0 }, pairs, onlyA, onlyB: b.filter((d) => !paired.has(d)) };
}

/** When doc_id may pair items: not across harnesses (each numbers its own way), nor across datasets. */
export interface JoinOptions {
  crossHarness?: boolean;
  /** The two tasks read other datasets (or other configurations of one): a doc_id indexes each its own. */
  otherDatasets?: boolean;
}

/**
 * How two runs' tasks may be joined. Two tasks of other names whose recorded datasets differ (`diff X X` pairs a
 * store's boolq run with its asdiv run by position) share no document, whatever their doc_ids: joined on doc_id,
 * boolq's 16 and asdiv's first 16 were "16 shared".
 */
export function joinOptions(runA: RunProvenance, taskA: string, runB: RunProvenance, taskB: string): JoinOptions {
  const dataset = (run: RunProvenance, task: string) => [valueOf(run, task, 'task.dataset_path'), valueOf(run, task, 'task.dataset_name')];
  const [a, b] = [dataset(runA, taskA), dataset(runB, taskB)];
  const known = (v: unknown) => v !== undefined && v !== null;
  const otherDatasets = taskA !== taskB && known(a[0]) && known(b[0]) && JSON.stringify(a.map((v) => v ?? null)) !== JSON.stringify(b.map((v) => v ?? null));
  return { crossHarness: runA.source_kind !== runB.source_kind, otherDatasets };
}

/**
 * The join with the most pairs, keys tried in this order (ties go to the earlier). Across
 * harnesses doc_id is not tried: each harness numbers its own items, so equal ids mean nothing.
 */
export function joinDocs(a: readonly DocRecord[], b: readonly DocRecord[], options: JoinOptions = {}): ItemJoin {
  const tries = [
    pairBy(a, b, 'doc_hash'),
    pairBy(a, b, 'doc_content'),
    pairByText(a, b),
    ...(options.crossHarness || options.otherDatasets ? [] : [pairBy(a, b, 'doc_id')]),
  ];
  const pairsByKey = { doc_hash: 0, doc_content: 0, doc_text: 0, doc_id: 0, ...Object.fromEntries(tries.map((t) => [t.key, t.pairs.length])) } as Record<JoinKey, number>;
  const best = Math.max(...tries.map((t) => t.pairs.length));
  const chosen = tries.find((t) => t.pairs.length === best)!;
  return { ...chosen, pairsByKey };
}
