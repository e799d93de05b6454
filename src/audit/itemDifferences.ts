/**
 * What differs between two paired documents of the item join (itemJoin.ts): the prompts the model saw, byte for
 * byte and as a unified diff, and the responses, their texts and log-probabilities.
 */
import { createHash } from 'node:crypto';
import { createTwoFilesPatch } from 'diff';
import type { DocRecord } from './itemJoin.ts';

export interface PromptDifference {
  docIdA: string;
  docIdB: string;
  /** Unified diff, A → B, of the first request's context. */
  patch: string;
}

export interface ItemDifferences {
  promptsDiffer: number;
  promptExamples: PromptDifference[];
  responsesDiffer: number;
  responseExamples: { docIdA: string; docIdB: string; a: string; b: string }[];
  /** For log-prob responses: largest absolute difference and the fewest agreeing significant digits. */
  logprob: { compared: number; differ: number; maxAbsDiff: number; minAgreeingDigits: number | null } | null;
}

/** Whether any request context differs byte-wise (what the model saw). */
export function promptChanged(x: DocRecord, y: DocRecord): boolean {
  if (x.requests.length !== y.requests.length) return true;
  return x.requests.some((r, i) => {
    const o = y.requests[i]!;
    if (r.context === o.context && r.continuation === o.continuation) return false;
    const [a, b] = [scoredText(r), scoredText(o)];
    return a === null || b === null || a !== b;
  });
}

const EMPTY_MD5 = createHash('md5').update('').digest('hex');

/**
 * A rolling log-likelihood request scores one text with no context: lm-eval's samples give it as the context
 * (arg_0, no continuation), lmaudit's store as the continuation after an empty context. Both are that text's
 * md5; null for any other request (those compare as stored).
 */
function scoredText(r: { context: string | null; continuation: string | null }): string | null {
  if (r.continuation === null && r.context !== null) return r.context;
  if ((r.context === null || r.context === EMPTY_MD5) && r.continuation !== null) return createHash('md5').update(r.continuation).digest('hex');
  return null;
}


/**
 * Whether two documents' responses differ: the texts, and a log-probability or greedy flag where both sides recorded
 * one. A value one source did not record is unknown, not different: HELM keeps each completion's log-probability
 * and EEE's records of the same run do not, so ten equal " D" answers were counted as ten that differ.
 */
export function responsesDiffer(x: DocRecord, y: DocRecord): boolean {
  if (x.responses.length !== y.responses.length) return true;
  return x.responses.some((a, i) => {
    const b = y.responses[i]!;
    const both = <T>(u: T | null, v: T | null) => u !== null && v !== null && u !== v;
    return a.requestIdx !== b.requestIdx || a.repeat !== b.repeat || a.text !== b.text || both(a.logprob, b.logprob) || both(a.isGreedy, b.isGreedy);
  });
}

export function describeDifferences(pairs: readonly [DocRecord, DocRecord][], examples = 3): ItemDifferences {
  const out: ItemDifferences = { promptsDiffer: 0, promptExamples: [], responsesDiffer: 0, responseExamples: [], logprob: null };
  let compared = 0;
  let differ = 0;
  let maxAbsDiff = 0;
  let minDigits: number | null = null;
  for (const [x, y] of pairs) {
    if (promptChanged(x, y)) {
      out.promptsDiffer++;
      if (out.promptExamples.length < examples) {
        out.promptExamples.push({ docIdA: x.docId, docIdB: y.docId, patch: unifiedPatch(x, y) });
      }
    }
    if (responsesDiffer(x, y)) {
      out.responsesDiffer++;
      if (out.responseExamples.length < examples) {
        out.responseExamples.push({ docIdA: x.docId, docIdB: y.docId, a: shortResponse(x), b: shortResponse(y) });
      }
    }
    const n = Math.min(x.responses.length, y.responses.length);
    let docDiffers = false;
    let docHasLogprob = false;
    for (let i = 0; i < n; i++) {
      const la = x.responses[i]!.logprob;
      const lb = y.responses[i]!.logprob;
      if (la === null || lb === null) continue;
      docHasLogprob = true;
      if (la !== lb) {
        docDiffers = true;
        maxAbsDiff = Math.max(maxAbsDiff, Math.abs(la - lb));
        const digits = agreeingDigits(la, lb);
        minDigits = minDigits === null ? digits : Math.min(minDigits, digits);
      }
    }
    if (docHasLogprob) compared++;
    if (docDiffers) differ++;
  }
  if (compared > 0) out.logprob = { compared, differ, maxAbsDiff, minAgreeingDigits: minDigits };
  return out;
}

/** Leading significant digits two numbers share (0 when they differ in the first). */
export function agreeingDigits(a: number, b: number): number {
  const sa = Math.abs(a).toExponential(15).replace('.', '');
  const sb = Math.abs(b).toExponential(15).replace('.', '');
  if (sa.split('e')[1] !== sb.split('e')[1]) return 0;
  let k = 0;
  while (k < 16 && sa[k] === sb[k]) k++;
  return k;
}

function shortResponse(d: DocRecord): string {
  const text = d.responses.map((r) => (r.text !== null ? r.text : r.logprob !== null ? String(r.logprob) : '')).join(' | ');
  return text.length > 300 ? `${text.slice(0, 299)}…` : text;
}

function unifiedPatch(x: DocRecord, y: DocRecord): string {
  const text = (d: DocRecord) => {
    const continuations = d.requests.map((r) => r.continuation).filter((c) => c !== null);
    return `${d.prompt ?? ''}${continuations.length > 0 ? `\n--- continuations: ${JSON.stringify(continuations)}` : ''}`;
  };
  const [a, b] = [text(x), text(y)];
  const patch = createTwoFilesPatch(`A doc ${x.docId}`, `B doc ${y.docId}`, a, b, '', '', { context: 2 });
  const lines = patch.split('\n').slice(1);
  return (lines.length > 60 ? [...lines.slice(0, 60), `… (${lines.length - 60} more lines)`] : lines).join('\n');
}
