/**
 * The HTTP pieces `lmaudit serve` shares: errors in OpenAI's shape (`{"error": {"message", "type",
 * "code"}}`, the types vLLM uses), JSON replies and reading a request body, and the small field
 * readers that turn a request body into typed values, each failure naming the field (HTTP 400).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

/** A request the server refuses: the status and OpenAI error type vLLM sends for it. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly type: string = status === 404 ? 'NotFoundError' : 'BadRequestError',
    readonly param: string | null = null,
  ) {
    super(message);
  }
}

export const badRequest = (message: string, param: string | null = null): ApiError => new ApiError(400, message, 'BadRequestError', param);

export function errorBody(status: number, message: string, type: string, param: string | null = null): string {
  return JSON.stringify({ error: { message, type, param, code: status } });
}

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(text)), ...headers });
  res.end(text);
}

export function sendError(res: ServerResponse, error: ApiError): void {
  sendJson(res, error.status, errorBody(error.status, error.message, error.type, error.param));
}

/** The whole body; at most `limit` bytes (a larger one is refused with 413, as servers do). */
export function readBody(req: IncomingMessage, limit = 64 * 1024 * 1024): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        reject(new ApiError(413, `request body over ${limit} bytes`, 'BadRequestError'));
        req.destroy();
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

export function parseJsonBody(text: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw badRequest(`the request body is not JSON (${(error as Error).message})`);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw badRequest('the request body must be a JSON object');
  return value as Record<string, unknown>;
}

// ---- field readers: absent and null give the fallback, as OpenAI's optional fields read

type Body = Record<string, unknown>;

export function intField(body: Body, key: string, fallback: number, min: number, max = Number.MAX_SAFE_INTEGER): number {
  const v = body[key];
  if (v === undefined || v === null) return fallback;
  if (typeof v !== 'number' || !Number.isInteger(v)) throw badRequest(`${key} must be an integer, got ${JSON.stringify(v)}`, key);
  if (v < min || v > max) throw badRequest(`${key} must be ${max === Number.MAX_SAFE_INTEGER ? `at least ${min}` : `between ${min} and ${max}`}, got ${v}`, key);
  return v;
}

export function optionalInt(body: Body, key: string, min: number, max = Number.MAX_SAFE_INTEGER): number | null {
  const v = body[key];
  return v === undefined || v === null ? null : intField(body, key, 0, min, max);
}

export function numberField(body: Body, key: string, fallback: number, min: number, max: number): number {
  const v = body[key];
  if (v === undefined || v === null) return fallback;
  if (typeof v !== 'number' || !Number.isFinite(v)) throw badRequest(`${key} must be a number, got ${JSON.stringify(v)}`, key);
  if (v < min || v > max) throw badRequest(`${key} must be between ${min} and ${max}, got ${v}`, key);
  return v;
}

export function boolField(body: Body, key: string, fallback: boolean): boolean {
  const v = body[key];
  if (v === undefined || v === null) return fallback;
  if (typeof v !== 'boolean') throw badRequest(`${key} must be true or false, got ${JSON.stringify(v)}`, key);
  return v;
}

/** `stop`: a string or a list of strings (OpenAI allows up to 4; vLLM any number, and so does this server). */
export function stopField(body: Body): string[] {
  const v = body.stop;
  if (v === undefined || v === null) return [];
  if (typeof v === 'string') return [v];
  if (Array.isArray(v) && v.every((s) => typeof s === 'string')) return v as string[];
  throw badRequest(`stop must be a string or a list of strings, got ${JSON.stringify(v)}`, 'stop');
}

/** Fields this server does not serve: refused by name rather than ignored. */
export function refuseUnsupported(body: Body): void {
  const n = body.n;
  if (n !== undefined && n !== null && n !== 1) throw badRequest(`n must be 1 (this server returns one choice per prompt), got ${JSON.stringify(n)}`, 'n');
  if (body.best_of !== undefined && body.best_of !== null && body.best_of !== 1) throw badRequest('best_of is not served (only 1)', 'best_of');
  if (body.stream === true) throw badRequest('stream is not served: send stream false or leave it out', 'stream');
}
