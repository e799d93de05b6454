/**
 * The JSON report is ReportData as is. Non-finite numbers have no JSON form;
 * they are written as the strings Python prints, as everywhere in lmaudit.
 */
export function jsonReplacer(_key: string, value: unknown): unknown {
  if (typeof value === 'number' && !Number.isFinite(value)) return Number.isNaN(value) ? 'NaN' : value > 0 ? 'Infinity' : '-Infinity';
  if (typeof value === 'bigint') return Number(value);
  if (value instanceof Map) return Object.fromEntries(value);
  return value;
}
