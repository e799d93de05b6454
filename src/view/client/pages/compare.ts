/// <reference lib="dom" />
/**
 * Compare: two sources (or two runs of them) as `lmaudit diff` compares them: the paired
 * statistics and falsifier verdict, the settings that differ, the flip counts (the McNemar
 * table's discordant cells, each a link to its items), and the documents aligned as diff
 * aligned them, with a pair's prompts shown character by character, what differs marked.
 */
import { pyFloatRepr } from '../../../py/float.ts';
import type { DiffResult, TaskComparison } from '../../../audit/diff.ts';
import type { PairRow } from '../../compare.ts';
import { setKeys } from '../keys.ts';
import { Crumbs, h, href, plural, score, Show, Text, useApi, visible, type Params, type VNode } from '../ui.ts';

const PAGE = 50;
/** Shared text longer than this is folded, keeping this much at each end. */
const FOLD_OVER = 300;
const FOLD_KEEP = 80;

interface CompareAnswer {
  a: string;
  b: string;
  diff: DiffResult;
}
interface PairPage {
  total: number;
  matching: number;
  offset: number;
  score: string | null;
  rows: PairRow[];
  /** In a static bundle, a list longer than this holds only its first this many pairs. */
  bundleLimit?: number;
}
interface PairAnswer {
  index: number;
  promptDiffers: boolean;
  segments: { text: string; side: 'a' | 'b' | 'both' }[];
  a: { docId: string; target: string | null; responses: { request_idx: number; repeat: number; text: string | null; logprob: number | null }[]; scores: Record<string, number | null> };
  b: PairAnswer['a'];
}

function fact(f: { status: string; value?: unknown }): string {
  return f.status === 'unknown' ? 'unknown' : typeof f.value === 'string' ? f.value : JSON.stringify(f.value);
}

/**
 * The settings that are not plainly the same: those the records tell apart (differs, contradicts, resolved, same in
 * effect) in the table, those unknown in one run or both folded away. A record that contradicts itself or an `auto`
 * resolved was counted among the settings "the records cannot compare (unknown in one run or both)".
 */
export function settingRows(t: Pick<TaskComparison, 'settings'>): { shown: SettingRow[]; unknown: SettingRow[]; unknownSummary: string } {
  const rows = t.settings.items.flatMap((i) => i.fields.filter((f) => f.verdict !== 'same').map((f) => ({ name: `${i.item}.${f.field}`, f })));
  const unknown = rows.filter((r) => r.f.verdict.startsWith('unknown'));
  return {
    shown: rows.filter((r) => !r.f.verdict.startsWith('unknown')),
    unknown,
    unknownSummary: `${plural(unknown.length, 'more setting')} the records cannot compare (unknown in one run or both)`,
  };
}

type SettingRow = { name: string; f: TaskComparison['settings']['items'][number]['fields'][number] };

function Settings(props: { t: TaskComparison }): VNode {
  const { shown, unknown, unknownSummary } = settingRows(props.t);
  const table = (rows: SettingRow[]) => h('table', { class: 'settings' },
    h('thead', null, h('tr', null, ['setting', 'A', 'B', 'verdict'].map((c) => h('th', null, c)))),
    h('tbody', null, rows.map(({ name, f }) => h('tr', null, h('td', null, name), h('td', null, h(Text, { text: fact(f.a) })), h('td', null, h(Text, { text: fact(f.b) })), h('td', null, f.verdict)))));
  return h('div', null,
    shown.length === 0 ? h('p', null, 'No recorded setting differs.') : table(shown),
    unknown.length > 0 ? h('details', null, h('summary', null, unknownSummary), table(unknown)) : null);
}

function Paired(props: { t: TaskComparison; base: Params; chosen: string | null }): VNode {
  const { t, base } = props;
  if (t.paired.length === 0) return h('p', { class: 'muted' }, t.pairedNote ?? 'no paired statistics');
  return h('div', null,
    t.pairedNote ? h('p', { class: 'muted' }, t.pairedNote) : null,
    h('table', { class: 'paired' },
      h('thead', null, h('tr', null, ['score', 'n', 'mean A', 'mean B', 'B − A', '95% interval', ...onlyIn(t.paired.some((p) => p.result.mcnemar?.oneIsWorse === true), 'McNemar: '), 'p', ''].map((c) => h('th', null, c)))),
      h('tbody', null, t.paired.map((p) => {
        const m = p.result.mcnemar;
        const link = (filter: string, n: number) => h('a', { href: href('compare', { ...base, score: p.score, filter }), class: `flip-${filter}` }, n.toLocaleString('en-US'));
        return h('tr', { class: p.score === props.chosen ? 'sel' : '' },
          h('td', null, h('a', { href: href('compare', { ...base, score: p.score }) }, h(Text, { text: p.score }))),
          h('td', { class: 'num' }, p.result.n), h('td', { class: 'num' }, score(p.result.meanA)), h('td', { class: 'num' }, score(p.result.meanB)),
          h('td', { class: 'num' }, score(p.result.difference)), h('td', null, `${score(p.result.ci[0])} to ${score(p.result.ci[1])}`),
          h('td', { class: 'num' }, m ? link('aOnly', m.aOnly) : '—'), h('td', { class: 'num' }, m ? link('bOnly', m.bOnly) : '—'), h('td', { class: 'num' }, m ? m.p.toPrecision(3) : '—'),
          h('td', { class: 'small' }, h(Text, { text: p.result.sentence })));
      })),
    ),
  );
}

