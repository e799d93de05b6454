/**
 * Scoring one scope's text answers under a list of (extractor, normaliser) cells,
 * down to per-group tallies. Two engines give the same tally:
 *  - SQL: one DuckDB pass, used when every cell has an exact SQL form (the bulk
 *    path: millions of records without entering JS, spilling instead of growing);
 *  - JS: rows streamed chunk by chunk through the JS definitions, for everything else.
 */
import { duck, queryRows, sqlString } from '../store/duck.ts';
import type { OpenStore } from '../store/readStore.ts';
import type { SqlExtractor } from './extractors.ts';
import type { SqlNormalizer } from './normalizers.ts';
import type { ItemView } from './types.ts';
import { goldsOf } from './golds.ts';
import { ASCII_PY_WHITESPACE, PY_WHITESPACE, pyStrip } from '../util/pytext.ts';

export interface TextCell {
  extractor: SqlExtractor;
  normalizer: SqlNormalizer;
}

export interface GroupTally {
  n: number;
  /** Per cell: the sum of item values. */
  sums: number[];
  /** Per cell: the sum of squared item values (for non-binary values' stderr). */
  squares: number[];
}

export interface ScopeTally {
  groups: Map<string, GroupTally>;
  /** pairs[i][j] (i < j): items where cell i and cell j score differently. */
  pairs: number[][];
  flipCount: number;
  flipIds: string[];
  /** Items with no response text (scored as empty output). */
  noResponse: number;
  /** Items without a usable gold answer: none recorded, or only whitespace (not scored). */
  noGold: number;
  /** Items whose gold is a list of acceptable answers (correct when any matches). */
  multiGold: number;
  /** Per cell: items the rule could not read because the records lack what it needs (the cell is not computable). */
  unreadable?: number[];
  /** Per-item rows, when asked for (rescore --out). */
  items?: { doc_id: string; group: string; values: (number | null)[]; extracted: (string | null)[] }[];
}

export interface Scope {
  run_id: string;
  task: string;
}

/** The items of a scope: first request, first repeat; gold from the instance target; ord = position in the store. */
function itemsSql(store: OpenStore, scope: Scope): string {
  const where = `run_id = ${sqlString(scope.run_id)} AND task = ${sqlString(scope.task)} AND request_idx = 0`;
  return `SELECT i.file_row_number AS ord, i.doc_id, coalesce(i."group", i.task) AS grp, i.target AS gold, r.text AS text, i.choices_json
    FROM (SELECT file_row_number, doc_id, "group", task, target, choices_json FROM ${store.table('instances', { rowNumber: true })} WHERE ${where}) i
    LEFT JOIN (SELECT doc_id, text FROM ${store.table('responses')} WHERE ${where} AND repeat = 0) r USING (doc_id)`;
}

/** SQL: whether every cell's SQL form is exact on this row although its text or gold is not ASCII. */
function nonAsciiSafe(cells: readonly TextCell[]): string {
  const conditions = cells.flatMap((c) => [
    c.extractor.nonAsciiSafe?.('text') ?? 'false',
    c.normalizer.nonAsciiSafe?.('text') ?? 'false',
    c.normalizer.nonAsciiSafe?.('gold') ?? 'false',
  ]);
  return [...new Set(conditions)].map((c) => `(${c})`).join(' AND ');
}

export function hasSqlForm(cells: readonly TextCell[]): boolean {
  return cells.every((c) => c.extractor.sql !== undefined && c.normalizer.sql !== undefined);
}

function emptyTally(cellCount: number): ScopeTally {
  return {
    groups: new Map(),
    pairs: Array.from({ length: cellCount }, () => new Array<number>(cellCount).fill(0)),
    flipCount: 0,
    flipIds: [],
    noResponse: 0,
    noGold: 0,
    multiGold: 0,
  };
}

