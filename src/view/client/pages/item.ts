/// <reference lib="dom" />
/**
 * Item: one document as recorded and as read. The prompt in parts (chat messages or turns,
 * few-shot examples folded), every raw response, the gold, each reading's extracted answer
 * highlighted where it occurs in the response with its verdict, the per-item values the
 * source recorded, and for multiple choice a bar per choice's log-probability, gold marked.
 */
import { useEffect, useState } from 'preact/hooks';
import { pyFloatRepr } from '../../../py/float.ts';
import type { ItemDetail } from '../../itemDetail.ts';
import type { ItemRow } from '../../scopeItems.ts';
import { api } from '../fetchApi.ts';
import { setKeys } from '../keys.ts';
import { filterParams, PAGE, type ItemsAnswer } from './items.ts';
import { Crumbs, h, href, score, Show, Text, useApi, visible, type Params, type VNode } from '../ui.ts';

/** What the readings table shows of a long extracted answer (the response below shows all of it). */
const SHOWN = 300;

/** Where a reading's extracted answer occurs in the response: verbatim, else ignoring case; null when it does not. */
function findSpan(text: string, extracted: string): [number, number] | null {
  if (extracted === '') return null;
  let at = text.indexOf(extracted);
  if (at === -1) at = text.toLowerCase().indexOf(extracted.toLowerCase());
  return at === -1 ? null : [at, at + extracted.length];
}

function Highlighted(props: { text: string; span: [number, number] | null }): VNode {
  const { text, span } = props;
  if (span === null) return h('pre', { class: 't response', dir: 'auto' }, visible(text));
  return h('pre', { class: 't response', dir: 'auto' }, visible(text.slice(0, span[0])), h('mark', null, visible(text.slice(span[0], span[1]))), visible(text.slice(span[1])));
}

function Prompt(props: { item: ItemDetail }): VNode {
  const parts = props.item.promptParts;
  if (parts.length === 0) return h('p', { class: 'muted' }, 'No prompt recorded.');
  return h(
    'div',
    { class: 'prompt' },
    h('p', { class: 'muted small' }, props.item.promptHow),
    parts.map((part) => {
      const body = h('div', { class: `msg role-${part.role.replace(/[^a-z]/g, '')}` }, h('div', { class: 'role' }, part.role), h('pre', { class: 't', dir: 'auto' }, visible(part.text)));
      return part.folded ? h('details', { class: 'folded' }, h('summary', null, `${part.role} (${part.text.length.toLocaleString('en-US')} characters, folded)`), body) : body;
    }),
  );
}

function Bars(props: { bars: NonNullable<ItemDetail['choiceBars']> }): VNode {
  const values = props.bars.map((b) => b.logprob).filter((v): v is number => v !== null && Number.isFinite(v));
  const [low, high] = [Math.min(...values), Math.max(...values)];
  return h(
    'table',
    { class: 'bars' },
    h('tbody', null, props.bars.map((b) =>
      h('tr', { class: b.gold ? 'gold' : '' },
        h('td', null, b.gold ? h('strong', null, 'gold ') : null, h(Text, { text: b.choice })),
        h('td', { class: 'bar-cell' }, h('div', { class: 'bar', style: { width: `${b.logprob === null || !Number.isFinite(b.logprob) ? 0 : high > low ? 8 + ((b.logprob - low) / (high - low)) * 92 : 100}%` } })),
        h('td', { class: 'num' }, score(b.logprob)),
      ),
    )),
  );
}

