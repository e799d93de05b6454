/**
 * Seeded fault injection for `lmaudit serve --faults`. Each request to a generation endpoint
 * (/v1/completions, /v1/chat/completions) draws, on arrival and in arrival order, whether it is
 * faulted and which way; a retry is a new request and draws again. The schedule is a pure
 * function of the seed and the arrival order — concurrent clients make that order (not the
 * schedule) nondeterministic, so `every=N` offers a schedule that needs no PRNG for tests.
 *
 * Spec: `rate=0.3,seed=7,kinds=429,500,503,reset,slow,malformed,truncated,wrong_echo` or
 * `every=3,kinds=429,500` (every third request faulted, the kinds in turn), plus `retry_after=S`
 * (429's Retry-After, in seconds; about half the 429s send it as an HTTP date instead) and `slow_ms=N`.
 */
import { BadInputError, didYouMean } from '../errors.ts';

export const FAULT_KINDS = ['429', '500', '503', 'reset', 'slow', 'malformed', 'truncated', 'wrong_echo'] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

export const FAULT_HELP = [
  '429: HTTP 429 with Retry-After (seconds, or an HTTP date)',
  '500 / 503: the error status with an OpenAI error body',
  'reset: the connection destroyed after the request is read, before any reply',
  'slow: after slow_ms, a 504 error (never the answer), for clients whose timeout is shorter',
  'malformed: 200 with a body that is not JSON',
  'truncated: 200 whose Content-Length exceeds the bytes sent before the connection closes',
  'wrong_echo: /v1/completions with echo only: the echo of the prompt with the prefix token prepended (as a server adding BOS)',
].join('; ');

export interface FaultSpec {
  rate: number;
  seed: number;
  kinds: FaultKind[];
  /** Deterministic mode: every N-th request is faulted, the kinds taken in turn (null: the seeded rate). */
  every: number | null;
  retryAfterSeconds: number;
  slowMs: number;
}

const KEYS = ['rate', 'seed', 'kinds', 'every', 'retry_after', 'slow_ms'];

/** Items split on commas; an item without `=` continues the list of the key before it (`kinds=429,500`). */
export function parseFaultSpec(text: string): FaultSpec {
  const values = new Map<string, string[]>();
  let last: string | null = null;
  for (const item of text.split(',').map((s) => s.trim()).filter(Boolean)) {
    const cut = item.indexOf('=');
    if (cut < 0) {
      if (last === null) throw new BadInputError(`--faults: expected key=value, got '${item}' (keys: ${KEYS.join(', ')})`);
      values.get(last)!.push(item);
      continue;
    }
    const key = item.slice(0, cut);
    if (!KEYS.includes(key)) throw new BadInputError(`--faults: unknown key '${key}' (keys: ${KEYS.join(', ')}).${didYouMean(key, KEYS)}`);
    last = key;
    values.set(key, [item.slice(cut + 1)]);
  }
  const one = (key: string): string | undefined => {
    const v = values.get(key);
    if (v !== undefined && v.length !== 1) throw new BadInputError(`--faults: ${key} takes one value, got ${v.join(',')}`);
    return v?.[0];
  };
  const num = (key: string, fallback: number, ok: (n: number) => boolean, what: string): number => {
    const v = one(key);
    if (v === undefined) return fallback;
    const n = Number(v);
    if (v.trim() === '' || !Number.isFinite(n) || !ok(n)) throw new BadInputError(`--faults: ${key} must be ${what}, got '${v}'`);
    return n;
  };
  const kinds = (values.get('kinds') ?? [...FAULT_KINDS]).map((k) => {
    if (!(FAULT_KINDS as readonly string[]).includes(k)) throw new BadInputError(`--faults: unknown fault kind '${k}' (kinds: ${FAULT_KINDS.join(', ')}).${didYouMean(k, FAULT_KINDS)}`);
    return k as FaultKind;
  });
  if (kinds.length === 0) throw new BadInputError('--faults: kinds is empty');
  const every = values.has('every') ? num('every', 0, (n) => Number.isInteger(n) && n >= 1, 'a positive integer') : null;
  if (every !== null && values.has('rate')) throw new BadInputError('--faults: give rate (seeded) or every (deterministic), not both');
  return {
    rate: num('rate', every === null ? 0.3 : 0, (n) => n >= 0 && n <= 1, 'a number from 0 to 1'),
    seed: num('seed', 0, (n) => Number.isInteger(n) && n >= 0 && n < 2 ** 32, 'an integer from 0 to 2^32−1'),
    kinds: [...new Set(kinds)],
    every,
    retryAfterSeconds: num('retry_after', 1, (n) => Number.isInteger(n) && n >= 0, 'a whole number of seconds'),
    slowMs: num('slow_ms', 30_000, (n) => Number.isInteger(n) && n >= 0, 'a whole number of milliseconds'),
  };
}

