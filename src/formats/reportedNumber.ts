/**
 * A number a source reported, as provenance.json keeps it: JSON has no NaN or Infinity, so a non-finite value Python
 * wrote is kept as its token ('NaN', 'Infinity', '-Infinity'; src/import/lmeval/runCommon.ts `verbatim`).
 */
export function reportedNumber(value: unknown): number | null {
  if (typeof value === 'number') return value;
  if (value === 'NaN') return Number.NaN;
  if (value === 'Infinity') return Number.POSITIVE_INFINITY;
  if (value === '-Infinity') return Number.NEGATIVE_INFINITY;
  return null;
}
