/// <reference lib="dom" />
/**
 * How a page gets its data: from the server's /api/ (lmaudit view), or in a static bundle
 * from data/<key>.js files the bundle wrote, each loaded as a script that hands its JSON to
 * window.__lmauditData (a page opened from file:// cannot fetch files). The key of a request
 * is its route and parameters in sorted order, the same on both sides (bundleKey).
 */
import { bundleKey, bundleFile } from '../bundleKey.ts';

declare global {
  interface Window {
    __lmauditBundle?: boolean;
    __lmauditData?: (key: string, data: unknown) => void;
  }
}

export class ApiError extends Error {}

const waiting = new Map<string, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
const loaded = new Map<string, unknown>();

function fromBundle(key: string): Promise<unknown> {
  if (loaded.has(key)) return Promise.resolve(loaded.get(key));
  window.__lmauditData ??= (k, data) => {
    loaded.set(k, data);
    waiting.get(k)?.resolve(data);
    waiting.delete(k);
  };
  return new Promise((resolve, reject) => {
    waiting.set(key, { resolve, reject });
    const script = document.createElement('script');
    script.src = `data/${bundleFile(key)}`;
    script.onerror = () => {
      waiting.delete(key);
      script.remove();
      reject(new ApiError('not in this static bundle: it holds the pages linked from the runs, task and compare pages (text search and other filters need `lmaudit view`)'));
    };
    document.head.appendChild(script);
  });
}

export async function api<T>(route: string, params: Record<string, string | number | undefined | null> = {}): Promise<T> {
  const clean = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null && v !== '') clean.set(k, String(v));
  if (window.__lmauditBundle) return (await fromBundle(bundleKey(route, clean))) as T;
  const response = await fetch(`api/${route}?${clean.toString()}`);
  const body = (await response.json()) as T & { error?: string };
  if (!response.ok) throw new ApiError(body.error ?? `HTTP ${response.status}`);
  return body;
}
