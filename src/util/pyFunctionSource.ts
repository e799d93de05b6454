/**
 * Python function sources that records carry (lm-eval writes `process_results`, `doc_to_text`
 * and filter functions into its results file as text). Tables name such a function and say
 * where it is; they never show its source.
 */

/** `def name(` at the head of a recorded Python source, else null. */
export function functionName(source: unknown): string | null {
  if (typeof source !== 'string') return null;
  const m = /^\s*(?:async\s+)?def\s+([A-Za-z_][A-Za-z0-9_]*)\s*\(/.exec(source);
  return m === null ? null : m[1]!;
}

/** A recorded multi-line function source as a table cell shows it: its name and size (null: not a function source). */
export function describeFunctionSource(source: unknown): string | null {
  const name = functionName(source);
  if (name === null || typeof source !== 'string' || !source.includes('\n')) return null;
  return `function ${name} (${source.split('\n').filter((l) => l.trim() !== '').length} lines of task code, not shown)`;
}
