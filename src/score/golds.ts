/**
 * Gold answers as recorded. lm-eval writes `str(doc_to_target(doc))`, so a task
 * with several acceptable answers (trivia_qa aliases) records a Python list repr;
 * lm-eval counts a document correct when any of them matches, and so do we.
 */
import { literalEval } from '../prompt/jinja/literal.ts';
import { PyFloat } from '../prompt/jinja/values.ts';

/** The golds of a recorded target: the elements of a Python list repr of scalars, else the target itself. */
export function goldsOf(target: string): string[] {
  if (!target.startsWith('[') || !target.endsWith(']')) return [target];
  let parsed: unknown;
  try {
    parsed = literalEval(target);
  } catch {
    return [target];
  }
  if (!Array.isArray(parsed) || parsed.length === 0) return [target];
  const golds: string[] = [];
  for (const element of parsed) {
    if (typeof element === 'string') golds.push(element);
    else if (typeof element === 'number' || typeof element === 'bigint') golds.push(String(element));
    else if (element instanceof PyFloat) golds.push(Number.isInteger(element.value) ? `${element.value}.0` : String(element.value));
    else return [target];
  }
  return golds;
}
