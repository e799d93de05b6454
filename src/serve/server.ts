/**
 * `lmaudit serve`: an OpenAI-compatible HTTP server over one open backend, speaking vLLM's dialect
 * (GET /v1/models, /tokenizer_info, POST /v1/completions, /v1/chat/completions, /tokenize, /detokenize), with
 * seeded fault injection on the two generation endpoints and its counters at GET /lmaudit/faults
 * (and the backend queue's at GET /lmaudit/stats: calls made, requests and prompts they carried).
 * Requests go through one BackendQueue: one backend call at a time, concurrent requests batched.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { LanguageModel } from '../models/lm.ts';
import { BackendQueue, type QueueStats } from './backendQueue.ts';
import { chatCompletion, detokenize, tokenize, tokenizerInfo } from './chat.ts';
import { completion } from './completions.ts';
import { FaultSchedule, type Fault, type FaultReport, type FaultSpec } from './faults.ts';
import { ApiError, errorBody, parseJsonBody, readBody, sendError, sendJson } from './http.ts';

export interface ServeOptions {
  model: LanguageModel;
  /** The id /v1/models lists and requests must name (a request without `model` is served too, as vLLM does). */
  modelName: string;
  host?: string;
  /** 0: any free port. */
  port?: number;
  faults?: FaultSpec | null;
  /**
   * Added to every reply of the generation endpoints (the API bench's fixed-latency server): a timer per request,
   * started once its body is read, before the answer is made; so a reply leaves delayMs plus the answer's time after
   * its request arrived, whatever else is in flight.
   */
  delayMs?: number;
  /** Rows (prompts) one backend call may carry. */
  maxBatchRows?: number;
  /** Close the model when the server closes. */
  closeModel?: boolean;
}

export interface RunningServer {
  url: string;
  faults(): FaultReport;
  queueStats(): QueueStats;
  /** Requests waiting their `delayMs` now, and the most that ever waited at the same time (delays overlap when > 1). */
  delays(): { waiting: number; mostAtOnce: number };
  close(): Promise<void>;
}