export async function tallySql(store: OpenStore, scope: Scope, cells: readonly TextCell[], flipsLimit: number): Promise<ScopeTally> {
  const conn = await duck();
  const table = `scored_${Math.random().toString(36).slice(2, 10)}`;
  // Computed for every row (wrapping them in CASE would defeat DuckDB's common-subexpression
  // elimination); only bulk-eligible rows' values are used.
  const columns = cells.map((c, i) => `(${c.extractor.sql!('text', 'gold', c.normalizer)})::TINYINT AS c${i}`).join(', ');
  // One pass over the items. Rows that are not bulk-eligible (several golds, or a non-ASCII text or gold
  // on which some SQL form would differ from Python) keep their text for the JS definitions; strlen
  // (bytes) equals length (characters) exactly when a string is ASCII.
  await conn.run(`CREATE TEMP TABLE ${table} AS
    SELECT ord, doc_id, grp, no_gold, text_missing, bulk, ${columns},
           CASE WHEN NOT bulk THEN text END AS other_text, CASE WHEN NOT bulk AND NOT no_gold THEN gold END AS other_gold,
           CASE WHEN NOT bulk THEN choices_json END AS other_choices
    FROM (SELECT *,
                 -- A list-valued gold ('[...]', several acceptable answers) takes the JS path.
                 NOT no_gold AND NOT starts_with(gold, '[')
                   AND CASE WHEN strlen(text) = length(text) AND strlen(gold) = length(gold) THEN true ELSE ${nonAsciiSafe(cells)} END AS bulk
          FROM (SELECT ord, doc_id, grp, coalesce(gold, '') AS gold, coalesce(text, '') AS text, text IS NULL AS text_missing, choices_json,
                       -- A whitespace-only gold (lm-eval's truthfulqa_gen records " ") says nothing to match against.
                       -- (The full whitespace set is slow in trim(); only non-ASCII golds need it.)
                       gold IS NULL OR CASE WHEN strlen(gold) = length(gold) THEN trim(gold, ${sqlString(ASCII_PY_WHITESPACE)}) = ''
                                             ELSE trim(gold, ${sqlString(PY_WHITESPACE)}) = '' END AS no_gold
                FROM (${itemsSql(store, scope)})))`);
  try {
    const cellIdx = cells.map((_, i) => i);
    const sums = cellIdx.map((i) => `sum(c${i}) AS s${i}`).join(', ');
    const pairs = cellIdx.flatMap((i) => cellIdx.filter((j) => j > i).map((j) => `count(*) FILTER (c${i} <> c${j}) AS p${i}_${j}`));
    const spread = cells.length > 1 ? `least(${cellIdx.map((i) => `c${i}`).join(', ')}) <> greatest(${cellIdx.map((i) => `c${i}`).join(', ')})` : 'false';
    const rows = await queryRows<Record<string, number | string | null>>(
      `SELECT grp, count(*) AS n, count(*) FILTER (text_missing) AS missing, count(*) FILTER (${spread}) AS flips, ${sums}${pairs.length ? `, ${pairs.join(', ')}` : ''}
       FROM ${table} WHERE bulk GROUP BY grp ORDER BY grp`,
    );
    const tally = emptyTally(cells.length);
    for (const row of rows) {
      const values = cellIdx.map((i) => Number(row[`s${i}`] ?? 0));
      // 0/1 values: the sum of squares is the sum.
      tally.groups.set(String(row.grp), { n: Number(row.n), sums: values, squares: [...values] });
      tally.noResponse += Number(row.missing);
      tally.flipCount += Number(row.flips);
      for (const i of cellIdx) for (const j of cellIdx) if (j > i) tally.pairs[i]![j]! += Number(row[`p${i}_${j}`]);
    }
    const flips: { ord: number; doc_id: string }[] =
      tally.flipCount > 0 && flipsLimit > 0
        ? await queryRows(`SELECT ord, doc_id FROM ${table} WHERE bulk AND ${spread} ORDER BY ord LIMIT ${flipsLimit}`)
        : [];
    const others = await conn.stream(
      `SELECT ord, doc_id, grp, no_gold, text_missing, other_text, other_gold, other_choices FROM ${table} WHERE NOT bulk ORDER BY ord`,
    );
    for await (const chunk of others.yieldRowsJs()) {
      for (const [ord, docId, grp, noGold, missing, text, gold, choicesJson] of chunk as [
        bigint, string, string, boolean, boolean, string, string | null, string | null,
      ][]) {
        if (noGold) {
          tally.noGold++;
          continue;
        }
        if (missing) tally.noResponse++;
        if (goldsOf(gold!).length > 1) tally.multiGold++;
        const values = scoreItem(cells, { docId, text, gold: gold!, choices: parseChoices(choicesJson) }).values;
        const before = tally.flipCount;
        addItem(tally, grp, docId, values, 0);
        if (tally.flipCount > before) flips.push({ ord: Number(ord), doc_id: docId });
      }
    }
    tally.flipIds = flips.sort((a, b) => Number(a.ord) - Number(b.ord)).slice(0, flipsLimit).map((f) => f.doc_id);
    return tally;
  } finally {
    await conn.run(`DROP TABLE IF EXISTS ${table}`);
  }
}

