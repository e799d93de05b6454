/**
 * Multiple-choice scopes scored from stored log-probs: one item per document,
 * its choices' log-probs in request order, read by lm-eval's argmax rules.
 */
import { duck, sqlString } from '../util/duckdb.ts';
import type { OpenStore } from '../store/readStore.ts';
import { readChoiceItem, type ChoiceReading, type LogprobReaderName } from './logprobReaders.ts';
import { addItem, emptyTally, type ItemSink, type Scope, type ScopeTally } from './textTally.ts';
import { isMultipleInput, readChoiceDoc } from './lmeval/choiceReading.ts';
import { PROCESS_RESULTS } from './lmeval/taskCode.ts';
import { settingsFromDocs, type TaskSettings } from './lmeval/perItem.ts';

/** What the tally reports besides the cells: how choices and golds were read, and what could not be. */
export interface LogprobTallyExtras {
  /** Items whose choice strings were taken from the continuations, by the delimiter cut from them ('' when none was). */
  choicesInferred: Map<string, number>;
  goldNotAChoice: number;
  unreadable: number[];
  /** Per reader: how many of its `unreadable` items are so because their gold could not be read (not for want of inputs). */
  unreadableGold: number[];
  /** Why items had no readable gold (multiple-input tasks without a port…), with counts and the first item's example. */
  goldUnreadable: Map<string, { count: number; example?: string }>;
  /** The task's own process_results that gave the `acc` cell (truthfulqa_mc2), when one did. */
  accFromTaskCode: string | null;
}

export async function tallyLogprobs(
  store: OpenStore,
  scope: Scope,
  readers: readonly LogprobReaderName[],
  flipsLimit: number,
  sink: ItemSink | undefined,
  taskSettings: TaskSettings,
): Promise<ScopeTally & LogprobTallyExtras> {
  const conn = await duck();
  const where = `run_id = ${sqlString(scope.run_id)} AND task = ${sqlString(scope.task)}`;
  const result = await conn.stream(`
    SELECT i.doc_id, any_value(coalesce(i."group", i.task)) AS grp, any_value(i.target) AS target,
           any_value(i.choices_json) AS choices_json,
           list(i.arg_continuation ORDER BY i.request_idx) AS continuations,
           -- The document is read only where lm-eval's gold or metric comes from it (multiple-input tasks, task code).
           CASE WHEN ${taskSettings.customProcessResults} OR (count(*) > 1 AND count(DISTINCT i.arg_continuation) = 1) THEN any_value(i.doc_json) END AS doc_json,
           list(r.logprob ORDER BY i.request_idx) AS logprobs, list(r.is_greedy ORDER BY i.request_idx) AS greedy,
           min(i.ord) AS ord
    FROM (SELECT file_row_number AS ord, * FROM ${store.table('instances', { rowNumber: true })} WHERE ${where}) i
    LEFT JOIN (SELECT doc_id, request_idx, logprob, is_greedy FROM ${store.table('responses')} WHERE ${where} AND repeat = 0) r
      USING (doc_id, request_idx)
    GROUP BY i.doc_id ORDER BY ord`);
  const tally: ScopeTally & LogprobTallyExtras = {
    ...emptyTally(readers.length), inOrder: [], choicesInferred: new Map(), goldNotAChoice: 0, unreadable: readers.map(() => 0), unreadableGold: readers.map(() => 0), goldUnreadable: new Map(), accFromTaskCode: null,
  };
  let settings: TaskSettings | null = null;
  for await (const rows of result.yieldRowsJs()) {
    for (const [docId, grp, target, choicesJson, continuations, docJson, logprobs, greedy] of rows as [
      string, string, string | null, string | null, (string | null)[], string | null, (number | null)[], (boolean | null)[],
    ][]) {
      const doc = docJson === null ? null : (JSON.parse(docJson) as Record<string, unknown>);
      settings ??= settingsFromDocs(taskSettings, doc);
      // A multiple-input task's target is the shared continuation; its gold is in the document.
      if (target === null && !isMultipleInput(continuations)) {
        tally.noGold++;
        continue;
      }
      if (logprobs.some((lp) => lp === null)) tally.noResponse++;
      const lls = logprobs.map((lp) => lp ?? Number.NEGATIVE_INFINITY);
      let readings: ChoiceReading[];
      let goldUnreadable = false;
      if (logprobs.length === 1) {
        // A single loglikelihood request scores its own continuation: the gold is that request.
        readings = readers.map((reader) => readChoiceItem(reader, { docId, choices: null, logprobs: lls, isGreedy: greedy, gold: [0] }));
      } else {
        const read = readChoiceDoc(
          settings,
          { target, choices: choicesJson === null ? null : (JSON.parse(choicesJson) as string[]), continuations, doc },
          logprobs.length,
        );
        if (read.kind === 'unreadable') {
          const seen = tally.goldUnreadable.get(read.why);
          if (seen === undefined) tally.goldUnreadable.set(read.why, { count: 1, ...(read.example === undefined ? {} : { example: read.example }) });
          else seen.count++;
          goldUnreadable = true;
          readings = readers.map(() => ({ predicted: -1, value: null }));
        } else {
          if (read.choicesInferred !== false) {
            const removed = read.choicesInferred.removed ?? '';
            tally.choicesInferred.set(removed, (tally.choicesInferred.get(removed) ?? 0) + 1);
          }
          const gold = typeof read.gold === 'number' ? [read.gold] : read.gold;
          if (gold.every((g) => g === -100)) tally.goldNotAChoice++;
          const item = { docId, choices: read.choices, logprobs: lls, isGreedy: greedy, gold };
          readings = readers.map((reader) => readChoiceItem(reader, item));
        }
        const port = settings.processResultsPort;
        const accAt = readers.indexOf('acc');
        if (port !== null && accAt >= 0 && doc !== null && logprobs.every((lp) => lp !== null)) {
          // The task's own metric named acc (truthfulqa_mc2: the probability mass of the true answers), not an argmax.
          tally.accFromTaskCode = port;
          readings[accAt] = { predicted: -1, value: taskCodeAcc(port, doc, logprobs as number[], greedy) };
        }
      }
      readings.forEach((r, k) => {
        if (r.value === null) {
          tally.unreadable[k]!++;
          if (goldUnreadable) tally.unreadableGold[k]!++;
        }
      });
      const values = readings.map((r) => r.value);
      addItem(tally, grp, docId, values, flipsLimit);
      tally.inOrder!.push({ group: grp, values });
      sink?.({ doc_id: docId, group: grp, values, extracted: readings.map((r) => String(r.predicted)) });
    }
  }
  return tally;
}

/** The `acc` a ported process_results returns for one document; null when lm-eval would have failed on it. */
function taskCodeAcc(port: string, doc: Record<string, unknown>, lls: readonly number[], greedy: readonly (boolean | null)[]): number | null {
  try {
    const value = PROCESS_RESULTS[port]!(doc, { kind: 'loglikelihood', results: lls.map((ll, i) => [ll, greedy[i] ?? false] as const) }).acc;
    return value ?? null;
  } catch {
    return null;
  }
}
