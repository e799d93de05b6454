/**
 * The vocabulary of an Inspect score value, which the importer reads from a log
 * and the rescoring reproduces: its JSON shape and Inspect's value_to_float
 * (scorer/_metric.py, 0.3.260), which maps letters and words to numbers.
 */
import { pyFloat } from '../py/float.ts';
import { pyLower } from '../py/str.ts';

/** Inspect's `Value`: a scalar, or a list or dict of them. */
export type ScoreValue = string | number | boolean | null | ScoreValue[] | { [key: string]: ScoreValue };

/** Inspect's value_to_float: C/P/I/N, yes/no, true/false, numeric strings; anything else is 0. */
export function valueToFloat(value: ScoreValue): number {
  if (typeof value === 'number') return value;
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (value === 'C') return 1;
  if (value === 'P') return 0.5;
  if (value === 'I' || value === 'N') return 0;
  if (typeof value === 'string') {
    const v = pyLower(value);
    if (v === 'yes' || v === 'true') return 1;
    if (v === 'no' || v === 'false') return 0;
    const n = pyFloat(v);
    if (n !== null && Number.isFinite(n)) return n;
  }
  // Inspect warns and maps lists, dicts, None and unparseable strings to 0.
  return 0;
}
