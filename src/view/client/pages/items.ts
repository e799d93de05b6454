/// <reference lib="dom" />
/**
 * Items: a virtualised list (@tanstack/virtual-core) of one task's items under the filters
 * in the URL. Rows are fetched a page at a time as they scroll into view; the server filters
 * and sorts in DuckDB, so the browser never holds the table.
 */
import { useEffect, useReducer, useRef, useState } from 'preact/hooks';
import { elementScroll, observeElementOffset, observeElementRect, Virtualizer } from '@tanstack/virtual-core';
import { api } from '../fetchApi.ts';
import { setKeys } from '../keys.ts';
import { Crumbs, h, href, plural, score, Text, type Params, type VNode } from '../ui.ts';
import type { ItemRow } from '../../scopeItems.ts';
import { Filters } from './itemFilters.ts';

export const PAGE = 100;
/**
 * Rows are this many pixels: a million rows make a list 30,000,000 px high, under Chromium's
 * largest element height (about 33,554,000 px); past about 1.1 million matching items the end of the
 * list cannot be scrolled to, and a filter or a sort the other way reaches it.
 */
const ROW_HEIGHT = 30;

export interface ItemsAnswer {
  cells: { extractor: string; normalizer: string }[];
  metaFields: string[];
  metaNote: string | null;
  /** In a static bundle, a list longer than this holds only its first this many items. */
  bundleLimit?: number;
  total: number;
  matching: number;
  offset: number;
  rows: ItemRow[];
}

const FILTER_KEYS = ['cell', 'verdict', 'flip', 'rightonly', 'noanswer', 'truncated', 'q', 'in', 'meta', 'mv', 'sort', 'desc'] as const;

export function filterParams(p: Params): Params {
  return Object.fromEntries(FILTER_KEYS.map((k) => [k, p[k]]));
}

