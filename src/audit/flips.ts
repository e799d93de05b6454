/**
 * Flip attribution: for each shared item whose correctness flips between A and
 * B, what changed for that item. Checked in causal order — the prompt bytes
 * (the model saw something else), then the raw response (same prompt, the
 * model answered differently), then extraction (same raw answer, read
 * differently) — so every flip gets exactly one cause.
 */
import type { DocRecord } from './itemJoin.ts';
import { promptChanged, responsesDiffer } from './itemDifferences.ts';

export type FlipCause = 'prompt' | 'response' | 'extraction' | 'unknown';

/** Each cause as it follows a count of flips ('5 with different prompt bytes'). */
const FLIP_CAUSE_TEXT: Record<FlipCause, string> = {
  prompt: 'with different prompt bytes',
  response: 'with the same prompt and a different raw response',
  extraction: 'with the same raw response, scored differently (extraction or scoring)',
  unknown: 'with no prompt or response recorded to tell why',
};

/** The causes a flip count splits into, in causal order, each with its count; empty ones left out. */
export function flipCauses(f: Pick<FlipAttribution, 'byCause'>): { cause: FlipCause; text: string }[] {
  return (Object.keys(f.byCause) as FlipCause[]).filter((k) => f.byCause[k] > 0).map((cause) => ({ cause, text: `${f.byCause[cause]} ${FLIP_CAUSE_TEXT[cause]}` }));
}

export interface FlipExample {
  docIdA: string;
  docIdB: string;
  a: number;
  b: number;
  detail: string;
}

export interface FlipAttribution {
  /** 'metric,filter' */
  score: string;
  flips: number;
  /** 1 in A, 0 in B (A right, B wrong, unless oneIsWorse). */
  lost: number;
  /** 0 in A, 1 in B. */
  gained: number;
  byCause: Record<FlipCause, number>;
  examples: Record<FlipCause, FlipExample[]>;
  /** Set where a 1 is the worse outcome (pairedStats.ts's onlyInPhrase says the counts so). */
  oneIsWorse?: true;
}

function causeOf(x: DocRecord, y: DocRecord): FlipCause {
  const hasPrompts = x.requests.some((r) => r.context !== null) && y.requests.some((r) => r.context !== null);
  if (hasPrompts && promptChanged(x, y)) return 'prompt';
  if (x.responses.length === 0 || y.responses.length === 0) return hasPrompts ? 'unknown' : 'unknown';
  if (responsesDiffer(x, y)) return 'response';
  return 'extraction';
}

function detailOf(cause: FlipCause, x: DocRecord, y: DocRecord): string {
  const first = (d: DocRecord) => {
    const r = d.responses[0];
    if (r === undefined) return '∅';
    const t = r.text ?? (r.logprob !== null ? d.responses.map((q) => q.logprob).join(', ') : '∅');
    return JSON.stringify(t.length > 120 ? `${t.slice(0, 119)}…` : t);
  };
  if (cause === 'prompt') return `prompt hash ${x.promptHash?.slice(0, 12) ?? '?'} → ${y.promptHash?.slice(0, 12) ?? '?'}`;
  if (cause === 'response' || cause === 'extraction') return `A: ${first(x)}; B: ${first(y)}`;
  return FLIP_CAUSE_TEXT.unknown;
}

/** Attributes the flips of one 0/1 score (key 'metric,filter') over the joined pairs. */
export function attributeFlips(pairs: readonly [DocRecord, DocRecord][], score: string, examples = 3, oneIsWorse = false): FlipAttribution {
  const out: FlipAttribution = {
    score,
    flips: 0,
    lost: 0,
    gained: 0,
    byCause: { prompt: 0, response: 0, extraction: 0, unknown: 0 },
    examples: { prompt: [], response: [], extraction: [], unknown: [] },
    ...(oneIsWorse ? { oneIsWorse: true as const } : {}),
  };
  for (const [x, y] of pairs) {
    const a = x.scores.get(score);
    const b = y.scores.get(score);
    if (a == null || b == null || (a !== 0 && a !== 1) || (b !== 0 && b !== 1) || a === b) continue;
    out.flips++;
    if (a === 1) out.lost++;
    else out.gained++;
    const cause = causeOf(x, y);
    out.byCause[cause]++;
    if (out.examples[cause].length < examples) out.examples[cause].push({ docIdA: x.docId, docIdB: y.docId, a, b, detail: detailOf(cause, x, y) });
  }
  return out;
}
