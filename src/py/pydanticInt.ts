/**
 * pydantic v2's lax reading of an `int` field, which Inspect's log models (ModelUsage's token counts) validate with:
 * a log that writes a count as "12" is read by Inspect as 12, not refused. Written by hand because no JavaScript
 * library reproduces pydantic-core's rules; checked against pydantic 2.13.5: "12", " 12 ", "\t12\n", "+12", "-0",
 * "00012", "1_000", "12.0", "12.00", 12.0 and true read as integers; "12.5", "12.", "1e3", "0x10", "_12", "12_",
 * "1__0", "", "１２" (non-ASCII digits), 12.5, NaN and 1e20 (beyond a 64-bit integer) are refused.
 */

/** The integer pydantic's lax mode reads `value` as, or undefined where it refuses it (or where a double would not hold it exactly). */
export function pydanticLaxInt(value: unknown): number | undefined {
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (typeof value === 'number') return Number.isSafeInteger(value) ? value : undefined;
  if (typeof value !== 'string') return undefined;
  const m = /^\s*([+-]?[0-9]+(?:_[0-9]+)*)(?:\.0+)?\s*$/.exec(value);
  if (m === null) return undefined;
  const n = Number(m[1]!.replaceAll('_', ''));
  return Number.isSafeInteger(n) ? (n === 0 ? 0 : n) : undefined;
}