/** splitmix32: a stated, small, reproducible stream. */
function splitmix32(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x9e3779b9) >>> 0;
    let z = s;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
    return ((z ^ (z >>> 16)) >>> 0) / 4294967296;
  };
}

/** What one request drew on arrival: three numbers, always, so later requests' draws do not depend on this one's body. */
export interface FaultDraw {
  seq: number;
  hit: number;
  pick: number;
  form: number;
}

export interface Fault {
  kind: FaultKind;
  seq: number;
  /** 429 only: send Retry-After as an HTTP date instead of seconds. */
  retryAfterDate: boolean;
}

export interface FaultReport {
  spec: FaultSpec | null;
  /** Requests to the generation endpoints seen so far (each draws once). */
  requests: number;
  faulted: number;
  by_kind: Record<FaultKind, number>;
  /** The injected faults in arrival order (the first LOG_LIMIT): the request's arrival number (from 1), its path and the kind. */
  log: Array<{ seq: number; path: string; kind: FaultKind }>;
  /** Faults past LOG_LIMIT, counted in by_kind but not logged (a long chaos run keeps bounded memory). */
  log_dropped: number;
}

const LOG_LIMIT = 100_000;

export class FaultSchedule {
  private readonly next: () => number;
  private seq = 0;
  private faultCount = 0;
  private readonly counts = Object.fromEntries(FAULT_KINDS.map((k) => [k, 0])) as Record<FaultKind, number>;
  private readonly log: FaultReport['log'] = [];

  constructor(readonly spec: FaultSpec | null) {
    this.next = splitmix32(spec?.seed ?? 0);
  }

  /** Called once per request to a generation endpoint, synchronously on arrival. */
  draw(): FaultDraw {
    return { seq: ++this.seq, hit: this.next(), pick: this.next(), form: this.next() };
  }

  /**
   * The fault for a drawn request, among the kinds that apply to it (wrong_echo needs an echoed
   * completion); null when it is not faulted or no configured kind applies. Counted here.
   */
  decide(draw: FaultDraw, path: string, echoes: boolean): Fault | null {
    const spec = this.spec;
    if (spec === null) return null;
    const applicable = spec.kinds.filter((k) => k !== 'wrong_echo' || echoes);
    if (applicable.length === 0) return null;
    let kind: FaultKind;
    if (spec.every !== null) {
      if (draw.seq % spec.every !== 0) return null;
      // The kinds in turn by the fault's number; one that does not apply to this request gives way to the next that does.
      const turn = (draw.seq / spec.every - 1) % spec.kinds.length;
      kind = [...spec.kinds.slice(turn), ...spec.kinds.slice(0, turn)].find((k) => applicable.includes(k))!;
    } else {
      if (!(draw.hit < spec.rate)) return null;
      kind = applicable[Math.floor(draw.pick * applicable.length)]!;
    }
    this.faultCount++;
    this.counts[kind]++;
    if (this.log.length < LOG_LIMIT) this.log.push({ seq: draw.seq, path, kind });
    // Retry-After's two forms: drawn in rate mode; in every=N mode every second 429 sends the date.
    return { kind, seq: draw.seq, retryAfterDate: kind === '429' && (spec.every === null ? draw.form < 0.5 : this.counts['429'] % 2 === 0) };
  }

  report(): FaultReport {
    return { spec: this.spec, requests: this.seq, faulted: this.faultCount, by_kind: { ...this.counts }, log: [...this.log], log_dropped: this.faultCount - this.log.length };
  }
}
