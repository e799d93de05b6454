/**
 * Gold answers as recorded. lm-eval writes `str(doc_to_target(doc))`, so a task
 * with several acceptable answers (trivia_qa aliases) records a Python list repr;
 * lm-eval counts a document correct when any of them matches, and so do we.
 */
import { parsePyList } from './lmeval/metrics.ts';

/** The golds of a recorded target: the elements of a list repr of strings/integers, else the target itself. */
export function goldsOf(target: string): string[] {
  const list = parsePyList(target);
  return list === null || list.length === 0 ? [target] : list.map(String);
}
