/**
 * A backend wrapped so that a grid's cells share its answers: a request identical to one an earlier
 * cell sent (same type, same arguments, same generation settings and seed) is answered with the
 * stored result instead of a model call. Such results are marked, so the recorded response says
 * `from_cache` (schedule.ts), and the wrapper counts what it sent and what it shared.
 */
import type { GenerateRequest, LanguageModel, LoglikelihoodRequest, RollingRequest } from '../models/lm.ts';
import { isReplayedAnswer } from '../models/replay.ts';

/** Results answered from an earlier identical request (object identity: a fresh copy per answer). */
const SHARED = new WeakSet<object>();

/** Also true of an answer the replay backend read from a store: neither reached a model. */
export function isSharedAnswer(result: object): boolean {
  return SHARED.has(result) || isReplayedAnswer(result);
}

export interface SharingModel extends LanguageModel {
  readonly counts: { sent: number; shared: number };
}

/** Wraps `lm`; `close` is the caller's (the grid closes the backend once, after every cell). */
export function shareAnswers(lm: LanguageModel): SharingModel {
  const answers = new Map<string, object>();
  const counts = { sent: 0, shared: 0 };
  async function through<Q, R extends object>(type: string, requests: readonly Q[], call: (qs: readonly Q[]) => Promise<R[]>): Promise<R[]> {
    const keys = requests.map((q) => JSON.stringify([type, q]));
    const missing = [...new Set(keys.filter((k) => !answers.has(k)))];
    const byKey = new Map(missing.map((k) => [k, requests[keys.indexOf(k)]!]));
    if (missing.length > 0) {
      const results = await call(missing.map((k) => byKey.get(k)!));
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
    loglikelihood: (qs: readonly LoglikelihoodRequest[]) => through('loglikelihood', qs, (x) => lm.loglikelihood(x)),
    loglikelihoodRolling: (qs: readonly RollingRequest[]) => through('loglikelihood_rolling', qs, (x) => lm.loglikelihoodRolling(x)),
    generateUntil: (qs: readonly GenerateRequest[]) => through('generate_until', qs, (x) => lm.generateUntil(x)),
    ...(lm.checkGeneration ? { checkGeneration: (s: Parameters<NonNullable<LanguageModel['checkGeneration']>>[0]) => lm.checkGeneration!(s) } : {}),
    ...(lm.counters ? { counters: () => lm.counters!() } : {}),
    close: async () => undefined,
  };
}
