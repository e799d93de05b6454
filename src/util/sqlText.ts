/**
 * SQL text for literals and identifiers. A module of its own, without DuckDB: code that only
 * writes SQL text (the samples reader threads' row lines) does not load the native binding.
 */

/**
 * A SQL string literal. A NUL is spelt `chr(0)`: DuckDB's parser ends a query's text at a NUL, so a model's output or
 * a gold holding one stopped any query it was written into ("unterminated quoted string").
 */
export function sqlString(value: string): string {
  const literal = (s: string) => `'${s.replaceAll("'", "''")}'`;
  return value.includes('\0') ? `(${value.split('\0').map(literal).join(' || chr(0) || ')})` : literal(value);
}

/** A quoted SQL identifier. */
export function sqlIdent(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}
