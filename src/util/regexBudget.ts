/**
 * Python patterns on model outputs without a hang. A pattern whose repeats nest (`(a+)+`,
 * `(a|a)*`) can backtrack exponentially on an output that almost matches: Python's `re`
 * would never return either, and JS has no linear engine for the lookarounds the
 * translation needs (`$` is `(?=\n?$)`). Such a pattern runs each output under a time
 * budget (V8 stops a regex when a vm timeout fires); past it, the item is an error that
 * names the pattern and the output, never a silent miss. Other patterns run directly: the
 * budget's watchdog costs ~0.2 ms a call.
 */
import vm from 'node:vm';
import { UnsupportedError } from '../errors.ts';
import type { PyPattern } from '../py/re.ts';
import { findall } from '../py/reMatch.ts';

/** Per output: orders of magnitude above a linear match on the longest real output. */
export const REGEX_BUDGET_MS = 2000;

const risky = new Map<string, boolean>();
const context = vm.createContext({ run: null as (() => unknown) | null });
const call = new vm.Script('run()');

/** Python `findall`, bounded in time when the pattern can backtrack exponentially. */
export function boundedFindall(p: PyPattern, text: string, budgetMs = REGEX_BUDGET_MS): (string | string[])[] {
  let nested = risky.get(p.regex.source);
  if (nested === undefined) risky.set(p.regex.source, (nested = nestedRepeat(p.regex.source)));
  if (!nested) return findall(p, text);
  context.run = () => findall(p, text);
  try {
    return call.runInContext(context, { timeout: budgetMs }) as (string | string[])[];
  } catch (error) {
    if ((error as { code?: string }).code !== 'ERR_SCRIPT_EXECUTION_TIMEOUT') throw error;
    const shown = text.length > 60 ? `${JSON.stringify(text.slice(0, 60))}… (${text.length} characters)` : JSON.stringify(text);
    throw new UnsupportedError(
      `the pattern ${JSON.stringify(p.source)} ran more than ${budgetMs} ms on the output ${shown}: its nested repeats backtrack exponentially (Python's re would not return either); use a pattern without a repeat inside a repeat`,
    );
  } finally {
    context.run = null;
  }
}

/**
 * Whether a JS regex source repeats a group that itself repeats or alternates (star
 * height above one), the shape of exponential backtracking.
 */
export function nestedRepeat(source: string): boolean {
  /** Per open group: whether it holds a repeat or an alternation. */
  const open: boolean[] = [];
  let inSet = false;
  let lastGroupRisky = false;
  for (let i = 0; i < source.length; i++) {
    const c = source[i]!;
    const afterGroup = lastGroupRisky;
    lastGroupRisky = false;
    if (c === '\\') {
      i++;
      continue;
    }
    if (inSet) {
      if (c === ']') inSet = false;
      continue;
    }
    if (c === '[') inSet = true;
    else if (c === '(') open.push(false);
    else if (c === ')') {
      lastGroupRisky = open.pop() ?? false;
      if (lastGroupRisky && open.length > 0) open[open.length - 1] = true;
    } else if (c === '|') {
      if (open.length > 0) open[open.length - 1] = true;
    } else if (c === '*' || c === '+' || c === '?' || c === '{') {
      if (c === '?' && source[i - 1] === '(') continue;
      if (afterGroup && c !== '?') return true;
      if (open.length > 0) open[open.length - 1] = true;
    }
  }
  return false;
}