/** Text both prompts share; a long stretch is folded to its ends (the fold's note is not part of the text). */
function Same(props: { text: string }): VNode | string {
  const t = props.text;
  if (t.length <= FOLD_OVER) return visible(t);
  return h('span', null, visible(t.slice(0, FOLD_KEEP)),
    h('details', { class: 'fold' }, h('summary', { class: 'fold-note' }, `… ${(t.length - 2 * FOLD_KEEP).toLocaleString('en-US')} characters the same in both …`), visible(t.slice(FOLD_KEEP, -FOLD_KEEP))),
    visible(t.slice(-FOLD_KEEP)));
}

function PairView(props: { base: Params; index: number }): VNode {
  const loaded = useApi<PairAnswer>('compare/pair', { ...props.base, i: props.index });
  return h(Show<PairAnswer>, {
    loaded,
    children: (pair) => [
      h('h3', null, `Pair ${pair.index}: A doc `, h(Text, { text: pair.a.docId }), ' · B doc ', h(Text, { text: pair.b.docId })),
      h('p', { class: 'small muted' }, pair.promptDiffers ? 'The prompts differ: text only in A struck through in red, only in B underlined in green.' : 'The prompts are the same.'),
      h('pre', { class: 't prompt-diff', dir: 'auto' }, pair.segments.map((s) => (s.side === 'both' ? Same({ text: s.text }) : h(s.side === 'a' ? 'del' : 'ins', null, visible(s.text))))),
      h('div', { class: 'two' }, (['a', 'b'] as const).map((side) => h('div', null,
        h('h4', null, `${side.toUpperCase()} · doc `, h(Text, { text: pair[side].docId }), ' · gold: ', h(Text, { text: pair[side].target })),
        h('div', { class: 'small muted' }, 'response'),
        pair[side].responses.map((r) => h('pre', { class: 't response', dir: 'auto' }, r.text !== null ? visible(r.text) : `log-prob ${r.logprob === null ? '—' : pyFloatRepr(r.logprob)}`)),
        h('p', { class: 'small' }, Object.entries(pair[side].scores).map(([k, v]) => `${k} = ${v}`).join(' · ')),
      ))),
    ],
  });
}

/**
 * The discordant cells' names: "right only in A" where a 1 is right; where the source says lower is better (a 1 of
 * crows_pairs' pct_stereotype is not right) the neutral "1 only in A" (pairedStats.ts's onlyInPhrase says why).
 */
function onlyIn(oneIsWorse: boolean, lead = ''): [string, string] {
  return oneIsWorse ? [`${lead}1 only in A`, '1 only in B'] : [`${lead}right only in A`, 'right only in B'];
}

