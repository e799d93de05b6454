/**
 * The one HTTP layer of the API backends: JSON POSTs over keep-alive sockets (node:http, one
 * agent with a socket per concurrent request; fetch/undici costs about twice the CPU per request
 * here), at most `numConcurrent` in flight, request starts spaced by a requests-per-minute limit,
 * a timeout per attempt, and retries with exponential backoff and jitter on 408/409/429/5xx,
 * timeouts, connection resets and malformed or truncated bodies, honouring Retry-After (seconds or
 * HTTP date). Any other 4xx is final. Every failed attempt, and a seeded sample of the rest, is
 * kept as an exchange (request body and raw response; headers, where the keys are, never).
 */
import http from 'node:http';
import https from 'node:https';
import { createHash } from 'node:crypto';
import type { ApiExchange } from '../../store/schema.ts';

export interface HttpSettings {
  numConcurrent: number;
  /** null: no limit. */
  requestsPerMinute: number | null;
  timeoutMs: number;
  /** Attempts in all (lm-eval's max_retries counts attempts too: 3 means three tries). */
  maxAttempts: number;
  /** First backoff; doubled per retry, capped at maxBackoffMs, times a jitter in [0.75, 1]. */
  backoffMs: number;
  maxBackoffMs: number;
  /** Longest Retry-After honoured; a longer one waits this long. */
  maxRetryAfterMs: number;
  /** Fraction of successful exchanges kept (errors are always kept), chosen by a seeded hash of the body. */
  recordSample: number;
  recordSeed: string;
}

/** What a caller's parser says about a 200 body it cannot use: retried like a truncated body. */
export class MalformedResponse extends Error {}

/** A request that failed for good: final status, or attempts exhausted. The message never holds a header. */
export class ApiRequestFailed extends Error {
  constructor(
    message: string,
    readonly status: number | null,
    readonly attempts: number,
    readonly retryable: boolean,
    readonly body: string | null,
  ) {
    super(message);
  }
}

export interface PostResult<T> {
  value: T;
  attempts: number;
  /** Of the attempt that succeeded. */
  latencyMs: number;
}

interface RawReply {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

const RETRYABLE_STATUS = (s: number): boolean => s === 408 || s === 409 || s === 429 || s >= 500;

export class HttpClient {
  private readonly agent: http.Agent;
  private inFlight = 0;
  private readonly waiting: Array<() => void> = [];
  private nextStart = 0;
  /** A 429/503 Retry-After pauses every request, not only the one that got it. */
  private pausedUntil = 0;
  private readonly exchanges: ApiExchange[] = [];
  private sequence = 0;

  constructor(
    private readonly origin: URL,
    private readonly headers: Readonly<Record<string, string>>,
    readonly settings: HttpSettings,
  ) {
    const Agent = origin.protocol === 'https:' ? https.Agent : http.Agent;
    this.agent = new Agent({ keepAlive: true, maxSockets: settings.numConcurrent, maxFreeSockets: settings.numConcurrent });
  }

  /** The exchanges kept since the last call (the runner stores them with the batch). */
  drainExchanges(): ApiExchange[] {
    return this.exchanges.splice(0, this.exchanges.length);
  }

  /** GET for the checks before a run (no retries beyond one connection attempt; the caller words the error). */
  async get(path: string): Promise<RawReply> {
    return this.send('GET', path, null, this.settings.timeoutMs);
  }

  /**
   * POSTs `body` as JSON and hands the parsed 2xx body to `parse`, which returns the value or
   * throws MalformedResponse (retried). `item` names the request in the exchanges it leaves.
   * `onFinal4xx` may turn a final 4xx into a changed body to send instead (max_tokens 0 → 1).
   */
  async post<T>(path: string, body: unknown, parse: (json: unknown) => T, item: ExchangeItem, onFinal4xx?: (status: number, text: string) => unknown | null): Promise<PostResult<T>> {
    const s = this.settings;
    let payload = body;
    let text = JSON.stringify(payload);
    let lastError = '';
    let lastStatus: number | null = null;
    let lastBody: string | null = null;
    for (let attempt = 1; attempt <= s.maxAttempts; attempt++) {
      await this.acquire();
      const t0 = performance.now();
      let reply: RawReply | null = null;
      let failure: string | null = null;
      let waitMs: number | null = null;
      try {
        reply = await this.send('POST', path, text, s.timeoutMs);
      } catch (error) {
        failure = (error as Error).message;
      } finally {
        this.release();
      }
      const latencyMs = performance.now() - t0;
      if (reply !== null && reply.status >= 200 && reply.status < 300) {
        try {
          const value = parse(JSON.parse(reply.body));
          if (attempt > 1 || this.sampled(text)) this.keep(item, payload, reply, attempt, latencyMs, null);
          return { value, attempts: attempt, latencyMs };
        } catch (error) {
          if (!(error instanceof MalformedResponse) && !(error instanceof SyntaxError)) throw error;
          failure = `malformed response body (${(error as Error).message})`;
        }
      } else if (reply !== null) {
        failure = `HTTP ${reply.status}${errorDetail(reply.body)}`;
        if (!RETRYABLE_STATUS(reply.status)) {
          this.keep(item, payload, reply, attempt, latencyMs, failure);
          const replacement = onFinal4xx?.(reply.status, reply.body) ?? null;
          if (replacement !== null) {
            payload = replacement;
            text = JSON.stringify(payload);
            attempt--;
            onFinal4xx = undefined;
            continue;
          }
          throw new ApiRequestFailed(`${path}: ${failure}`, reply.status, attempt, false, reply.body);
        }
        waitMs = retryAfterMs(reply.headers['retry-after'], Date.now());
      }
      lastError = failure!;
      lastStatus = reply?.status ?? null;
      lastBody = reply?.body ?? null;
      this.keep(item, payload, reply, attempt, latencyMs, failure);
      if (attempt === s.maxAttempts) break;
      const backoff = Math.min(s.maxBackoffMs, s.backoffMs * 2 ** (attempt - 1)) * (0.75 + 0.25 * Math.random());
      const wait = waitMs === null ? backoff : Math.min(waitMs, s.maxRetryAfterMs);
      if (waitMs !== null) this.pausedUntil = Math.max(this.pausedUntil, Date.now() + wait);
      await sleep(wait);
    }
    throw new ApiRequestFailed(`${path}: ${lastError} (gave up after ${s.maxAttempts} attempt${s.maxAttempts === 1 ? '' : 's'})`, lastStatus, s.maxAttempts, true, lastBody);
  }

