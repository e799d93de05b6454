/**
 * Multiple-choice scopes scored from stored log-probs: one item per document,
 * its choices' log-probs in request order, read by lm-eval's argmax rules.
 */
import { duck, sqlString } from '../util/duckdb.ts';
import type { OpenStore } from '../store/readStore.ts';
import { goldIndices, readChoiceItem, type LogprobReaderName } from './logprobReaders.ts';
import { addItem, emptyTally, type ItemSink, type Scope, type ScopeTally } from './textTally.ts';

export async function tallyLogprobs(
  store: OpenStore,
  scope: Scope,
  readers: readonly LogprobReaderName[],
  flipsLimit: number,
  sink?: ItemSink,
): Promise<ScopeTally & { choicesInferred: boolean; goldNotAChoice: number; unreadable: number[] }> {
  const conn = await duck();
  const where = `run_id = ${sqlString(scope.run_id)} AND task = ${sqlString(scope.task)}`;
  const result = await conn.stream(`
    SELECT i.doc_id, any_value(coalesce(i."group", i.task)) AS grp, any_value(i.target) AS target,
           any_value(i.choices_json) AS choices_json,
           list(i.arg_continuation ORDER BY i.request_idx) AS continuations,
           list(r.logprob ORDER BY i.request_idx) AS logprobs, list(r.is_greedy ORDER BY i.request_idx) AS greedy,
           min(i.ord) AS ord
    FROM (SELECT file_row_number AS ord, * FROM ${store.table('instances', { rowNumber: true })} WHERE ${where}) i
    LEFT JOIN (SELECT doc_id, request_idx, logprob, is_greedy FROM ${store.table('responses')} WHERE ${where} AND repeat = 0) r
      USING (doc_id, request_idx)
    GROUP BY i.doc_id ORDER BY ord`);
  const tally = { ...emptyTally(readers.length), choicesInferred: false, goldNotAChoice: 0, unreadable: readers.map(() => 0) };
  for await (const rows of result.yieldRowsJs()) {
    for (const [docId, grp, target, choicesJson, continuations, logprobs, greedy] of rows as [
      string, string, string | null, string | null, (string | null)[], (number | null)[], (boolean | null)[],
    ][]) {
      if (target === null) {
        tally.noGold++;
        continue;
      }
      if (logprobs.some((lp) => lp === null)) tally.noResponse++;
      let choices: string[] | null;
      if (choicesJson !== null) choices = JSON.parse(choicesJson) as string[];
      else if (continuations.some((c) => c === null)) choices = null;
      else {
        // lm-eval measures the choice without its target delimiter (default " ").
        const conts = continuations as string[];
        const spaced = conts.every((c) => c.startsWith(' '));
        choices = spaced ? conts.map((c) => c.slice(1)) : conts;
        tally.choicesInferred = true;
      }
      // A single loglikelihood request scores its own continuation: the gold is that request.
      const gold = logprobs.length === 1 ? [0] : goldIndices(target, choices, logprobs.length);
      if (gold.every((g) => g === -100)) tally.goldNotAChoice++;
      const item = {
        docId,
        choices,
        logprobs: logprobs.map((lp) => lp ?? Number.NEGATIVE_INFINITY),
        isGreedy: greedy,
        gold,
      };
      const readings = readers.map((reader) => readChoiceItem(reader, item));
      readings.forEach((r, k) => {
        if (r.value === null) tally.unreadable[k]!++;
      });
      const values = readings.map((r) => r.value);
      addItem(tally, grp, docId, values, flipsLimit);
      sink?.({ doc_id: docId, group: grp, values, extracted: readings.map((r) => String(r.predicted)) });
    }
  }
  return tally;
}