function Readings(props: { item: ItemDetail }): VNode {
  const item = props.item;
  const [chosen, choose] = useState(0);
  const first = item.responses.find((r) => r.request_idx === 0 && r.repeat === 0)?.text ?? null;
  const reading = item.readings[chosen];
  const span = first !== null && reading?.extracted ? findSpan(first, reading.extracted) : null;
  return h(
    'section',
    null,
    h('h2', null, 'Readings'),
    item.readings.length === 0 ? h('p', { class: 'muted' }, 'No readings (the task has no rescoring matrix).') : null,
    item.readings.length > 0
      ? h('table', { class: 'readings' },
          h('thead', null, h('tr', null, ['reading', 'extracted answer', 'verdict'].map((c) => h('th', null, c)))),
          h('tbody', null, item.readings.map((r, k) =>
            h('tr', { class: k === chosen ? 'sel' : '', onClick: () => choose(k), 'data-reading': k },
              h('td', null, h('button', { type: 'button', class: 'linkish', onClick: () => choose(k) }, `r${k} ${r.extractor}/${r.normalizer}`)),
              h('td', { class: 'extracted' }, h(Text, { text: r.extracted === null || r.extracted.length <= SHOWN ? r.extracted : `${r.extracted.slice(0, SHOWN)}…`, empty: 'nothing extracted' }), r.extracted !== null && r.extracted.length > SHOWN ? h('div', { class: 'small muted' }, `${r.extracted.length.toLocaleString('en-US')} characters; all of it highlighted below`) : null),
              h('td', { class: r.value === 1 ? 'ok' : r.value === null ? '' : 'bad' }, r.value === null ? 'not scored' : r.value === 1 ? `correct (${score(r.value, 2)})` : `incorrect (${score(r.value, 2)})`),
            ))))
      : null,
    first !== null && reading !== undefined
      ? [
          h('p', { class: 'small muted', id: 'highlight-note' }, reading.extracted === null ? `r${chosen} extracted nothing.` : span === null ? `r${chosen}'s answer does not occur verbatim in the response (its reader took it from elsewhere, or rewrote it).` : `r${chosen}'s answer highlighted in the response:`),
          h(Highlighted, { text: first, span }),
        ]
      : null,
  );
}

interface ListPlace {
  key: string;
  /** The item is at its place in the list (a list changed since the link was made, or a wrong place, is not followed). */
  here: boolean;
  matching: number;
  previous: ItemRow | null;
  next: ItemRow | null;
}

/**
 * The list an item was opened from (its filters and sort, and the item's place `at`, all in the
 * URL): its neighbours there, fetched as the list fetches its pages (the same requests, so a
 * static bundle holds them too).
 */
function useListPlace(p: Params, at: number | null): ListPlace | null {
  const key = JSON.stringify(p);
  const [place, setPlace] = useState<ListPlace | null>(null);
  useEffect(() => {
    if (at === null) return;
    let live = true;
    const wanted = [...new Set([at - 1, at, at + 1].filter((i) => i >= 0).map((i) => Math.floor(i / PAGE)))];
    const query = { s: p.s, run: p.run, task: p.task, ...filterParams(p) };
    Promise.all(wanted.map((page) => api<ItemsAnswer>('items', { ...query, offset: page * PAGE, limit: PAGE }))).then(
      (answers) => {
        const rowAt = (i: number) => (i < 0 ? null : (answers[wanted.indexOf(Math.floor(i / PAGE))]?.rows[i % PAGE] ?? null));
        if (live) setPlace({ key, here: rowAt(at)?.doc_id === p.doc, matching: answers[0]!.matching, previous: rowAt(at - 1), next: rowAt(at + 1) });
      },
      () => live && setPlace({ key, here: false, matching: 0, previous: null, next: null }),
    );
    return () => {
      live = false;
    };
  }, [key]);
  return at !== null && place?.key === key ? place : null;
}

