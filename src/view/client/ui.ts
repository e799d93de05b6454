/// <reference lib="dom" />
/**
 * Small pieces every page uses: links into the viewer's own routes, a hook that loads an API
 * answer, and Text, which shows a string from a model, a dataset or a file as characters:
 * Preact sets it as a text node (never markup), control characters and bidirectional
 * controls are shown as visible symbols, and the element isolates its direction, so a
 * right-to-left or hostile string cannot reorder or hide the text around it.
 */
import { h, type ComponentChildren, type VNode as PreactNode } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { api } from './fetchApi.ts';

export { h };

/** Any element a page returns (Preact's VNode over any props). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type VNode = PreactNode<any>;

export type Params = Record<string, string | number | undefined | null>;

export function href(page: string, params: Params = {}): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null && v !== '') q.set(k, String(v));
  const query = q.toString();
  return `#/${page}${query ? `?${query}` : ''}`;
}

export type Loaded<T> = { state: 'loading' } | { state: 'error'; message: string } | { state: 'ok'; data: T };

export function useApi<T>(route: string, params: Params): Loaded<T> {
  const key = `${route}?${JSON.stringify(params)}`;
  const [value, setValue] = useState<{ key: string; loaded: Loaded<T> }>({ key, loaded: { state: 'loading' } });
  useEffect(() => {
    let live = true;
    setValue({ key, loaded: { state: 'loading' } });
    api<T>(route, params).then(
      (data) => live && setValue({ key, loaded: { state: 'ok', data } }),
      (error: Error) => live && setValue({ key, loaded: { state: 'error', message: error.message } }),
    );
    return () => {
      live = false;
    };
  }, [key]);
  return value.key === key ? value.loaded : { state: 'loading' };
}

/** Renders a loaded answer, or says it is loading or why it failed. */
export function Show<T>(props: { loaded: Loaded<T>; children: (data: T) => ComponentChildren }): VNode {
  const l = props.loaded;
  if (l.state === 'loading') return h('p', { class: 'muted' }, 'Loading…');
  if (l.state === 'error') return h('p', { class: 'error', role: 'alert' }, l.message);
  return h('div', null, props.children(l.data));
}

// C0 controls but tab and newline, DEL and C1 controls; bidirectional embeddings, overrides and isolates; zero-width marks.
const INVISIBLE = /[\u0000-\u0008\u000B-\u001F\u007F-\u009F\u061C\u200B-\u200F\u202A-\u202E\u2066-\u2069\uFEFF]/g;

export function visible(text: string): string {
  return text.replace(INVISIBLE, (c) => {
    const code = c.charCodeAt(0);
    if (code < 0x20) return String.fromCharCode(0x2400 + code);
    if (code === 0x7f) return '\u2421';
    return `\u27E8U+${code.toString(16).toUpperCase().padStart(4, '0')}\u27E9`;
  });
}

/** Untrusted text, shown as characters. */
export function Text(props: { text: string | null | undefined; class?: string; empty?: string }): VNode {
  if (props.text === null || props.text === undefined) return h('span', { class: 'muted' }, props.empty ?? '(none)');
  if (props.text === '') return h('span', { class: 'muted' }, '(empty)');
  return h('span', { class: `t ${props.class ?? ''}`, dir: 'auto' }, visible(props.text));
}

export function score(value: number | null | undefined, digits = 4): string {
  if (value === null || value === undefined) return '—';
  return Number.isFinite(value) ? value.toFixed(digits) : String(value);
}

export function plural(n: number, word: string): string {
  return `${n.toLocaleString('en-US')} ${word}${n === 1 ? '' : 's'}`;
}

export function Crumbs(props: { items: [string, string | null][] }): VNode {
  return h(
    'nav',
    { class: 'crumbs' },
    props.items.flatMap(([label, link], i) => [i > 0 ? ' › ' : null, link === null ? h('span', null, label) : h('a', { href: link }, label)]),
  );
}