const GENERATION_PATHS = new Set(['/v1/completions', '/v1/chat/completions']);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function startServer(options: ServeOptions): Promise<RunningServer> {
  const { model, modelName } = options;
  const queue = new BackendQueue(model, options.maxBatchRows ?? 64);
  const schedule = new FaultSchedule(options.faults ?? null);
  const delayMs = options.delayMs ?? 0;
  const created = Math.floor(Date.now() / 1000);
  const sockets = new Set<Socket>();
  const slowTimers = new Set<NodeJS.Timeout>();
  const delays = { waiting: 0, mostAtOnce: 0 };

  const checkModel = (body: Record<string, unknown>) => {
    if (body.model !== undefined && body.model !== null && body.model !== modelName) throw new ApiError(404, `The model \`${String(body.model)}\` does not exist.`);
  };

  async function generation(req: IncomingMessage, res: ServerResponse, path: string): Promise<void> {
    // The draw happens on arrival, before the body is read, so the schedule follows arrival order only.
    const draw = schedule.draw();
    const text = await readBody(req);
    let body: Record<string, unknown> | null = null;
    try {
      body = parseJsonBody(text);
    } catch {
      // A body that is not JSON can still be faulted; without a fault it gets its 400 below.
    }
    const fault = schedule.decide(draw, path, path === '/v1/completions' && body?.echo === true);
    if (delayMs > 0) {
      delays.waiting++;
      delays.mostAtOnce = Math.max(delays.mostAtOnce, delays.waiting);
      try {
        await sleep(delayMs);
      } finally {
        delays.waiting--;
      }
    }
    if (fault !== null && fault.kind !== 'wrong_echo') return injectFault(res, fault);
    if (body === null) body = parseJsonBody(text);
    checkModel(body);
    const answer = path === '/v1/completions'
      ? await completion(body, model, queue, { modelName, wrongEcho: fault?.kind === 'wrong_echo' })
      : await chatCompletion(body, model, queue, modelName);
    sendJson(res, 200, answer);
  }

  function injectFault(res: ServerResponse, fault: Fault): void {
    const spec = options.faults!;
    const says = `lmaudit serve: injected fault '${fault.kind}' (request ${fault.seq})`;
    switch (fault.kind) {
      case '429': {
        const retryAfter = fault.retryAfterDate ? new Date(Math.ceil(Date.now() / 1000 + spec.retryAfterSeconds) * 1000).toUTCString() : String(spec.retryAfterSeconds);
        return sendJson(res, 429, errorBody(429, `${says}: rate limited, retry after ${retryAfter}`, 'RateLimitError'), { 'retry-after': retryAfter });
      }
      case '500':
        return sendJson(res, 500, errorBody(500, says, 'InternalServerError'));
      case '503':
        return sendJson(res, 503, errorBody(503, says, 'ServiceUnavailableError'));
      case 'reset':
        res.socket?.destroy();
        return;
      case 'slow': {
        const timer = setTimeout(() => {
          slowTimers.delete(timer);
          if (!res.destroyed) sendJson(res, 504, errorBody(504, `${says}: answered after ${spec.slowMs} ms without a result`, 'GatewayTimeoutError'));
        }, spec.slowMs);
        slowTimers.add(timer);
        return;
      }
      case 'malformed': {
        const bad = `{"id": "cmpl-fault-${fault.seq}", "object": "text_completion", "choices": [}`;
        return sendJson(res, 200, bad);
      }
      case 'truncated': {
        const whole = JSON.stringify({ id: `cmpl-fault-${fault.seq}`, object: 'text_completion', created, model: modelName, choices: [{ index: 0, text: says, logprobs: null, finish_reason: 'length' }] });
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(whole)) });
        res.write(whole.slice(0, Math.floor(whole.length / 2)), () => res.socket?.destroy());
        return;
      }
      case 'wrong_echo':
        throw new Error('wrong_echo is answered by the completion handler');
    }
  }

  async function route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? '/').split('?')[0]!;
    if (req.method === 'POST' && GENERATION_PATHS.has(path)) return generation(req, res, path);
    if (req.method === 'GET' && path === '/v1/models') {
      return sendJson(res, 200, {
        object: 'list',
        data: [{ id: modelName, object: 'model', created, owned_by: 'lmaudit', root: modelName, parent: null, max_model_len: model.capabilities.maxLength, permission: [] }],
      });
    }
    if (req.method === 'GET' && path === '/lmaudit/faults') return sendJson(res, 200, schedule.report());
    if (req.method === 'GET' && path === '/lmaudit/stats') return sendJson(res, 200, queue.stats);
    if (req.method === 'GET' && path === '/tokenizer_info') return sendJson(res, 200, tokenizerInfo(model));
    if (req.method === 'GET' && (path === '/health' || path === '/ping')) return sendJson(res, 200, {});
    if (req.method === 'POST' && (path === '/tokenize' || path === '/detokenize')) {
      const body = parseJsonBody(await readBody(req));
      checkModel(body);
      return sendJson(res, 200, path === '/tokenize' ? tokenize(body, model) : detokenize(body, model));
    }
    throw new ApiError(404, `no route ${req.method} ${path} (served: GET /v1/models, POST /v1/completions, POST /v1/chat/completions, POST /tokenize, POST /detokenize, GET /tokenizer_info, GET /lmaudit/faults, GET /lmaudit/stats)`);
  }

  const server = createServer((req, res) => {
    route(req, res).catch((error: unknown) => {
      if (res.headersSent || res.destroyed) return;
      if (error instanceof ApiError) return sendError(res, error);
      // A backend failure or a bug: the client gets a 500 with the reason, the server keeps serving.
      sendError(res, new ApiError(500, `lmaudit serve: ${(error as Error)?.message ?? String(error)}`, 'InternalServerError'));
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => resolve());
  });
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  let closing: Promise<void> | null = null;
  return {
    url: `http://${host}:${address.port}`,
    faults: () => schedule.report(),
    queueStats: () => ({ ...queue.stats }),
    delays: () => ({ ...delays }),
    close() {
      closing ??= (async () => {
        for (const timer of slowTimers) clearTimeout(timer);
        await new Promise<void>((resolve) => {
          server.close(() => resolve());
          for (const socket of sockets) socket.destroy();
        });
        if (options.closeModel) await model.close();
      })();
      return closing;
    },
  };
}
