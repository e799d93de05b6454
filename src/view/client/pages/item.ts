/// <reference lib="dom" />
/**
 * Item: one document as recorded and as read. The prompt in parts (chat messages or turns,
 * few-shot examples folded), every raw response, the gold, each reading's extracted answer
 * highlighted where it occurs in the response with its verdict, the per-item values the
 * source recorded, and for multiple choice a bar per choice's log-probability, gold marked.
 */
import { useState } from 'preact/hooks';
import type { ItemDetail } from '../../itemDetail.ts';
import { setKeys } from '../keys.ts';
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

export function ItemPage(props: { params: Params }): VNode {
  const p = props.params;
  const scope = { s: p.s, run: p.run, task: p.task };
  const loaded = useApi<ItemDetail>('item', { ...scope, doc: p.doc });
  const data = loaded.state === 'ok' ? loaded.data : null;
  const go = (doc: string | null | undefined) => {
    if (doc) location.hash = href('item', { ...scope, doc });
  };
  setKeys({ next: () => go(data?.next), previous: () => go(data?.previous) });
  return h(Show<ItemDetail>, {
    loaded,
    children: (item) => [
      h(Crumbs, { items: [['Runs', href('runs')], [item.task, href('task', scope)], ['Items', href('items', scope)], [`doc ${item.doc_id}`, null]] }),
      h('h1', null, 'Document ', h(Text, { text: item.doc_id })),
      h('p', { class: 'small' }, item.previous !== null ? h('a', { href: href('item', { ...scope, doc: item.previous }) }, '← previous (k)') : null, ' ', item.next !== null ? h('a', { href: href('item', { ...scope, doc: item.next }) }, 'next (j) →') : null),
      h('section', null, h('h2', null, 'Gold'), h('pre', { class: 't gold', dir: 'auto' }, item.target === null ? '(none recorded)' : visible(item.target))),
      item.choiceBars !== null ? h('section', null, h('h2', null, 'Log-likelihood per choice'), h(Bars, { bars: item.choiceBars })) : null,
      h(Readings, { item }),
      h('section', null, h('h2', null, 'Prompt'), h(Prompt, { item })),
      h('section', null, h('h2', null, `Responses (${item.responses.length})`),
        item.responses.map((r) => h('div', { class: 'response-block' },
          h('div', { class: 'small muted' }, `request ${r.request_idx}${r.repeat > 0 ? `, repeat ${r.repeat}` : ''}${r.finish_reason ? ` · stopped: ${r.finish_reason}` : ''}${r.tokens_out !== null ? ` · ${r.tokens_out} tokens` : ''}${r.logprob !== null ? ` · log-prob ${r.logprob}` : ''}${r.is_greedy !== null ? ` · greedy: ${r.is_greedy}` : ''}`),
          r.text !== null ? h('pre', { class: 't response', dir: 'auto' }, visible(r.text)) : null,
          r.error !== null ? h('p', { class: 'error' }, h(Text, { text: r.error })) : null,
        ))),
      h('section', null, h('h2', null, 'Per-item values as recorded'),
        item.recorded.length === 0 ? h('p', { class: 'muted' }, 'none recorded') : h('table', null, h('tbody', null, item.recorded.map((r) => h('tr', null, h('td', null, h(Text, { text: `${r.metric},${r.filter}` })), h('td', null, h(Text, { text: r.value_json }))))))),
      item.doc_json !== null ? h('details', null, h('summary', null, 'The document as recorded'), h('pre', { class: 't' }, visible(item.doc_json))) : null,
    ],
  });
}