export function ItemsPage(props: { params: Params }): VNode {
  const p = props.params;
  const scope = { s: p.s, run: p.run, task: p.task };
  const query = { ...scope, ...filterParams(p) };
  const key = JSON.stringify(query);
  const pages = useRef(new Map<number, ItemRow[] | 'loading'>());
  const [info, setInfo] = useState<{ key: string; answer: ItemsAnswer | null; error: string | null }>({ key, answer: null, error: null });
  const [, redraw] = useReducer((n: number) => n + 1, 0);
  const [selected, setSelected] = useState(0);
  const scroller = useRef<HTMLDivElement>(null);
  const virtualizer = useRef<Virtualizer<HTMLDivElement, HTMLElement> | null>(null);

  const load = (page: number) => {
    if (pages.current.has(page)) return;
    pages.current.set(page, 'loading');
    api<ItemsAnswer>('items', { ...query, offset: page * PAGE, limit: PAGE }).then(
      (answer) => {
        pages.current.set(page, answer.rows);
        if (page === 0) setInfo({ key, answer, error: null });
        redraw(0);
      },
      (error: Error) => setInfo({ key, answer: null, error: error.message }),
    );
  };

  useEffect(() => {
    pages.current = new Map();
    setSelected(0);
    setInfo({ key, answer: null, error: null });
    load(0);
  }, [key]);

  const listed = info.key === key ? info.answer : null;
  const count = Math.min(listed?.matching ?? 0, listed?.bundleLimit ?? Infinity);
  useEffect(() => {
    const v = new Virtualizer<HTMLDivElement, HTMLElement>({
      count,
      getScrollElement: () => scroller.current,
      estimateSize: () => ROW_HEIGHT,
      overscan: 10,
      scrollToFn: elementScroll,
      observeElementRect,
      observeElementOffset,
      onChange: () => redraw(0),
    });
    virtualizer.current = v;
    const unmount = v._didMount();
    v._willUpdate();
    redraw(0);
    return unmount;
  }, [count, key]);

  const rowAt = (index: number): ItemRow | null | undefined => {
    const page = pages.current.get(Math.floor(index / PAGE));
    return page === undefined || page === 'loading' ? (page === undefined ? undefined : null) : page[index % PAGE];
  };
  // An item opened from the list carries the list (its filters, sort and the item's place in it), so that j/k
  // there walk this list and the link can be shared.
  const itemLink = (row: ItemRow, index: number) => href('item', { ...query, doc: row.doc_id, at: index });
  const open = (index: number) => {
    const row = rowAt(index);
    if (row) location.hash = itemLink(row, index);
  };
  const move = (to: number) => {
    const index = Math.max(0, Math.min(count - 1, to));
    setSelected(index);
    virtualizer.current?.scrollToIndex(index, { align: 'auto' });
  };
  setKeys({ next: () => move(selected + 1), previous: () => move(selected - 1), open: () => open(selected) });

  // A column's heading sorts by it; the sorted column's heading turns the order round.
  const sortLink = (column: string, label: string) => {
    const sorted = (p.sort ?? 'pos') === column;
    const params = { ...query, sort: column, desc: sorted && p.desc !== '1' ? '1' : '' };
    return h('a', { href: href('items', params), class: 'sort' }, label, sorted ? (p.desc === '1' ? ' ▼' : ' ▲') : '');
  };
  const answer = info.key === key ? info.answer : null;
  const virtualItems = virtualizer.current?.getVirtualItems() ?? [];
  for (const item of virtualItems) if (rowAt(item.index) === undefined) load(Math.floor(item.index / PAGE));
  const cells = answer?.cells ?? [];
  return h(
    'div',
    null,
    h(Crumbs, { items: [['Runs', href('runs')], [String(p.task), href('task', scope)], ['Items', null]] }),
    h(Filters, { params: p, cells, metaFields: answer?.metaFields ?? [], metaNote: answer?.metaNote ?? null }),
    info.error !== null && info.key === key ? h('p', { class: 'error', role: 'alert' }, info.error) : null,
    h('p', { id: 'matching', 'data-loaded-for': answer === null ? undefined : key }, answer === null ? 'Loading…' : `${plural(answer.matching, 'item')} of ${answer.total.toLocaleString('en-US')}`),
    answer?.bundleLimit !== undefined && answer.matching > answer.bundleLimit
      ? h('p', { class: 'error', id: 'bundle-note' }, `This static bundle holds the first ${answer.bundleLimit.toLocaleString('en-US')} of these ${answer.matching.toLocaleString('en-US')} items (in this order); the other ${(answer.matching - answer.bundleLimit).toLocaleString('en-US')} are not in it. \`lmaudit view\` on the same source serves them all, with any filter.`)
      : null,
    h(
      'div',
      { class: 'row head' },
      h('span', { class: 'c-id' }, sortLink('doc_id', 'doc')),
      h('span', { class: 'c-gold' }, sortLink('target', 'gold')),
      h('span', { class: 'c-resp' }, sortLink('response', 'response')),
      h('span', { class: 'c-fin' }, sortLink('finish_reason', 'stop')),
      ...cells.map((c, k) => h('span', { class: 'c-val', title: `${c.extractor}/${c.normalizer}` }, sortLink(`v${k}`, `r${k}`))),
    ),
    h(
      'div',
      { class: 'list', ref: scroller, role: 'listbox', 'aria-label': 'items' },
      h(
        'div',
        { style: { height: `${virtualizer.current?.getTotalSize() ?? 0}px`, position: 'relative' } },
        virtualItems.map((v) => {
          const row = rowAt(v.index);
          const style = { position: 'absolute', top: 0, left: 0, right: 0, height: `${ROW_HEIGHT}px`, transform: `translateY(${v.start}px)` };
          if (!row) return h('div', { key: v.index, class: 'row muted', style }, '…');
          return h(
            'a',
            { key: v.index, class: `row${v.index === selected ? ' sel' : ''}`, style, href: itemLink(row, v.index), 'data-doc': row.doc_id, 'aria-selected': v.index === selected },
            h('span', { class: 'c-id' }, h(Text, { text: row.doc_id })),
            h('span', { class: 'c-gold' }, h(Text, { text: row.target })),
            h('span', { class: 'c-resp' }, h(Text, { text: row.response })),
            h('span', { class: 'c-fin' }, h(Text, { text: row.finish_reason, empty: '' })),
            ...row.values.map((value, k) => h('span', { class: `c-val ${value === 1 ? 'ok' : value === null ? '' : 'bad'}`, title: row.extracted[k] ?? 'nothing extracted' }, score(value, 2))),
          );
        }),
      ),
    ),
    cells.length > 0 ? h('p', { class: 'muted small' }, cells.map((c, k) => `r${k} = ${c.extractor}/${c.normalizer}`).join(' · ')) : null,
  );
}
