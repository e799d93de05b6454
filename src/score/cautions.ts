/**
 * What a scope's statistics cannot say, said beside them: a spread or interval over one item, and
 * `contains` against golds so short that they turn up inside unrelated outputs.
 */
import { queryRows, sqlString } from '../util/duckdb.ts';
import type { OpenStore } from '../store/readStore.ts';
import { scopeItemsSql } from '../store/scopeItems.ts';
import type { Scope } from './textTally.ts';

/** The caution on a scope of `n` scored items, or null when n is large enough for a spread to mean something. */
export function oneItemCaution(n: number): string | null {
  return n === 1
    ? 'n = 1: every cell is 0 or 1 on the one item, so this spread (and any interval or bootstrap on it) says nothing beyond that item'
    : null;
}

/** Characters a gold of one or two characters may sit beside and still stand alone (not inside a longer number or word). */
const BEFORE = "(^|[^[:alnum:].,])";
const AFTER = '($|[^[:alnum:]]|[.,]($|[^[:alnum:]]))';
/** Distinct short golds written as constant patterns; past this many the pattern is built per row. */
const MAX_DISTINCT = 256;
/** A literal for RE2: ASCII punctuation escaped (RE2 refuses a backslash before other characters, which are literal). */
const escapeRegex = (text: string): string => text.replace(/[!-/:-@[-`{-~]/g, (c) => `\\${c}`);

/**
 * `contains` finds a gold anywhere in the output: a gold of one or two characters ('5', '10') is found
 * inside longer numbers and words ('$2.5', '1000 dollars'). Counts the scope's items with such a gold,
 * and those whose output holds it only inside a longer token; null when there are none.
 */
export async function shortGoldCaution(store: OpenStore, scope: Scope): Promise<string | null> {
  const g = 'trim(gold)';
  const items = `SELECT gold, text FROM (${scopeItemsSql(store, scope)}) WHERE gold IS NOT NULL AND length(${g}) BETWEEN 1 AND 2`;
  // The pattern is built from each distinct short gold as a constant (a CASE branch each): a pattern computed per row
  // is compiled per row, which took 6 s on a million letter golds. Short golds are few (letters, numbers under 100).
  const counts = await queryRows<{ g: string; n: number | bigint }>(`SELECT ${g} AS g, count(*) AS n FROM (${items}) GROUP BY ALL`);
  if (counts.length === 0) return null;
  const golds = counts.map((r) => r.g);
  const standsAlone = golds.length > MAX_DISTINCT
    ? `regexp_matches(text, '${BEFORE}' || regexp_escape(${g}) || '${AFTER}')`
    : `CASE ${g} ${golds.map((x) => `WHEN ${sqlString(x)} THEN regexp_matches(text, ${sqlString(`${BEFORE}${escapeRegex(x)}${AFTER}`)})`).join(' ')} END`;
  // Only the outputs that contain their gold at all are matched against the pattern.
  // The example is the first such (gold, output) in text order, so that the same store always prints the same one.
  const [found] = await queryRows<{ inside: number | bigint; example: { g: string; t: string } | null }>(`
    SELECT count(*) FILTER (inside) AS inside, min({'g': g, 't': left(text, 60)}) FILTER (inside) AS example
    FROM (SELECT ${g} AS g, text, NOT coalesce(${standsAlone}, false) AS inside FROM (${items}) WHERE contains(text, ${g}))`);
  const row = { short: counts.reduce((a, r) => a + Number(r.n), 0), inside: found!.inside, example: found!.example?.g ?? null, example_text: found!.example?.t ?? null };
  const short = Number(row?.short ?? 0);
  if (short === 0) return null;
  const inside = Number(row!.inside);
  const example = inside > 0 ? ` (e.g. gold ${JSON.stringify(row!.example)} inside ${JSON.stringify(row!.example_text)})` : '';
  const lead = `contains: ${short} item(s) have a gold of one or two characters, which contains finds inside longer numbers and words ('5' in '$2.5', '10' in '1000 dollars')`;
  if (inside === 0) return `${lead}; here no output holds its gold only inside a longer token`;
  return `${lead}; in ${inside} of them the output holds the gold only inside a longer token${example}, so contains counts them correct on a coincidence`;
}
