/// <reference lib="dom" />
/**
 * The viewer's browser side: a hash router over the pages (each page's state is its URL, so
 * a page can be bookmarked or shared, and the same URLs work from a static bundle on file://).
 */
import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { installKeys, setKeys } from './keys.ts';
import { ComparePage } from './pages/compare.ts';
import { ItemPage } from './pages/item.ts';
import { ItemsPage } from './pages/items.ts';
import { ReadingsPage } from './pages/readings.ts';
import { RunsPage } from './pages/runs.ts';
import { TablePage } from './pages/table.ts';
import { TaskPage } from './pages/task.ts';
import { h, type Params, type VNode } from './ui.ts';

function route(): { page: string; params: Params } {
  const hash = location.hash.replace(/^#\/?/, '');
  const [page = '', query = ''] = hash.split('?', 2);
  return { page: page || 'runs', params: Object.fromEntries(new URLSearchParams(query)) };
}

const PAGES: Record<string, (props: { params: Params }) => VNode> = {
  runs: RunsPage,
  task: TaskPage,
  items: ItemsPage,
  item: ItemPage,
  readings: ReadingsPage,
  compare: ComparePage,
  table: TablePage,
};

function App(): VNode {
  const [where, setWhere] = useState(route());
  useEffect(() => {
    const onHash = () => {
      setKeys({});
      setWhere(route());
      window.scrollTo(0, 0);
    };
    window.addEventListener('hashchange', onHash);
    return () => window.removeEventListener('hashchange', onHash);
  }, []);
  const Page = PAGES[where.page];
  document.title = `lmaudit view · ${where.page}`;
  return h('main', { 'data-page': where.page },
    h('header', null, h('a', { href: '#/runs', class: 'brand' }, 'lmaudit view'), h('span', { class: 'keys small muted' }, 'j/k move · Enter open · Esc back · / search')),
    Page === undefined ? h('p', { class: 'error' }, 'No such page.') : h(Page, { params: where.params, key: `${where.page}` }),
  );
}

installKeys();
render(h(App, null), document.getElementById('app')!);
