/**
 * `lmaudit view`'s server (node:http), on 127.0.0.1 only. It answers three fixed names (the
 * page, its script, its stylesheet) and the JSON API (api.ts); every other path is 404, and
 * no path in a request is ever joined to a folder. A request whose Host is not this server's
 * own address is refused (a web page elsewhere cannot reach it by DNS rebinding).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { API_ROUTES, ViewApi } from './api.ts';
import { pageHtml, readAssets, SERVED_POLICY } from './assets.ts';
import { ViewRequestError } from './viewErrors.ts';
import { BadInputError } from '../errors.ts';

export interface RunningViewer {
  url: string;
  port: number;
  close(): Promise<void>;
}

const HEADERS = {
  'Content-Security-Policy': SERVED_POLICY,
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'Cache-Control': 'no-store',
};

function send(res: ServerResponse, status: number, type: string, body: string): void {
  res.writeHead(status, { ...HEADERS, 'Content-Type': type, 'Content-Length': Buffer.byteLength(body) });
  res.end(body);
}

function sendJson(res: ServerResponse, status: number, value: unknown): void {
  send(res, status, 'application/json; charset=utf-8', JSON.stringify(value));
}

export async function startViewer(api: ViewApi, port = 0): Promise<RunningViewer> {
  const assets = readAssets();
  const files = new Map<string, [string, string]>([
    ['/', ['text/html; charset=utf-8', pageHtml('served')]],
    ['/app.js', ['text/javascript; charset=utf-8', assets.script]],
    ['/app.css', ['text/css; charset=utf-8', assets.style]],
  ]);
  let own = new Set<string>();
  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    if (req.method !== 'GET' && req.method !== 'HEAD') return sendJson(res, 405, { error: 'only GET' });
    if (!own.has(req.headers.host ?? '')) return sendJson(res, 421, { error: 'this viewer answers only requests addressed to its own address' });
    const raw = req.url ?? '/';
    const query = raw.indexOf('?');
    // The path exactly as sent, not decoded: '/%2e%2e/' or '/app.js%2f..' names nothing here.
    const path = query === -1 ? raw : raw.slice(0, query);
    const params = new URLSearchParams(query === -1 ? '' : raw.slice(query + 1));
    const file = files.get(path);
    if (file !== undefined) return send(res, 200, file[0], file[1]);
    if (path.startsWith('/api/') && (API_ROUTES as readonly string[]).includes(path.slice(5))) {
      try {
        return sendJson(res, 200, await api.answer(path.slice(5), params));
      } catch (error) {
        if (error instanceof ViewRequestError) return sendJson(res, 400, { error: error.message });
        // A failure of the audit code: its message, never a stack (it may name this machine's folders only as the CLI would).
        return sendJson(res, 500, { error: `could not answer: ${(error as Error).message.split('\n')[0]}` });
      }
    }
    return sendJson(res, 404, { error: 'not found' });
  };
  const server: Server = createServer((req, res) => {
    handle(req, res).catch((error: Error) => {
      if (!res.headersSent) sendJson(res, 500, { error: error.message.split('\n')[0] });
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) => {
      // A port taken or not ours to take is the user's to change, as serve says it.
      if (error.code === 'EADDRINUSE' || error.code === 'EACCES') reject(new BadInputError(`cannot listen on 127.0.0.1:${port} (${error.code}): give another --port, or leave it out for a free one`, { field: '--port' }));
      else reject(error);
    });
    server.listen(port, '127.0.0.1', resolve);
  });
  const bound = (server.address() as AddressInfo).port;
  own = new Set([`127.0.0.1:${bound}`, `localhost:${bound}`]);
  return {
    url: `http://127.0.0.1:${bound}/`,
    port: bound,
    close: () => new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}
