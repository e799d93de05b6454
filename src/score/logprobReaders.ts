/**
 * Multiple-choice readings of stored log-probabilities, as lm-eval's
 * process_results computes them: argmax over the choices' summed log-probs (raw,
 * per code point of the choice, per UTF-8 byte), lowest index winning ties and
 * NaN winning when present (numpy argmax).
 */
import { pyLen, utf8Length } from '../util/pytext.ts';

export interface ChoiceItem {
  docId: string;
  /** The choice strings without the target delimiter. */
  choices: readonly string[];
  logprobs: readonly number[];
  isGreedy: readonly (boolean | null)[];
  /** Gold choice indices (several for multi-target tasks); -100 marks an invalid gold, as lm-eval. */
  gold: readonly number[];
}

function argmax(values: readonly number[]): number {
  let best = 0;
  for (let i = 0; i < values.length; i++) {
    if (Number.isNaN(values[i]!)) return i;
    if (values[i]! > values[best]!) best = i;
  }
  return best;
}

export interface ChoiceReading {
  predicted: number;
  value: number;
}

export const LOGPROB_READERS = {
  greedy: {
    description: "the gold continuation is the model's greedy continuation (lm-eval loglikelihood acc, multiple_choice exact_match)",
    weight: null,
  },
  acc: { description: 'argmax of summed log-probs (lm-eval acc)', weight: (_c: string) => 1 },
  acc_norm: { description: 'argmax of log-prob / choice length in code points (lm-eval acc_norm)', weight: pyLen },
  acc_bytes: { description: 'argmax of log-prob / choice length in UTF-8 bytes (lm-eval acc_bytes)', weight: utf8Length },
} as const;
export type LogprobReaderName = keyof typeof LOGPROB_READERS;

export function readChoiceItem(reader: LogprobReaderName, item: ChoiceItem): ChoiceReading {
  const weight = LOGPROB_READERS[reader].weight;
  if (weight === null) {
    const value = item.gold.some((g) => item.isGreedy[g] === true) ? 1 : 0;
    return { predicted: item.gold[0] ?? -100, value };
  }
  const scores = item.logprobs.map((lp, i) => lp / weight(item.choices[i] ?? ''));
  const predicted = argmax(scores);
  return { predicted, value: item.gold.includes(predicted) ? 1 : 0 };
}

/**
 * lm-eval's gold from `str(doc_to_target(doc))` as recorded: an integer index, a
 * choice string, or a Python-repr list of either. Out-of-range becomes -100.
 */
export function goldIndices(target: string, choices: readonly string[]): number[] {
  const one = (t: string): number => {
    if (/^-?\d+$/.test(t)) {
      const index = Number(t);
      return index >= 0 && index < choices.length ? index : -100;
    }
    const at = choices.indexOf(t);
    return at === -1 ? -100 : at;
  };
  const list = /^\[(.*)\]$/s.exec(target);
  if (list !== null) {
    const parts = list[1]!.split(',').map((p) => p.trim().replace(/^'(.*)'$|^"(.*)"$/s, '$1$2')).filter((p) => p !== '');
    return parts.map(one);
  }
  return [one(target)];
}