export function ItemPage(props: { params: Params }): VNode {
  const p = props.params;
  const scope = { s: p.s, run: p.run, task: p.task };
  const list = filterParams(p);
  const at = typeof p.at === 'string' && /^\d{1,9}$/.test(p.at) ? Number(p.at) : null;
  const loaded = useApi<ItemDetail>('item', { ...scope, doc: p.doc });
  const data = loaded.state === 'ok' ? loaded.data : null;
  const place = useListPlace(p, at);
  const inList = place !== null && place.here;
  // In the list the item came from, its neighbours there; else (no list, or the list has changed) document order.
  const previous = inList ? (place.previous === null ? null : href('item', { ...scope, ...list, doc: place.previous.doc_id, at: at! - 1 })) : data?.previous ? href('item', { ...scope, doc: data.previous }) : null;
  const next = inList ? (place.next === null ? null : href('item', { ...scope, ...list, doc: place.next.doc_id, at: at! + 1 })) : data?.next ? href('item', { ...scope, doc: data.next }) : null;
  const waiting = at !== null && place === null;
  const go = (link: string | null) => {
    if (link !== null && !waiting) location.hash = link;
  };
  setKeys({ next: () => go(next), previous: () => go(previous) });
  return h(Show<ItemDetail>, {
    loaded,
    children: (item) => [
      h(Crumbs, { items: [['Runs', href('runs')], [item.task, href('task', scope)], ['Items', href('items', { ...scope, ...list })], [`doc ${item.doc_id}`, null]] }),
      h('h1', null, 'Document ', h(Text, { text: item.doc_id })),
      h('p', { class: 'small', id: 'list-place' },
        waiting ? 'Finding its place in the list… ' : inList ? `Item ${(at! + 1).toLocaleString('en-US')} of ${place.matching.toLocaleString('en-US')} in the list it was opened from: ` : at !== null ? `This document is not item ${(at + 1).toLocaleString('en-US')} of the list in this link (the list has changed, or the link was edited); j and k follow document order: ` : '',
        previous !== null ? h('a', { href: previous, id: 'previous' }, '← previous (k)') : null, ' ', next !== null ? h('a', { href: next, id: 'next' }, 'next (j) →') : null),
      h('section', null, h('h2', null, 'Gold'), h('pre', { class: 't gold', dir: 'auto' }, item.target === null ? '(none recorded)' : visible(item.target))),
      item.choiceBars !== null ? h('section', null, h('h2', null, 'Log-likelihood per choice'), h(Bars, { bars: item.choiceBars })) : null,
      h(Readings, { item }),
      h('section', null, h('h2', null, 'Prompt'), h(Prompt, { item })),
      h('section', null, h('h2', null, `Responses (${item.responses.length})`),
        item.responses.map((r) => h('div', { class: 'response-block' },
          h('div', { class: 'small muted' }, responseLine(r)),
          r.text !== null ? h('pre', { class: 't response', dir: 'auto' }, visible(r.text)) : null,
          r.error !== null ? h('p', { class: 'error' }, h(Text, { text: r.error })) : null,
        ))),
      h('section', null, h('h2', null, 'Per-item values as recorded'),
        item.recorded.length === 0 ? h('p', { class: 'muted' }, 'none recorded') : h('table', null, h('tbody', null, item.recorded.map((r) => h('tr', null, h('td', null, h(Text, { text: `${r.metric},${r.filter}` })), h('td', null, h(Text, { text: r.value_json }))))))),
      item.doc_json !== null ? h('details', null, h('summary', null, 'The document as recorded'), h('pre', { class: 't' }, visible(item.doc_json))) : null,
    ],
  });
}

/** What a response records besides its text; a log-probability as its harness wrote it (Python's float repr, as the report). */
export function responseLine(r: ItemDetail['responses'][number]): string {
  const parts = [`request ${r.request_idx}${r.repeat > 0 ? `, repeat ${r.repeat}` : ''}`];
  if (r.finish_reason) parts.push(`stopped: ${r.finish_reason}`);
  if (r.tokens_out !== null) parts.push(`${r.tokens_out} tokens`);
  if (r.logprob !== null) parts.push(`log-prob ${pyFloatRepr(r.logprob)}`);
  if (r.is_greedy !== null) parts.push(`greedy: ${r.is_greedy}`);
  return parts.join(' · ');
}
