/**
 * A backend wrapped so that a grid's cells share its answers: a request identical to one an earlier
 * cell sent (same type, same arguments, same generation settings and seed) is answered with the
 * stored result instead of a model call. Such results are marked, so the recorded response says
 * `from_cache` (schedule.ts), and the wrapper counts what it sent and what it shared. A resumed
 * grid also hands it the answers its earlier session stored (a replay over those cells' stores), so
 * that a request an interrupted cell already had answered is shared, as it would have been then.
 */
import type { GenerateRequest, LanguageModel, LoglikelihoodRequest, RollingRequest } from '../models/lm.ts';
import { isReplayedAnswer, replaySource, type ReplayRequest } from '../models/replay.ts';

/** Results answered from an earlier identical request (object identity: a fresh copy per answer). */
const SHARED = new WeakSet<object>();

/** Also true of an answer the replay backend read from a store: neither reached a model. */
export function isSharedAnswer(result: object): boolean {
  return SHARED.has(result) || isReplayedAnswer(result);
}

export interface SharingModel extends LanguageModel {
  readonly counts: { sent: number; shared: number };
}

type Method = 'loglikelihood' | 'loglikelihoodRolling' | 'generateUntil';
const TYPES: Record<Method, ReplayRequest['requestType']> = { loglikelihood: 'loglikelihood', loglikelihoodRolling: 'loglikelihood_rolling', generateUntil: 'generate_until' };

/**
 * Wraps `lm`; `close` is the caller's (the grid closes the backend once, after every cell). `prior`
 * (a replay backend) answers first what it holds: counted as shared, recorded as from_cache.
 */
export function shareAnswers(lm: LanguageModel, prior?: LanguageModel): SharingModel {
  const answers = new Map<string, object>();
  const counts = { sent: 0, shared: 0 };
  const held = prior === undefined ? undefined : replaySource(prior);
  async function through<Q, R extends object>(method: Method, requests: readonly Q[]): Promise<R[]> {
    const type = TYPES[method];
    const call = (from: LanguageModel, qs: readonly Q[]) => (from[method] as unknown as (x: readonly Q[]) => Promise<R[]>).call(from, qs);
    const keys = requests.map((q) => JSON.stringify([type, q]));
    let missing = [...new Set(keys.filter((k) => !answers.has(k)))];
    const byKey = new Map(missing.map((k) => [k, requests[keys.indexOf(k)]!]));
    if (held !== undefined && missing.length > 0) {
      const unheld = new Set(held.missing(missing.map((k) => ({ requestType: type, request: byKey.get(k) }) as unknown as ReplayRequest)).map((i) => missing[i]!));
      const stored = missing.filter((k) => !unheld.has(k));
      if (stored.length > 0) {
        const results = await call(prior!, stored.map((k) => byKey.get(k)!));
        stored.forEach((k, i) => answers.set(k, results[i]!));
      }
      missing = missing.filter((k) => unheld.has(k));
    }
    if (missing.length > 0) {
      const results = await call(lm, missing.map((k) => byKey.get(k)!));
      missing.forEach((k, i) => answers.set(k, results[i]!));
    }
    const fresh = new Set(missing);
    return keys.map((k) => {
      const r = answers.get(k)! as R;
      if (fresh.delete(k)) {
        counts.sent++;
        return r;
      }
      counts.shared++;
      const copy = { ...r };
      SHARED.add(copy);
      return copy;
    });
  }
  return {
    counts,
    capabilities: lm.capabilities,
    describe: () => lm.describe(),
    loglikelihood: (qs: readonly LoglikelihoodRequest[]) => through('loglikelihood', qs),
    loglikelihoodRolling: (qs: readonly RollingRequest[]) => through('loglikelihoodRolling', qs),
    generateUntil: (qs: readonly GenerateRequest[]) => through('generateUntil', qs),
    ...(lm.checkGeneration ? { checkGeneration: (s: Parameters<NonNullable<LanguageModel['checkGeneration']>>[0]) => lm.checkGeneration!(s) } : {}),
    ...(lm.counters ? { counters: () => lm.counters!() } : {}),
    close: async () => undefined,
  };
}
