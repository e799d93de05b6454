/**
 * Multiple-choice readings of stored log-probabilities, named for the matrix. The
 * rules are lm-eval's process_results (src/score/lmeval/metrics.ts, the one
 * implementation): argmax over the choices' summed log-probs — raw, per code point,
 * per UTF-8 byte — and whether the gold continuation is the greedy one.
 */
import { pyLen } from '../py/str.ts';
import { utf8Length } from '../util/utf8.ts';
import { argmax, multipleChoice, type McMetric } from './lmeval/metrics.ts';

export interface ChoiceItem {
  docId: string;
  /** The choice strings without the target delimiter; null when the source did not record them. */
  choices: readonly string[] | null;
  logprobs: readonly number[];
  isGreedy: readonly (boolean | null)[];
  /** Gold choice indices (several for multi-target tasks); -100 marks an invalid gold, as lm-eval. */
  gold: readonly number[];
}

export interface ChoiceReading {
  /** The index the reading picks (for greedy: the gold). */
  predicted: number;
  /** null when the records lack what the rule needs (choice texts, greedy flags). */
  value: number | null;
}

export const LOGPROB_READERS = {
  acc: { description: 'argmax of summed log-probs (lm-eval acc)', metric: 'acc', length: null },
  acc_norm: { description: 'argmax of log-prob / choice length in code points (lm-eval acc_norm)', metric: 'acc_norm', length: pyLen },
  acc_bytes: { description: 'argmax of log-prob / choice length in UTF-8 bytes (lm-eval acc_bytes)', metric: 'acc_bytes', length: utf8Length },
  greedy: {
    description: "the gold continuation is the model's greedy continuation (lm-eval loglikelihood acc, multiple_choice exact_match)",
    metric: 'exact_match',
    length: null,
  },
} as const satisfies Record<string, { description: string; metric: McMetric; length: ((s: string) => number) | null }>;
export type LogprobReaderName = keyof typeof LOGPROB_READERS;

export function readChoiceItem(reader: LogprobReaderName, item: ChoiceItem): ChoiceReading {
  const { metric, length } = LOGPROB_READERS[reader];
  const value = multipleChoice({ lls: item.logprobs, isGreedy: item.isGreedy, choices: item.choices, gold: [...item.gold] }, metric);
  if (metric === 'exact_match') return { predicted: item.gold[0] ?? -100, value };
  if (length !== null && item.choices === null) return { predicted: -1, value: null };
  const scores = length === null ? item.logprobs : item.logprobs.map((lp, i) => lp / length(item.choices![i] ?? ''));
  return { predicted: argmax(scores), value };
}