function Aligned(props: { base: Params; filter: string; score: string | null; offset: number; selected: number | null; oneIsWorse: boolean }): VNode {
  const { base, filter } = props;
  const page = useApi<PairPage>('compare/items', { ...base, filter, score: props.score, offset: props.offset, limit: PAGE });
  const rows = page.state === 'ok' ? page.data.rows : [];
  const at = rows.findIndex((r) => r.index === props.selected);
  const goTo = (k: number) => rows[k] && (location.hash = href('compare', { ...base, filter, score: props.score, offset: props.offset, i: rows[k]!.index }));
  setKeys({ next: () => goTo(at + 1), previous: () => goTo(Math.max(0, at - 1)), open: () => goTo(Math.max(0, at)) });
  const tab = (f: string, label: string) => (f === filter ? h('strong', null, ` ${label} `) : h('a', { href: href('compare', { ...base, score: props.score, filter: f }) }, ` ${label} `));
  return h('div', null,
    h('p', null, 'Show: ', tab('all', 'all'), tab('prompt', 'prompt differs'), tab('response', 'response differs'), tab('aOnly', onlyIn(props.oneIsWorse)[0]), tab('bOnly', onlyIn(props.oneIsWorse)[1])),
    h(Show<PairPage>, {
      loaded: page,
      children: (data) => [
        h('p', { id: 'aligned-count' }, `${plural(data.matching, 'pair')} of ${data.total.toLocaleString('en-US')} aligned${data.score ? ` (scores: ${data.score})` : ''}`),
        data.bundleLimit !== undefined && data.matching > data.bundleLimit
          ? h('p', { class: 'error', id: 'bundle-note' }, `This static bundle holds the first ${data.bundleLimit.toLocaleString('en-US')} of these ${data.matching.toLocaleString('en-US')} pairs; \`lmaudit view\` on the same sources serves them all.`)
          : null,
        h('div', { class: 'aligned-box' }, h('table', { class: 'aligned' },
          h('thead', null, h('tr', null, ['#', 'doc A', 'doc B', 'prompt', 'response A', 'response B', 'A', 'B'].map((c) => h('th', null, c)))),
          h('tbody', null, data.rows.map((r) => h('tr', { class: r.index === props.selected ? 'sel' : '' },
            h('td', null, h('a', { href: href('compare', { ...base, filter, score: props.score, offset: props.offset, i: r.index }), 'data-pair': r.index }, r.index)),
            h('td', null, h(Text, { text: r.docIdA })), h('td', null, h(Text, { text: r.docIdB })),
            h('td', null, r.promptDiffers ? 'differs' : 'same'),
            h('td', { class: 'clip' }, h(Text, { text: r.responseA })), h('td', { class: 'clip' }, h(Text, { text: r.responseB })),
            h('td', { class: 'num' }, score(r.scoreA, 2)), h('td', { class: 'num' }, score(r.scoreB, 2))))))),
        h('p', null,
          data.offset > 0 ? h('a', { href: href('compare', { ...base, filter, score: props.score, offset: Math.max(0, data.offset - PAGE) }) }, '← earlier') : null, ' ',
          data.offset + PAGE < Math.min(data.matching, data.bundleLimit ?? Infinity) ? h('a', { href: href('compare', { ...base, filter, score: props.score, offset: data.offset + PAGE }) }, 'later →') : null),
      ],
    }),
  );
}

export function ComparePage(props: { params: Params }): VNode {
  const p = props.params;
  const key = { a: p.a, b: p.b, ra: p.ra, rb: p.rb };
  const loaded = useApi<CompareAnswer>('compare', key);
  const c = Number(p.c ?? 0);
  const ti = Number(p.t ?? 0);
  return h(Show<CompareAnswer>, {
    loaded,
    children: (data) => {
      const comparison = data.diff.comparisons[c];
      const t = comparison?.tasks[ti];
      const base = { ...key, c, t: ti };
      const chosen = typeof p.score === 'string' ? p.score : (t?.paired[0]?.score ?? null);
      return [
        h(Crumbs, { items: [['Runs', href('runs')], ['Compare', null]] }),
        h('h1', null, 'Compare ', h(Text, { text: data.a }), ' with ', h(Text, { text: data.b })),
        data.diff.comparisons.map((cmp, ci) => h('p', { class: 'small' }, `${ci === c ? '▸ ' : ''}A `, h(Text, { text: cmp.a.label }), ' vs B ', h(Text, { text: cmp.b.label }), ` (${cmp.pairedBecause}): `,
          ...cmp.tasks.map((tk, k) => h('a', { href: href('compare', { ...key, c: ci, t: k }) }, ` ${tk.taskA === tk.taskB ? tk.taskA : `${tk.taskA} / ${tk.taskB}`} `)))),
        t === undefined ? h('p', { class: 'error' }, 'No such compared task.') : [
          h('section', null, h('h2', null, 'Falsifier'), h('p', { class: `verdict ${t.falsifier.status}`, id: 'falsifier' }, `${t.falsifier.status}: `, h(Text, { text: t.falsifier.sentence })),
            h('ul', null, t.falsifier.clauses.map((cl) => h('li', null, `${cl.status} — `, h(Text, { text: cl.finding }))))),
          h('section', null, h('h2', null, 'Paired statistics'), h(Paired, { t, base, chosen })),
          h('section', null, h('h2', null, 'Settings that differ'), h(Settings, { t })),
          t.items ? h('section', { class: 'items' }, h('h2', null, 'Items'),
            h('p', null, h(Text, { text: t.items.keyNote }), ` · ${t.items.shared} shared, ${t.items.onlyA} only in A, ${t.items.onlyB} only in B · prompts differ in ${t.items.differences.promptsDiffer}, responses in ${t.items.differences.responsesDiffer}`),
            p.i !== undefined ? h(PairView, { base, index: Number(p.i) }) : h('p', { class: 'muted' }, 'Choose a pair to see its prompts side by side.'),
            h(Aligned, { base, filter: typeof p.filter === 'string' ? p.filter : 'all', score: chosen, offset: Number(p.offset ?? 0), selected: p.i === undefined ? null : Number(p.i), oneIsWorse: t.paired.find((x) => x.score === chosen)?.result.mcnemar?.oneIsWorse === true }),
          ) : null,
        ],
      ];
    },
  });
}
