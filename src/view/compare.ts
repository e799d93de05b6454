/**
 * The compare page: `diff`'s result for two sources (diffStores, as `lmaudit diff` prints
 * it), and for one compared task the documents aligned the way diff aligned them (loadDocs
 * and joinDocs with the same options, the rescored values joined as diff joins them), a page
 * at a time, with a pair's prompts and the character difference between them.
 */
import { diffChars } from 'diff';
import { diffStores, withRescored, type DiffResult, type TaskComparison } from '../audit/diff.ts';
import { joinDocs, joinOptions, loadDocs, type DocRecord } from '../audit/itemJoin.ts';
import { promptChanged, responsesDiffer } from '../audit/itemDifferences.ts';
import { rescoredValues } from '../audit/rescored.ts';
import type { ViewSession, ViewSource } from './sources.ts';
import { PAGE_LIMIT } from './scopeItems.ts';
import { ViewRequestError } from './viewErrors.ts';

export interface CompareKey {
  a: ViewSource;
  b: ViewSource;
  runA?: string;
  runB?: string;
}

export type PairFilter = 'all' | 'prompt' | 'response' | 'aOnly' | 'bOnly';

export interface PairRow {
  index: number;
  docIdA: string;
  docIdB: string;
  promptDiffers: boolean;
  responseDiffers: boolean;
  responseA: string;
  responseB: string;
  scoreA: number | null;
  scoreB: number | null;
}

const SHOWN_CHARS = 240;

/** What picks the two runs on the compare page, for the pairing's reason (the CLI's reads "--run-a/--run-b"). */
const VIEW_RUN_CHOOSER = "the address's ra/rb parameters";

export class CompareCache {
  private readonly diffs = new Map<string, Promise<DiffResult>>();
  private readonly joins = new Map<string, Promise<[DocRecord, DocRecord][]>>();

  constructor(private readonly session: ViewSession) {}

  private static id(k: CompareKey): string {
    return [k.a.id, k.b.id, k.runA ?? '', k.runB ?? ''].join('\u0000');
  }

  /** Run ids named by the browser are checked against the sources before they reach diff's selectors. */
  key(a: ViewSource, b: ViewSource, runA: string | null, runB: string | null): CompareKey {
    if (runA) this.session.run(a, runA);
    if (runB) this.session.run(b, runB);
    return { a, b, ...(runA ? { runA } : {}), ...(runB ? { runB } : {}) };
  }

  diff(k: CompareKey): Promise<DiffResult> {
    const id = CompareCache.id(k);
    let d = this.diffs.get(id);
    if (d === undefined) {
      d = diffStores(k.a.loaded.store, k.b.loaded.store, { runA: k.runA, runB: k.runB, runChooser: VIEW_RUN_CHOOSER });
      d.catch(() => this.diffs.delete(id));
      this.diffs.set(id, d);
    }
    return d;
  }

  async task(k: CompareKey, comparison: number, task: number): Promise<{ diff: DiffResult; t: TaskComparison; runA: string; runB: string }> {
    const diff = await this.diff(k);
    const c = diff.comparisons[comparison];
    const t = c?.tasks[task];
    if (c === undefined || t === undefined) throw new ViewRequestError(`no compared task ${comparison}/${task}`);
    return { diff, t, runA: c.a.run_id, runB: c.b.run_id };
  }

  /** The aligned documents of one compared task (as diff's compareTask pairs them). */
  async pairs(k: CompareKey, comparison: number, task: number): Promise<[DocRecord, DocRecord][]> {
    const { t, runA, runB } = await this.task(k, comparison, task);
    const id = `${CompareCache.id(k)}\u0000${comparison}\u0000${task}`;
    let p = this.joins.get(id);
    if (p === undefined) {
      p = (async () => {
        const [storeA, storeB] = [k.a.loaded.store, k.b.loaded.store];
        const runAProv = this.session.run(k.a, runA);
        const runBProv = this.session.run(k.b, runB);
        const [resA, resB] = [await rescoredValues(storeA), await rescoredValues(storeB)];
        const docsA = withRescored(await loadDocs(storeA, runA, t.taskA), resA.byScope.get(`${runA}\u0000${t.taskA}`));
        const docsB = withRescored(await loadDocs(storeB, runB, t.taskB), resB.byScope.get(`${runB}\u0000${t.taskB}`));
        return joinDocs(docsA, docsB, joinOptions(runAProv, t.taskA, runBProv, t.taskB)).pairs;
      })();
      p.catch(() => this.joins.delete(id));
      this.joins.set(id, p);
    }
    return p;
  }

  async pairPage(k: CompareKey, comparison: number, task: number, filter: PairFilter, score: string | null, offset: number, limit: number) {
    const pairs = await this.pairs(k, comparison, task);
    const { t } = await this.task(k, comparison, task);
    if (score !== null && !t.paired.some((p) => p.score === score)) throw new ViewRequestError(`no paired score ${JSON.stringify(score)} in this comparison`);
    const chosen = score ?? t.paired[0]?.score ?? null;
    const value = (d: DocRecord) => (chosen === null ? null : (d.scores.get(chosen) ?? null));
    const keep = (x: DocRecord, y: DocRecord): boolean => {
      if (filter === 'prompt') return promptChanged(x, y);
      if (filter === 'response') return responsesDiffer(x, y);
      // McNemar's discordant pairs, as pairedStats counts them: right (1) on one side and wrong (0) on the other.
      if (filter === 'aOnly') return value(x) === 1 && value(y) === 0;
      if (filter === 'bOnly') return value(x) === 0 && value(y) === 1;
      return true;
    };
    const matching: number[] = [];
    pairs.forEach(([x, y], i) => keep(x, y) && matching.push(i));
    const from = Math.max(0, Math.trunc(offset));
    const rows: PairRow[] = matching.slice(from, from + Math.min(Math.max(0, Math.trunc(limit)), PAGE_LIMIT)).map((i) => {
      const [x, y] = pairs[i]!;
      return {
        index: i,
        docIdA: x.docId,
        docIdB: y.docId,
        promptDiffers: promptChanged(x, y),
        responseDiffers: responsesDiffer(x, y),
        responseA: shownResponse(x),
        responseB: shownResponse(y),
        scoreA: value(x),
        scoreB: value(y),
      };
    });
    return { total: pairs.length, matching: matching.length, offset: from, score: chosen, rows };
  }

  async pair(k: CompareKey, comparison: number, task: number, index: number) {
    const pairs = await this.pairs(k, comparison, task);
    const pair = pairs[index];
    if (pair === undefined) throw new ViewRequestError(`no aligned pair ${index} (there are ${pairs.length})`);
    const [x, y] = pair;
    const segments = diffChars(x.prompt ?? '', y.prompt ?? '').map((part) => ({ text: part.value, side: part.added ? 'b' : part.removed ? 'a' : 'both' }));
    const side = (d: DocRecord) => ({
      docId: d.docId,
      target: d.target,
      responses: d.responses.map((r) => ({ request_idx: r.requestIdx, repeat: r.repeat, text: r.text, logprob: r.logprob })),
      scores: Object.fromEntries(d.scores),
    });
    return { index, a: side(x), b: side(y), promptDiffers: promptChanged(x, y), segments };
  }
}

function shownResponse(d: DocRecord): string {
  const text = d.responses.map((r) => r.text ?? (r.logprob !== null ? String(r.logprob) : '')).join(' | ');
  return text.length > SHOWN_CHARS ? `${text.slice(0, SHOWN_CHARS)}…` : text;
}
