/**
 * Gold answers as recorded. lm-eval writes `str(doc_to_target(doc))`, so a task with several
 * acceptable answers (trivia_qa aliases) records a Python list repr and a SQuAD-style task its
 * answers dict (`{'text': [...], 'answer_start': [...]}`); lm-eval's and SQuAD's metrics take the
 * best match over the acceptable answers, and so do we. A mapping that names no answers has no
 * meaning as one, and is refused.
 */
import { BadInputError } from '../errors.ts';
import { literalEvalDocValue } from '../py/literalEval.ts';
import { isPlainObject } from '../util/json.ts';
import { parsePyList } from './lmeval/metrics.ts';

export type GoldShape = 'one' | 'list' | 'squad' | 'final-number';

/**
 * GSM8K's answer field: a worked solution whose last line is '#### N'. lm-eval's gsm8k compares against N
 * alone (its exact_match ignores '(?s).*#### ', everything through the last '#### '), and so do we.
 */
const FINAL_NUMBER_PATTERN = '#### (-?[0-9.,]+)[ \\t\\n\\r\\f\\v]*$';
const FINAL_NUMBER = new RegExp(FINAL_NUMBER_PATTERN);

/**
 * SQL of the gold a text cell compares, per row: a worked solution's N for a gold ending in '#### N' (as goldAnswers
 * reads it: a list or a mapping never ends that way), else the gold as recorded. The pattern (the same for RE2 as
 * for JavaScript) runs only on golds that hold '#### '.
 */
export function comparedGoldSql(gold: string): string {
  return `CASE WHEN contains(${gold}, '#### ') THEN coalesce(nullif(regexp_extract(${gold}, '${FINAL_NUMBER_PATTERN}', 1), ''), ${gold}) ELSE ${gold} END`;
}

/** The acceptable answers of a recorded target, and the shape they were read from. */
export function goldAnswers(target: string): { answers: string[]; shape: GoldShape } {
  const list = parsePyList(target);
  if (list !== null && list.length > 0) return { answers: list.map(String), shape: 'list' };
  const t = target.trim();
  if (t.startsWith('{') && t.endsWith('}')) {
    let value: unknown;
    try {
      value = literalEvalDocValue(t);
    } catch {
      return { answers: [target], shape: 'one' };
    }
    if (isPlainObject(value)) {
      const texts = value.text;
      if (Array.isArray(texts) && texts.length > 0 && texts.every((x) => typeof x === 'string')) return { answers: texts as string[], shape: 'squad' };
      throw new BadInputError(
        `the gold ${JSON.stringify(t.slice(0, 80))} is a mapping with keys ${JSON.stringify(Object.keys(value))}, which names no answer (SQuAD's {'text': [...]} does); rescore a field that holds the answer (--gold-field)`,
        { field: 'target' },
      );
    }
  }
  const final = FINAL_NUMBER.exec(target);
  if (final !== null) return { answers: [final[1]!], shape: 'final-number' };
  return { answers: [target], shape: 'one' };
}

/** The golds of a recorded target: the elements of a list repr, a SQuAD answers dict's texts, else the target itself. */
export function goldsOf(target: string): string[] {
  return goldAnswers(target).answers;
}
