/**
 * SQL text for literals and identifiers. A module of its own, without DuckDB: code that only
 * writes SQL text (the samples reader threads' row lines) does not load the native binding.
 */

/** A SQL string literal. */
export function sqlString(value: string): string {
  return `'${value.replaceAll("'", "''")}'`;
}

/** A quoted SQL identifier. */
export function sqlIdent(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}
