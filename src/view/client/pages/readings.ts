/// <reference lib="dom" />
/**
 * Two readings of one task compared item by item: McNemar's 2×2 table (each discordant cell a
 * link to its items), the accuracy under each, the difference B − A with its paired standard
 * error and bootstrap interval, the exact McNemar test and the sentence `lmaudit diff` would
 * print for it. Every number comes from the server (view/readings.ts).
 */
import type { ReadingsComparison } from '../../readings.ts';
import { Crumbs, h, href, plural, score, Show, Text, useApi, type Params, type VNode } from '../ui.ts';

interface ReadingsAnswer {
  source: number;
  label: string;
  run_id: string;
  task: string;
  comparison: ReadingsComparison;
}

function name(r: ReadingsComparison['a']): string {
  return `r${r.index} ${r.extractor}/${r.normalizer}`;
}

function McNemarTable(props: { c: ReadingsComparison; base: Params }): VNode {
  const { c, base } = props;
  const t = c.table!;
  const link = (right: number, wrong: number, n: number, id: string) =>
    h('a', { href: href('items', { ...base, rightonly: `${right},${wrong}` }), id }, n.toLocaleString('en-US'));
  return h('table', { class: 'mcnemar', id: 'mcnemar' },
    h('thead', null, h('tr', null, h('th', null, ''), h('th', null, 'B right'), h('th', null, 'B wrong'))),
    h('tbody', null,
      h('tr', null, h('th', null, 'A right'), h('td', { class: 'num', id: 'both-right' }, t.bothRight.toLocaleString('en-US')), h('td', { class: 'num' }, link(c.a.index, c.b.index, t.aOnly, 'a-only'))),
      h('tr', null, h('th', null, 'A wrong'), h('td', { class: 'num' }, link(c.b.index, c.a.index, t.bOnly, 'b-only')), h('td', { class: 'num', id: 'both-wrong' }, t.bothWrong.toLocaleString('en-US'))),
    ),
  );
}

export function ReadingsPage(props: { params: Params }): VNode {
  const p = props.params;
  const scope = { s: p.s, run: p.run, task: p.task };
  const loaded = useApi<ReadingsAnswer>('readings', { ...scope, a: p.a, b: p.b });
  return h(Show<ReadingsAnswer>, {
    loaded,
    children: (data) => {
      const c = data.comparison;
      const r = c.result;
      const base = { s: data.source, run: data.run_id, task: data.task };
      const row = (label: string, value: string, id: string) => h('tr', null, h('th', null, label), h('td', { class: 'num', id }, value));
      return [
        h(Crumbs, { items: [['Runs', href('runs')], [data.task, href('task', { ...base, sel: `${c.a.index},${c.b.index}` })], ['Two readings', null]] }),
        h('h1', null, 'A ', h(Text, { text: name(c.a) }), ' vs B ', h(Text, { text: name(c.b) })),
        h('p', { id: 'paired-n' }, `${plural(r.n, 'item')} scored under both readings, of ${c.items.toLocaleString('en-US')} read`,
          c.dropped > 0 ? ` (${plural(c.dropped, 'item')} without a value under one reading or both left out)` : '', '. ',
          h('a', { href: href('readings', { ...base, a: c.b.index, b: c.a.index }) }, 'swap A and B'), ' · ',
          h('a', { href: href('items', { ...base, flip: `${c.a.index},${c.b.index}` }) }, 'every item whose value differs')),
        h('section', null, h('h2', null, 'Flips (McNemar table)'),
          c.table === null
            ? h('p', { class: 'muted' }, 'Not every value is 0 or 1, so there is no McNemar table; the bootstrap interval below decides.')
            : [h(McNemarTable, { c, base }), h('p', { class: 'small muted' }, 'A discordant cell opens its items: right under one reading, wrong under the other.')]),
        h('section', null, h('h2', null, 'Paired statistics'),
          h('table', { class: 'paired-readings' }, h('tbody', null,
            row('accuracy under A', score(r.meanA), 'mean-a'),
            row('accuracy under B', score(r.meanB), 'mean-b'),
            row('B − A', score(r.difference), 'difference'),
            row('paired standard error of B − A', score(c.stderr), 'stderr'),
            row(`95% bootstrap interval (${r.iterations} resamples, seed ${r.seed})`, `${score(r.ci[0])} to ${score(r.ci[1])}`, 'interval'),
            row('McNemar exact p (two-sided)', r.mcnemar ? r.mcnemar.p.toPrecision(3) : '—', 'mcnemar-p'),
          )),
          h('p', { id: 'sentence' }, h(Text, { text: r.sentence })),
          h('p', { class: 'small muted' }, 'The statistics `lmaudit diff` gives two runs (difference, bootstrap interval, exact McNemar), here on the items both readings scored; the standard error is the one `lmaudit table` puts an interaction\'s interval on: sd of the per-item differences / √n.')),
      ];
    },
  });
}
