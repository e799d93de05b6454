/**
 * Pages deep in a long list (issue #26: the items list at a million items). The statements the
 * server sends DuckDB are recorded (DuckDBConnection's run and stream, wrapped in this file's
 * process, which runs it alone; every other statement goes through run): a page near the end of a sorted list
 * is read from the list's order, sorted once and kept, not found again with OFFSET (which sorts
 * the whole list for every page); a page in document order needs no sort at all. Every page's
 * rows are checked against the order computed here in JavaScript from the records written.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBConnection } from '@duckdb/node-api';
import { ViewApi } from '../../src/view/api.ts';
import { KEPT_ORDER_FROM, PAGE_LIMIT } from '../../src/view/scopeItems.ts';
import { ViewSession } from '../../src/view/sources.ts';

const N = 3000;
const WORDS = ['B', 'Answer: (A)', 'the answer is C', 'D', 'none of these', 'a', 'Option B fits', 'c'];
// Responses repeat (ties are broken by document order) and doc ids are numbers, so document order is 0 … N − 1.
const records = Array.from({ length: N }, (_, i) => ({ id: String(i), gold: 'ABCD'[i % 4]!, output: `${WORDS[(i * 7) % WORDS.length]!}${i % 3 === 0 ? '' : ` ${(i * 31) % 97}`}` }));

let dir: string;
let api: ViewApi;
const statements: string[] = [];
let scope: Record<string, string>;

before(async () => {
  for (const method of ['run', 'stream'] as const) {
    const original = DuckDBConnection.prototype[method] as (this: DuckDBConnection, sql: string, ...rest: unknown[]) => Promise<unknown>;
    (DuckDBConnection.prototype as unknown as Record<string, unknown>)[method] = function (this: DuckDBConnection, sql: string, ...rest: unknown[]) {
      statements.push(`${sql.replace(/\s+/g, ' ')}\n`);
      return original.call(this, sql, ...rest);
    };
  }
  dir = mkdtempSync(join(tmpdir(), 'lmaudit-deep-'));
  const file = join(dir, 'letters.jsonl');
  writeFileSync(file, records.map((r) => JSON.stringify(r)).join('\n') + '\n');
  api = new ViewApi(await ViewSession.open([file], { skipBad: false, fields: {} }));
  const runs = (await api.answer('runs', new URLSearchParams())) as { sources: { runs: { run_id: string; tasks: { task: string }[] }[] }[] };
  const run = runs.sources[0]!.runs[0]!;
  scope = { s: '0', run: run.run_id, task: run.tasks[0]!.task };
});

after(() => {
  rmSync(dir, { recursive: true, force: true });
});

async function page(params: Record<string, string>): Promise<{ matching: number; offset: number; rows: { doc_id: string; response: string | null }[] }> {
  return (await api.answer('items', new URLSearchParams({ ...scope, ...params }))) as never;
}

/** Doc ids in the list's order: by response (then document order), optionally only those whose response holds `text`. */
function expected(desc: boolean, text?: string): string[] {
  const kept = records.map((r, pos) => ({ ...r, pos })).filter((r) => text === undefined || r.output.toLowerCase().includes(text));
  kept.sort((a, b) => (a.output === b.output ? a.pos - b.pos : (a.output < b.output ? -1 : 1) * (desc ? -1 : 1)));
  return kept.map((r) => r.id);
}

const since = (from: number) => statements.slice(from).join('');

test('pages deep in a sorted list come from its order kept, sorted once, with the rows a sort gives', async () => {
  assert.ok(N - 200 > KEPT_ORDER_FROM, 'the list is long enough to reach the kept order');
  const from = statements.length;
  const order = expected(false);
  for (const offset of [2000, 2100, 2900, 1500]) {
    const got = await page({ sort: 'response', offset: String(offset), limit: '100' });
    assert.deepEqual(got.rows.map((r) => r.doc_id), order.slice(offset, offset + 100), `offset ${offset}`);
    assert.equal(got.matching, N);
  }
  const log = since(from);
  assert.doesNotMatch(log, /OFFSET (2000|2100|2900|1500)\b/);
  assert.equal(log.match(/ORDER BY response ASC/g)?.length, 1, `one sort for four pages:\n${log}`);
});

test('a filtered list sorted the other way, deep: the same rows and count as the filter and the sort say', async () => {
  const order = expected(true, 'e');
  assert.ok(order.length > KEPT_ORDER_FROM + 100);
  const from = statements.length;
  for (const offset of [KEPT_ORDER_FROM, order.length - 50]) {
    const got = await page({ q: 'e', in: 'response', sort: 'response', desc: '1', offset: String(offset), limit: '100' });
    assert.deepEqual(got.rows.map((r) => r.doc_id), order.slice(offset, offset + 100), `offset ${offset}`);
    assert.equal(got.matching, order.length);
  }
  assert.doesNotMatch(since(from), /OFFSET \d+/);
  // Near the top of a list a page is still found directly (DuckDB keeps only offset + limit rows in order).
  const top = await page({ q: 'e', in: 'response', sort: 'response', desc: '1', offset: '100', limit: '100' });
  assert.deepEqual(top.rows.map((r) => r.doc_id), order.slice(100, 200));
});

