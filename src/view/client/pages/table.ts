/// <reference lib="dom" />
/**
 * Table: `lmaudit table`'s grid for one source, the lines the command prints (tableLines),
 * with its reachability answer for a published number given in the URL.
 */
import { Crumbs, h, href, Show, Text, useApi, type Params, type VNode } from '../ui.ts';

interface TableAnswer {
  label: string;
  tables: { task: string; lines: string[] }[];
}

export function TablePage(props: { params: Params }): VNode {
  const p = props.params;
  const loaded = useApi<TableAnswer>('table', { s: p.s, target: p.target });
  const onSubmit = (event: Event) => {
    event.preventDefault();
    const target = String(new FormData(event.currentTarget as HTMLFormElement).get('target') ?? '');
    location.hash = href('table', { s: p.s, target });
  };
  return h('div', null,
    h(Crumbs, { items: [['Runs', href('runs')], ['Table', null]] }),
    h('form', { onSubmit, class: 'filters' }, h('label', null, 'Published number to reach: ', h('input', { name: 'target', value: p.target ?? '', placeholder: 'e.g. 0.61' })), ' ', h('button', { type: 'submit' }, 'Which cells reach it?')),
    h(Show<TableAnswer>, {
      loaded,
      children: (data) => [
        h('h1', null, 'Table across the runs of ', h(Text, { text: data.label })),
        data.tables.length === 0 ? h('p', { class: 'muted' }, 'No run has per-item records or reported numbers.') : null,
        data.tables.map((t) => h('pre', { class: 't table-text' }, t.lines.join('\n'))),
      ],
    }),
  );
}