  close(): void {
    this.agent.destroy();
  }

  private sampled(text: string): boolean {
    const r = this.settings.recordSample;
    if (r <= 0) return false;
    if (r >= 1) return true;
    // One update of the joined bytes: the same digest as three updates, for less work per request.
    return createHash('sha256').update(`${this.settings.recordSeed}\u0000${text}`).digest().readUInt32BE(0) / 2 ** 32 < r;
  }

  private keep(item: ExchangeItem, body: unknown, reply: RawReply | null, attempt: number, latencyMs: number, error: string | null): void {
    this.exchanges.push({
      seq: ++this.sequence, item: item.index, window: item.window ?? 0, endpoint: item.endpoint, attempt, status: reply?.status ?? null, latency_ms: latencyMs,
      error, request: body, response: reply?.body ?? null, at: new Date().toISOString(),
    });
  }

  private async acquire(): Promise<void> {
    if (this.inFlight >= this.settings.numConcurrent) await new Promise<void>((resolve) => this.waiting.push(resolve));
    this.inFlight++;
    const now = Date.now();
    let start = Math.max(now, this.pausedUntil);
    const rpm = this.settings.requestsPerMinute;
    if (rpm !== null) {
      start = Math.max(start, this.nextStart);
      this.nextStart = start + 60_000 / rpm;
    }
    if (start > now) await sleep(start - now);
  }

  private release(): void {
    this.inFlight--;
    this.waiting.shift()?.();
  }

  private readonly urls = new Map<string, URL>();

  private send(method: 'GET' | 'POST', path: string, body: string | null, timeoutMs: number): Promise<RawReply> {
    let url = this.urls.get(path);
    if (url === undefined) this.urls.set(path, (url = new URL(path, this.origin)));
    const lib = url.protocol === 'https:' ? https : http;
    return new Promise((resolve, reject) => {
      const headers: Record<string, string | number> = { ...this.headers, accept: 'application/json' };
      if (body !== null) {
        headers['content-type'] = 'application/json';
        headers['content-length'] = Buffer.byteLength(body);
      }
      const req = lib.request(url, { method, agent: this.agent, headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('aborted', () => reject(new Error('connection closed before the body ended')));
        res.on('error', (e) => reject(new Error(`response error (${e.message})`)));
        res.on('end', () => {
          if (!res.complete) return reject(new Error('truncated response body'));
          const text = Buffer.concat(chunks).toString('utf8');
          const declared = res.headers['content-length'];
          if (declared !== undefined && Buffer.byteLength(text) !== Number(declared)) return reject(new Error('truncated response body'));
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text });
        });
      });
      req.setTimeout(timeoutMs, () => req.destroy(new Error(`no reply within ${timeoutMs} ms (timeout)`)));
      req.on('error', (e: NodeJS.ErrnoException) => reject(new Error(e.code ? `${e.code} (${e.message})` : e.message)));
      req.end(body ?? undefined);
    });
  }
}

export interface ExchangeItem {
  /** Position of the request in the batch the backend was handed. */
  index: number;
  /** Window of a rolling request (0 otherwise). */
  window?: number;
  endpoint: string;
}

/** RFC 9110 Retry-After: delta-seconds or an HTTP-date; null when absent or unreadable. */
export function retryAfterMs(value: string | string[] | undefined, nowMs: number): number | null {
  const v = Array.isArray(value) ? value[0] : value;
  if (v === undefined || v.trim() === '') return null;
  if (/^\s*\d+(\.\d+)?\s*$/.test(v)) return Number(v) * 1000;
  const at = Date.parse(v);
  return Number.isNaN(at) ? null : Math.max(0, at - nowMs);
}

/** The server's own words from an error body (OpenAI's and Anthropic's `error.message`), short. */
function errorDetail(body: string): string {
  try {
    const j = JSON.parse(body) as { error?: { message?: unknown } | string; message?: unknown; detail?: unknown };
    const m = typeof j.error === 'string' ? j.error : (j.error?.message ?? j.message ?? j.detail);
    if (typeof m === 'string' && m !== '') return `: ${m.slice(0, 300)}`;
    return '';
  } catch {
    // not JSON: an HTML error page or a proxy's text
  }
  const t = body.trim();
  return t === '' ? '' : `: ${t.slice(0, 120).replace(/\s+/g, ' ')}`;
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, Math.max(0, ms)));