function parseChoices(json: string | null): string[] | null {
  return json === null ? null : (JSON.parse(json) as string[]);
}

/** Scores one item under every cell; with several golds the best reading counts (lm-eval's any-match). */
function scoreItem(cells: readonly TextCell[], item: ItemView): { values: number[]; extracted: (string | null)[] } {
  const golds = goldsOf(item.gold);
  const values: number[] = [];
  const extracted: (string | null)[] = [];
  for (const cell of cells) {
    let best = cell.extractor.read({ ...item, gold: golds[0]! }, cell.normalizer);
    for (const gold of golds.slice(1)) {
      if (best.value >= 1) break;
      const reading = cell.extractor.read({ ...item, gold }, cell.normalizer);
      if (reading.value > best.value) best = reading;
    }
    values.push(best.value);
    extracted.push(best.extracted);
  }
  return { values, extracted };
}

export async function tallyJs(
  store: OpenStore,
  scope: Scope,
  cells: readonly TextCell[],
  flipsLimit: number,
  keepItems = false,
): Promise<ScopeTally> {
  const conn = await duck();
  const tally = emptyTally(cells.length);
  if (keepItems) tally.items = [];
  const result = await conn.stream(`SELECT doc_id, grp, gold, text, choices_json FROM (${itemsSql(store, scope)}) ORDER BY ord`);
  for await (const rows of result.yieldRowsJs()) {
    for (const [docId, grp, gold, text, choicesJson] of rows as [string, string, string | null, string | null, string | null][]) {
      if (gold === null || pyStrip(gold) === '') {
        tally.noGold++;
        continue;
      }
      if (text === null) tally.noResponse++;
      if (goldsOf(gold).length > 1) tally.multiGold++;
      const { values, extracted } = scoreItem(cells, { docId, text: text ?? '', gold, choices: parseChoices(choicesJson) });
      addItem(tally, grp, docId, values, flipsLimit);
      tally.items?.push({ doc_id: docId, group: grp, values, extracted });
    }
  }
  return tally;
}

/**
 * Adds one item's per-cell values to a tally (shared by every per-item engine). A
 * null value (the rule could not read this item) joins no sum, pair or flip.
 */
export function addItem(tally: ScopeTally, grp: string, docId: string, values: readonly (number | null)[], flipsLimit: number): void {
  let group = tally.groups.get(grp);
  if (group === undefined) {
    group = { n: 0, sums: new Array<number>(values.length).fill(0), squares: new Array<number>(values.length).fill(0) };
    tally.groups.set(grp, group);
  }
  group.n++;
  let flips = false;
  for (let i = 0; i < values.length; i++) {
    const v = values[i]!;
    if (v === null) continue;
    group.sums[i]! += v;
    group.squares[i]! += v * v;
    for (let j = i + 1; j < values.length; j++) {
      if (values[j] !== null && v !== values[j]) {
        tally.pairs[i]![j]!++;
        flips = true;
      }
    }
  }
  if (flips) {
    tally.flipCount++;
    if (tally.flipIds.length < flipsLimit) tally.flipIds.push(docId);
  }
}

export { emptyTally };