test('document order needs no sort: any page of it, either way round, is the positions it names', async () => {
  const from = statements.length;
  const ids = records.map((r) => r.id);
  assert.deepEqual((await page({ offset: '2500', limit: '100' })).rows.map((r) => r.doc_id), ids.slice(2500, 2600));
  assert.deepEqual((await page({ offset: '2950', limit: '100' })).rows.map((r) => r.doc_id), ids.slice(2950));
  assert.deepEqual((await page({ desc: '1', offset: '10', limit: '5' })).rows.map((r) => r.doc_id), ['2989', '2988', '2987', '2986', '2985']);
  assert.deepEqual((await page({ offset: '3000', limit: '100' })).rows, []);
  assert.doesNotMatch(since(from), /ORDER BY pos|OFFSET/);
});

test('the server never sends more than a page of rows, however many are asked for', async () => {
  const got = await page({ sort: 'response', offset: '1200', limit: '100000' });
  assert.equal(got.rows.length, PAGE_LIMIT);
  assert.deepEqual(got.rows.map((r) => r.doc_id), expected(false).slice(1200, 1200 + PAGE_LIMIT));
});

test('kept orders beyond the fourth are dropped, least recently used first, and made again when asked for', async () => {
  const sorts = ['target', 'finish_reason', 'response_length', 'v0', 'e0'];
  for (const sort of sorts) await page({ sort, offset: '2000', limit: '10' });
  assert.match(since(0), /DROP TABLE IF EXISTS \w+_order_\d+/);
  const from = statements.length;
  const again = await page({ sort: 'response', offset: '2000', limit: '100' });
  assert.deepEqual(again.rows.map((r) => r.doc_id), expected(false).slice(2000, 2100));
  assert.match(since(from), /ORDER BY response ASC/);
});

test('a new filter in document order is counted and its page found in one pass, with no sort, either way round', async () => {
  const matching = records.filter((r) => r.output.toLowerCase().includes('fits')).map((r) => r.id);
  const from = statements.length;
  const first = await page({ q: 'fits', in: 'response', offset: '0', limit: '100' });
  assert.deepEqual(first.rows.map((r) => r.doc_id), matching.slice(0, 100));
  assert.equal(first.matching, matching.length);
  const down = await page({ q: 'option', in: 'response', desc: '1', offset: '200', limit: '100' });
  assert.deepEqual(down.rows.map((r) => r.doc_id), [...matching].reverse().slice(200, 300));
  assert.equal(down.matching, matching.length);
  const none = await page({ q: 'no such text', in: 'response' });
  assert.deepEqual([none.matching, none.rows], [0, []]);
  const log = since(from);
  assert.doesNotMatch(log, /OVER \(\)|ORDER BY/, log);
});

test('sorting by doc id sorts positions: numbers first, by value then as text, the rest as text, either way round; the whole list is counted once', async () => {
  const ids = ['10', '9', 'b', '1e1', 'a', '-3', '9.5', 'B', '010', 'nan', ' 7'];
  const opened = statements.length;
  const file = join(dir, 'mixed.jsonl');
  writeFileSync(file, ids.map((id, i) => JSON.stringify({ id, gold: 'A', output: i % 2 ? 'A' : 'B' })).join('\n') + '\n');
  const mixed = new ViewApi(await ViewSession.open([file], { skipBad: false, fields: {} }));
  const runs = (await mixed.answer('runs', new URLSearchParams())) as { sources: { runs: { run_id: string; tasks: { task: string }[] }[] }[] };
  const where = { s: '0', run: runs.sources[0]!.runs[0]!.run_id, task: runs.sources[0]!.runs[0]!.tasks[0]!.task };
  const list = async (params: Record<string, string>) => ((await mixed.answer('items', new URLSearchParams({ ...where, ...params }))) as { rows: { doc_id: string }[] }).rows.map((r) => r.doc_id);
  // DuckDB's TRY_CAST to DOUBLE, by hand: ' 7' is 7, '1e1' and '010' are 10, 'nan' is NaN, above every number.
  const value: Record<string, number> = { '10': 10, '9': 9, '1e1': 10, '-3': -3, '9.5': 9.5, '010': 10, nan: Number.POSITIVE_INFINITY, ' 7': 7 };
  const text = (a: string, b: string) => (a === b ? 0 : a < b ? -1 : 1);
  const ascending = [...ids].sort((a, b) => (a in value ? (b in value ? value[a]! - value[b]! || text(a, b) : -1) : b in value ? 1 : text(a, b)));
  assert.deepEqual(ascending, ['-3', ' 7', '9', '9.5', '010', '10', '1e1', 'nan', 'B', 'a', 'b']);
  const numbers = ascending.filter((id) => id in value);
  const descending = [...numbers.reverse(), ...ascending.filter((id) => !(id in value)).reverse()];
  assert.deepEqual(await list({}), ascending, 'document order (the items table is made here)');
  const from = statements.length;
  assert.deepEqual(await list({ sort: 'doc_id' }), ascending);
  assert.deepEqual(await list({ sort: 'doc_id', desc: '1' }), descending);
  assert.deepEqual(await list({ sort: 'doc_id', desc: '1', offset: '6', limit: '3' }), descending.slice(6, 9));
  const odd = ids.filter((_, i) => i % 2);
  assert.deepEqual(await list({ sort: 'doc_id', desc: '1', q: 'a', in: 'response' }), descending.filter((id) => odd.includes(id)));
  assert.doesNotMatch(since(from), /ORDER BY TRY_CAST/);
  // Every item is counted once, as the table is made, not again for the unfiltered list.
  assert.equal(since(opened).match(/count\(\*\)[^\n]* FROM view_items_\d+\s*\n/g)?.length, 1, since(opened));
  // The first session's list is its own still: two sessions in one process name their items tables apart.
  assert.deepEqual((await page({ limit: '5' })).rows.map((r) => r.doc_id), records.slice(0, 5).map((r) => r.id));
});
