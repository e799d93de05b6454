/**
 * Local OpenAI/Anthropic-style servers for the API backend tests (127.0.0.1, port 0): each
 * request's method, path, headers and parsed body are kept; a handler answers it (or misbehaves:
 * resets the socket, stalls, truncates). Never touches the network.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { cliArgs } from '../../helpers/cli.ts';

export interface Seen {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: unknown;
}

export type Reply =
  | { status?: number; json?: unknown; text?: string; headers?: Record<string, string> }
  | { reset: true }
  | { stallMs: number; then?: Reply }
  | { truncate: string };

export type Handler = (req: Seen, n: number) => Reply | Promise<Reply>;

export interface MockServer {
  url: string;
  seen: Seen[];
  close(): Promise<void>;
}

export async function startMock(handler: Handler, models: string[] = ['m']): Promise<MockServer> {
  const seen: Seen[] = [];
  let n = 0;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const s: Seen = { method: req.method ?? '', path: req.url ?? '', headers: req.headers, body: text === '' ? null : JSON.parse(text) };
      if (s.method === 'GET' && s.path === '/v1/models') {
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ object: 'list', data: models.map((id) => ({ id, object: 'model' })) }));
        return;
      }
      seen.push(s);
      await answer(res, await handler(s, n++));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    close: () => new Promise((r) => {
      server.closeAllConnections();
      server.close(() => r());
    }),
  };
}

async function answer(res: http.ServerResponse, reply: Reply): Promise<void> {
  if ('reset' in reply) {
    res.socket?.destroy();
    return;
  }
  if ('stallMs' in reply) {
    await new Promise((r) => setTimeout(r, reply.stallMs));
    if (res.destroyed || res.socket === null || res.socket.destroyed) return;
    return answer(res, reply.then ?? { json: {} });
  }
  if ('truncate' in reply) {
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(reply.truncate) + 50) });
    res.write(reply.truncate);
    setTimeout(() => res.socket?.destroy(), 5);
    return;
  }
  const body = reply.text ?? JSON.stringify(reply.json ?? {});
  res.writeHead(reply.status ?? 200, { 'content-type': reply.text !== undefined ? 'text/html' : 'application/json', ...(reply.headers ?? {}) }).end(body);
}

const root = fileURLToPath(new URL('../../../', import.meta.url));

/** The CLI in a child process, without blocking this process's event loop (the mock servers live here). */
export function runCliAsync(args: readonly string[], env: Record<string, string> = {}): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [...cliArgs, ...args], { cwd: root, env: { ...process.env, LMAUDIT_PROGRESS_SECONDS: '3600', ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('close', (status) => resolve({ status, stdout, stderr }));
  });
}
